#!/usr/bin/env bash
# Runs `pecheck diagnose` on every mutant of tests/audit/diagnose_expectations.txt and checks each is
# diagnosed as the convention listed (or, for "- reason" lines, as nothing within the bound), and that
# the sentence it prints says the listed words, in at most 120 columns and with no list. Prints the
# hit rate over all of them; fails on any line that does not hold.
# usage: diagnose_mutants.sh PECHECK MUTANT_DIR EXPECTATIONS
set -u
pecheck=$1 dir=$2 table=$3
hits=0 total=0 wrong=0
while IFS='|' read -r mutant spec want op words; do
  case "$mutant" in ''|'#'*) continue ;; esac
  total=$((total + 1))
  json=$(mktemp)
  # wire:MODE is tests/mutants/wire_mutants.py MODE over the wire protocol; anything else a plugin.
  if [ "${mutant#wire:}" != "$mutant" ]; then
    impl=(--impl-cmd "/usr/bin/python3 $(dirname "$0")/../mutants/wire_mutants.py ${mutant#wire:}")
  else
    impl=(--impl "$dir/libmutant_$mutant.so")
  fi
  # A fourth column names the op to diagnose (rotate_grad for a backward pass); empty: diagnose's default.
  op_flag=()
  [ -n "${op:-}" ] && op_flag=(--op "$op")
  # The sentence is the last line diagnose prints.
  sentence=$("$pecheck" diagnose "${impl[@]}" --spec "$spec" "${op_flag[@]}" --json "$json" 2> /dev/null | tail -n 1)
  IFS=$'\t' read -r best residual < <(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['ranking'][0]; print(r['name'] + '\t' + str(r['residual']))" "$json" 2>/dev/null || printf 'none\tinf\n')
  rm -f "$json"
  fits=$(/usr/bin/python3 -c "import sys; print(1 if sys.argv[1] != 'inf' and float(sys.argv[1]) <= 1 else 0)" "$residual")
  # The sentence: the listed words, within 120 columns, no bracketed list (a spec's freqs).
  said=""
  if [ -n "${words:-}" ] && ! grep -qF -- "$words" <<<"$sentence"; then said="its sentence lacks '$words'"; fi
  if [ ${#sentence} -gt 120 ]; then said="its sentence is ${#sentence} columns"; fi
  if grep -qF '[' <<<"$sentence"; then said="its sentence has a list"; fi
  if [ "${want:0:1}" = "-" ]; then
    if [ "$fits" = 1 ]; then echo "UNEXPECTED $mutant: diagnosed as '$best' (residual $residual); the table says '$want'"; wrong=$((wrong + 1));
    elif [ -n "$said" ]; then echo "MISWORDED $mutant: $said: $sentence"; wrong=$((wrong + 1));
    else echo "not yet   $mutant: nearest '$best' (residual $residual) $want"; fi
  elif [ "$best" = "$want" ] && [ "$fits" = 1 ] && [ -z "$said" ]; then
    echo "hit       $mutant: $best (residual $residual): $sentence"; hits=$((hits + 1))
  elif [ "$best" = "$want" ] && [ "$fits" = 1 ]; then
    echo "MISWORDED $mutant: $said: $sentence"; wrong=$((wrong + 1))
  else
    echo "MISS      $mutant: diagnosed as '$best' (residual $residual), expected '$want'"; wrong=$((wrong + 1))
  fi
done < "$table"
awk -v h=$hits -v t=$total 'BEGIN { printf "diagnosis hit rate: %d of %d mutants (%.1f %%)\n", h, t, 100 * h / t }'
test $wrong -eq 0
