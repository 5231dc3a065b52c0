#!/usr/bin/env bash
# Runs `pecheck gate` on one faulty implementation and checks its exit status, a line naming the
# cause, that it took at most MAX_SECONDS, and that no process of it is left behind.
# usage: expect_fault.sh PECHECK impl|impl-cmd TARGET EXPECTED_STATUS MAX_SECONDS PATTERN [GATE ARGS...]
# A unique marker reaches every process of the implementation's: the plugin's file name (a
# symlink) for --impl, which the gate's forked children carry in their argv; the last argument of
# the command for --impl-cmd, which its children inherit.
# FAULT_REPORT=FILE in the environment: FILE (the gate's --json, relative to its directory) must
# be the gate's report after the gate and every process of the implementation's have ended.
# FAULT_MAX_OUTPUT=N in the environment: the gate's stdout and stderr together are at most N bytes
# (a flood the gate relays must be cut).
# Exit 77 (skipped): the gate ran with --sandbox require where the system does not allow it.
# FAULT_FAILS=N in the environment: exactly N checks FAIL, and FAULT_UNSUPPORTED (default 0) are
# UNSUPPORTED (the ops the implementation declines from the start). For the faults
# that fault once per gate run (PECHECK_FAULT_ONCE, set here), every check after the fault's own
# passes: the fault left the gate's state as it was.
set -u
pecheck=$1 kind=$2 target=$3 expected=$4 max_seconds=$5 pattern=$6
shift 6
marker="pecheck-fault-$$-$RANDOM"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The fault-once file's name: the implementation creates it in its scratch directory (PECHECK_SCRATCH),
# the one the sandbox lets it write, or here without one.
export PECHECK_FAULT_ONCE="$dir/faulted"
# The directory a hostile implementation tries to write into (PECHECK_FAULT_DIR): nothing in it but
# the gate's outputs may change, and the canary must stay as it is.
export PECHECK_FAULT_DIR="$dir"
echo "a file of the test's, which no implementation may change" > "$dir/canary"
if [ "$kind" = impl ]; then
  # A relative path, from the gate's directory: a fresh worker after a fault (one that changed its
  # directory, say) must find it again.
  ln -s "$target" "$dir/$marker.so"
  cd "$dir" || exit 1
  impl=(--impl "./$marker.so")
else
  # Contiguous inputs alone: a fault is the same in every memory layout, and each would be a pass more.
  impl=(--impl-cmd "$target $marker" --layouts contiguous)
fi
started=$(date +%s%N)
# Into a file, not a pipe: a process left behind holding the pipe would stall the test instead of
# failing it. A gate that deadlocks is stopped at twice the time allowed, and fails the test.
timeout -s KILL $((2 * max_seconds)) "$pecheck" gate "${impl[@]}" "$@" > "$dir/out" 2>&1
status=$?
out=$(cat "$dir/out")
out_bytes=$(stat -c %s "$dir/out")
seconds=$(( ($(date +%s%N) - started) / 1000000000 ))
if [ "$out_bytes" -le 65536 ]; then echo "$out"; else
  head -c 32768 "$dir/out"; echo; echo "[... $out_bytes bytes in all; the last lines:]"; tail -n 40 "$dir/out" | cut -c 1-300
fi
echo "exit status $status after ${seconds} s"
# A test of the sandbox (--sandbox require) on a system without the namespaces it needs is skipped.
if [ "$status" -eq 2 ] && grep -q -e '--sandbox require: this system does not let the gate ' <<<"$out"; then exit 77; fi
# SIGKILLed processes may take a moment to vanish; one still there after a second was left behind.
for _ in 1 2 3 4 5 6 7 8 9 10; do
  left=$(pgrep -f "$marker")
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then echo "processes left behind:"; ps -o pid,ppid,pgid,stat,args -p "$(echo $left | tr ' ' ,)"; kill -KILL $left; exit 1; fi
# Nothing in the test's directory changed but the gate's own outputs (out, FAULT_REPORT, the fault-once file without a sandbox).
if [ "$(cat "$dir/canary")" != "a file of the test's, which no implementation may change" ]; then echo "the canary file was changed"; exit 1; fi
unexpected=$(cd "$dir" && ls -A | grep -v -x -e out -e canary -e faulted -e "$marker.so" -e "${FAULT_REPORT:-out}")
if [ -n "$unexpected" ]; then echo "files the gate did not write appeared in the test's directory: $unexpected"; exit 1; fi
# FAULT_REPORT=FILE: the gate's --json report, in the gate's directory, is still the gate's own.
if [ -n "${FAULT_REPORT:-}" ] && ! grep -q '"format": "pecheck-gate/1"' "$dir/$FAULT_REPORT"; then
  echo "the report $FAULT_REPORT is not the gate's:"; head -c 300 "$dir/$FAULT_REPORT"; exit 1
fi
if [ -n "${FAULT_MAX_OUTPUT:-}" ] && [ "$out_bytes" -gt "$FAULT_MAX_OUTPUT" ]; then
  echo "the gate wrote $out_bytes bytes, more than $FAULT_MAX_OUTPUT"; exit 1
fi
if [ "$status" -ne "$expected" ]; then echo "expected exit status $expected, got $status"; exit 1; fi
if ! grep -Eq -e "$pattern" <<<"$out"; then echo "no line matches '$pattern'"; exit 1; fi
if [ -n "${FAULT_FAILS:-}" ]; then
  fails=$(grep -c '^FAIL ' <<<"$out") unsupported=$(grep -c '^UNSUPPORTED ' <<<"$out")
  if [ "$fails" -ne "$FAULT_FAILS" ] || [ "$unsupported" -ne "${FAULT_UNSUPPORTED:-0}" ]; then
    echo "expected $FAULT_FAILS failing and ${FAULT_UNSUPPORTED:-0} unsupported check(s), got $fails and $unsupported"; exit 1
  fi
fi
if [ "$seconds" -gt "$max_seconds" ]; then echo "took ${seconds} s, more than ${max_seconds} s"; exit 1; fi
