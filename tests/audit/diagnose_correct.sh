#!/usr/bin/env bash
# Zero false alarms: `pecheck diagnose` on a correct implementation must say "as asked" (exit 0) for
# every spec of the lists it supports, at every dtype given. Calls it answers unsupported for a
# whole spec are skipped and counted. Fails on any other diagnosis.
# usage: diagnose_correct.sh PECHECK LIB "DTYPES" SPEC_LIST...
set -u
pecheck=$1 lib=$2 dtypes=$3
shift 3
runs=0 skipped=0 alarms=0
for dt in $dtypes; do
  for list in "$@"; do
    while read -r spec; do
      [ -z "$spec" ] && continue
      out=$("$pecheck" diagnose --impl "$lib" --spec "$spec" --dtype "$dt" 2>&1)
      status=$?
      if [ $status -eq 0 ]; then runs=$((runs + 1)); continue; fi
      if grep -q '^no call answered' <<<"$out"; then skipped=$((skipped + 1)); continue; fi
      alarms=$((alarms + 1))
      echo "FALSE ALARM $dt [$spec] (exit $status):"; echo "$out" | tail -8
    done < "$list"
  done
done
echo "$(basename "$lib"): $runs diagnosed as asked, $skipped unsupported, $alarms false alarms"
test $alarms -eq 0
