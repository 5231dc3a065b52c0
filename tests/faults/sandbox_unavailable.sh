#!/usr/bin/env bash
# The gate where the system refuses the sandbox's namespaces (a user namespace of this test's own in
# which user.max_user_namespaces is 0): --sandbox require exits 2 naming the refused step, and auto
# passes the example plugin while its text and JSON reports say the namespaces were off, and why
# (Landlock and seccomp need no namespace: they may be on).
# Without a PID namespace the system call filter keeps the worker in the group the gate kills: a
# plugin that starts setsid daemons, and one that joins the gate's group, pass and leave nothing.
# usage: sandbox_unavailable.sh PECHECK PLUGIN DAEMONS_PLUGIN JOINS_GROUP_PLUGIN
# (exit 77, skipped, without user namespaces here)
set -u
pecheck=$1 plugin=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
marker="pecheck-unavailable-$$-$RANDOM"
ln -s "$3" "$dir/$marker-daemons.so"
ln -s "$4" "$dir/$marker-joins.so"
unshare -U -r true 2> /dev/null || { echo "no user namespaces here: skipped"; exit 77; }
cat > "$dir/inside.sh" <<'INSIDE'
echo 0 > /proc/sys/user/max_user_namespaces || exit 3
run() { "$1" gate --impl "$2" --spec 'rope(dim=8)' --golden-scope none --cases 5 "${@:4}" > "$3" 2>&1; }
run "$1" "$2" "$3/require.txt" --sandbox require; echo $? > "$3/require.status"
run "$1" "$2" "$3/auto.txt" --json "$3/auto.json"; echo $? > "$3/auto.status"
for attack in daemons joins; do
  timeout -s KILL 60 "$1" gate --impl "$3/$4-$attack.so" --spec 'rope(dim=64)' --golden-scope none --cases 10 > "$3/$attack.txt" 2>&1
  echo $? > "$3/$attack.status"
done
INSIDE
unshare -U -r bash "$dir/inside.sh" "$pecheck" "$plugin" "$dir" "$marker" || { echo "could not set user.max_user_namespaces"; exit 1; }
cat "$dir/require.txt" "$dir/auto.txt" "$dir/daemons.txt" "$dir/joins.txt"
fail() { echo "$1"; exit 1; }
for attack in daemons joins; do
  [ "$(cat "$dir/$attack.status")" = 0 ] || fail "the $attack plugin without namespaces: exit $(cat "$dir/$attack.status"), not 0"
done
sleep 0.5
left=$(pgrep -f "$marker")
[ -z "$left" ] || { ps -o pid,ppid,pgid,stat,args -p "$(echo $left | tr ' ' ,)"; kill -KILL $left; fail "processes left behind without namespaces"; }
[ "$(cat "$dir/require.status")" = 2 ] || fail "--sandbox require: exit $(cat "$dir/require.status"), not 2"
grep -q "^pecheck: --sandbox require: this system does not let the gate create the implementation's namespaces (unshare: " "$dir/require.txt" ||
  fail "--sandbox require: no line naming the refused step"
[ "$(cat "$dir/auto.status")" = 0 ] || fail "--sandbox auto: exit $(cat "$dir/auto.status"), not 0"
grep -q '^sandbox: off: namespaces (unshare: ' "$dir/auto.txt" || fail "--sandbox auto: the text report does not say the namespaces were off"
grep '^sandbox: on:' "$dir/auto.txt" | grep -q namespace && fail "--sandbox auto: the text report says a namespace was on"
python3 - "$dir/auto.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))["sandbox"]
namespaces = ("user namespace", "PID namespace", "IPC and network namespaces")
ok = s["mode"] == "auto" and not any(o.startswith(namespaces) for o in s["on"]) and any(o.startswith("namespaces (unshare: ") for o in s["off"])
print("JSON sandbox:", s)
sys.exit(0 if ok else 1)
PY
