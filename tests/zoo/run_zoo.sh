#!/usr/bin/env bash
# Puts one zoo member (a correct kernel) through `pecheck gate` at the standard tolerance: every spec
# of specs.txt, I/O in f32, bf16 and fp16, the SEEDS (default 1..10; CASES random cases each),
# positions up to 2^31 - 1; the golden cases, which do not depend on the seed, with seed 1 only. Any
# FAIL is a false alarm: the output of that run is printed and the script exits 1. On success it
# prints the member's worst fraction of the bound over every check, dtype and seed (its margin
# against a false alarm). ctest runs it once per seed (gate.zoo_<member>.seed_<n>).
# MAX_POS (default 2^31 - 1) is the largest position drawn: a member that answers unsupported past
# its cos/sin cache is given positions within it, so its cases are not spent on unsupported calls.
# SPECS (an environment variable, default specs.txt beside this script) is the file of specs, one a
# line: pecheck's own kernels are also gated on their encode and bias specs this way. GATE_ARGS
# (another, optional) adds gate arguments, split on spaces: a CUDA plugin needs
# --address-space-gib unlimited.
# usage: [SPECS=FILE] run_zoo.sh PECHECK LIB GOLDEN_DIR [CASES [SEEDS [MAX_POS]]]
set -u
pecheck=$1 lib=$2 golden=$3 cases=${4:-10} seeds=${5:-1 2 3 4 5 6 7 8 9 10} max_pos=${6:-2147483647}
specs=()
extra=()
[ -n "${GATE_ARGS:-}" ] && read -r -a extra <<<"$GATE_ARGS"
while IFS= read -r line; do [ -n "$line" ] && specs+=(--spec "$line"); done < "${SPECS:-$(dirname "$0")/specs.txt}"
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
for seed in $seeds; do
  scope=scheme
  [ "$seed" -gt 1 ] && scope=none
  for dtype in f32 bf16 f16; do
    if ! out=$("$pecheck" gate --impl "$lib" "${specs[@]}" --dtype "$dtype" --seed "$seed" --cases "$cases" \
                 --max-position "$max_pos" --golden "$golden" --golden-scope "$scope" --json "$reports/$dtype-$seed.json" "${extra[@]}" 2>&1); then
      echo "false alarm: $(basename "$lib") at $dtype, seed $seed:"
      grep -E -A4 '^(FAIL|NOTHING)' <<<"$out"
      exit 1
    fi
  done
done
python=/usr/bin/python3  # the summary needs no package: any python3 does where that one is missing
[ -x "$python" ] || python=python3
"$python" - "$reports" "$(basename "$lib")" "$seeds" <<'PY'
import glob, json, os, sys
# The worst fraction of the bound per kind of check, over every spec, dtype and seed.
worst = {}
for path in glob.glob(os.path.join(sys.argv[1], "*.json")):
    for c in json.load(open(path))["checks"]:
        kind = c["check"].split(":")[0] if c["check"].startswith(("conformance", "golden")) else "laws"
        if kind == "conformance.rotate" and os.path.basename(path).startswith("f32-"):
            kind += " (f32)"  # where the angle algorithm shows: bf16 and fp16 rounding dominate the others
        if c["result"] == "PASS" and c["check"] != "determinism" and c["worst_fraction_of_bound"] >= worst.get(kind, (0, ""))[0]:
            worst[kind] = (c["worst_fraction_of_bound"], f'{c["spec"]} at {os.path.basename(path)[:-5]}')
print(f"{sys.argv[2]}: PASS at f32, bf16 and fp16, seeds {sys.argv[3]}; worst fraction of the bound:")
for kind in sorted(worst):
    print(f"  {kind:<22} {worst[kind][0]:.3g}  ({worst[kind][1]})")
PY
