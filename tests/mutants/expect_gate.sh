#!/usr/bin/env bash
# Runs `pecheck gate` on one implementation and checks its exit status and the lines it must print.
# usage: [TIMEOUT_MS=N] expect_gate.sh PECHECK LIB SPEC EXPECTED_STATUS PATTERN... (extended regexes, each must
# match a line); TIMEOUT_MS, the gate's --timeout-ms, is 3000 unless given (the hang mutant's test gives less).
set -u
pecheck=$1 lib=$2 spec=$3 expected=$4
shift 4
out=$("$pecheck" gate --impl "$lib" --spec "$spec" --timeout-ms "${TIMEOUT_MS:-3000}" --golden "$(dirname "$0")/../../golden" 2>&1)
status=$?
if [ "$status" -ne "$expected" ]; then
  echo "expected exit status $expected, got $status:"; echo "$out"; exit 1
fi
for pattern in "$@"; do
  if ! grep -Eq "$pattern" <<<"$out"; then echo "no line matches '$pattern':"; echo "$out"; exit 1; fi
done
echo "$out"
