#!/usr/bin/env bash
# The gate where the system refuses the sandbox's namespaces (a user namespace of this test's own in
# which user.max_user_namespaces is 0): --sandbox require exits 2 naming the refused step, and auto
# passes the example plugin while its text and JSON reports say the namespaces were off, and why.
# usage: sandbox_unavailable.sh PECHECK PLUGIN    (exit 77, skipped, without user namespaces here)
set -u
pecheck=$1 plugin=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
unshare -U -r true 2> /dev/null || { echo "no user namespaces here: skipped"; exit 77; }
cat > "$dir/inside.sh" <<'INSIDE'
echo 0 > /proc/sys/user/max_user_namespaces || exit 3
run() { "$1" gate --impl "$2" --spec 'rope(dim=8)' --golden-scope none --cases 5 "${@:4}" > "$3" 2>&1; }
run "$1" "$2" "$3/require.txt" --sandbox require; echo $? > "$3/require.status"
run "$1" "$2" "$3/auto.txt" --json "$3/auto.json"; echo $? > "$3/auto.status"
INSIDE
unshare -U -r bash "$dir/inside.sh" "$pecheck" "$plugin" "$dir" || { echo "could not set user.max_user_namespaces"; exit 1; }
cat "$dir/require.txt" "$dir/auto.txt"
fail() { echo "$1"; exit 1; }
[ "$(cat "$dir/require.status")" = 2 ] || fail "--sandbox require: exit $(cat "$dir/require.status"), not 2"
grep -q "^pecheck: --sandbox require: this system does not let the gate create the implementation's namespaces (unshare: " "$dir/require.txt" ||
  fail "--sandbox require: no line naming the refused step"
[ "$(cat "$dir/auto.status")" = 0 ] || fail "--sandbox auto: exit $(cat "$dir/auto.status"), not 0"
grep -q '^sandbox: off: namespaces (unshare: ' "$dir/auto.txt" || fail "--sandbox auto: the text report does not say the namespaces were off"
grep -q '^sandbox: on:' "$dir/auto.txt" && fail "--sandbox auto: the text report says something was on"
python3 - "$dir/auto.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))["sandbox"]
ok = s["mode"] == "auto" and s["on"] == [] and any(o.startswith("namespaces (unshare: ") for o in s["off"])
print("JSON sandbox:", s)
sys.exit(0 if ok else 1)
PY
