"""python3 -m pecheck.dask_audit: one `pecheck audit` run as N shards on a Dask cluster, the parts merged into the unsharded report."""
from __future__ import annotations

import argparse
import ctypes
import logging
import os
import signal
import subprocess
import sys
import tempfile
import uuid

# The audit's options that the runner sets itself, one per shard.
RUNNER_OPTIONS = ("--shard", "--json")


def _die_with_parent():
    """In the shard's pecheck, before it runs: SIGKILL when the worker process dies (PR_SET_PDEATHSIG),
    so a worker killed mid-shard leaves no pecheck sweeping on; Dask then reruns the shard elsewhere."""
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def run_shard(binary, audit_args, index, count):
    """On a worker: `binary audit audit_args --shard index/count --json <tmp>`; returns the part's JSON
    text (None where pecheck wrote none), its exit status and its stderr. The JSON comes back as text so
    that workers need not share a filesystem with the client."""
    with tempfile.TemporaryDirectory(prefix="pecheck-shard-") as tmp:
        part = os.path.join(tmp, "part.json")
        argv = [binary, "audit", *audit_args, "--shard", f"{index}/{count}", "--json", part]
        # A session of its own: where the wait is interrupted (an exception raised in this thread),
        # pecheck and whatever it started (a sandboxed implementation) are killed as one process
        # group. Dask cannot stop a running task's thread, so a worker that dies is covered by
        # PR_SET_PDEATHSIG instead.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True, preexec_fn=_die_with_parent)
        try:
            _, err = proc.communicate()
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        text = None
        # 0 pass, 1 fail: both wrote the part; 2 (bad input) and a crash did not judge.
        if proc.returncode in (0, 1) and os.path.exists(part):
            with open(part, encoding="utf-8") as f:
                text = f.read()
        return {"index": index, "status": proc.returncode, "json": text, "stderr": err.decode("utf-8", "replace")}


def _send_by_value():
    """Tasks pickled with their code: the workers need the pecheck binary, not this package."""
    import cloudpickle

    if hasattr(cloudpickle, "register_pickle_by_value"):
        cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _status_words(status):
    return f"killed by signal {-status}" if status < 0 else f"exit {status}"


def run(client, binary, audit_args, shards, json_path=None, html_path=None, out=sys.stdout, err=sys.stderr):
    """The audit as `shards` tasks on client, one a shard, then `binary audit merge` of their parts here;
    returns the exit status: the merge's (0 pass, 1 fail, 2 bad input), at least 2 where a shard
    wrote no part (its pecheck refused the input or crashed: reported with its stderr, never merged)."""
    from distributed import as_completed

    _send_by_value()

    run_id = uuid.uuid4().hex[:8]
    # pure=False and a key of this run's own: a rerun audit is swept again, never taken from a cache.
    futures = {client.submit(run_shard, binary, list(audit_args), i, shards, pure=False, key=f"pecheck-audit-{run_id}-shard-{i}-of-{shards}"): i
               for i in range(1, shards + 1)}
    results = {}
    for done, future in enumerate(as_completed(futures), start=1):
        try:
            result = future.result()
        except Exception as e:  # the task itself failed: no binary there, or its worker died more than allowed-failures times
            result = {"index": futures[future], "status": 2, "json": None, "stderr": f"{type(e).__name__}: {e}"}
        results[result["index"]] = result
        state = "done" if result["json"] is not None else f"FAILED ({_status_words(result['status'])})"
        print(f"shard {result['index']}/{shards} {state} ({done} of {shards})", file=err, flush=True)
    missing = [r for _, r in sorted(results.items()) if r["json"] is None]
    for r in missing:
        print(f"shard {r['index']}/{shards}: pecheck {_status_words(r['status'])}, no part to merge; its stderr:", file=err)
        print(r["stderr"].rstrip("\n") or "(empty)", file=err, flush=True)
    if len(missing) == shards:
        print(f"dask_audit: none of the {shards} shards wrote a part: nothing to merge", file=err, flush=True)
        return 2
    with tempfile.TemporaryDirectory(prefix="pecheck-parts-") as tmp:
        parts = []
        for index, r in sorted(results.items()):
            if r["json"] is None:
                continue
            parts.append(os.path.join(tmp, f"part{index}.json"))
            with open(parts[-1], "w", encoding="utf-8") as f:
                f.write(r["json"])
        argv = [binary, "audit"]
        if html_path:
            argv += ["--html", html_path]
        argv += ["merge", *parts]
        if json_path:
            argv += ["--json", json_path]
        out.flush()
        merged = subprocess.run(argv, stdout=out, stderr=err)
    return max(merged.returncode, 2) if missing else merged.returncode


def parser():
    p = argparse.ArgumentParser(
        prog="python3 -m pecheck.dask_audit",
        description="Run one pecheck audit as N shards on a Dask cluster (one task a shard, each running pecheck on its worker), "
        "then merge the parts into the report of the unsharded run. The audit's own arguments follow --.",
        epilog="example: python3 -m pecheck.dask_audit --local 2 --shards 8 -- --impl ./librope.so --spec 'rope(dim=64)' --positions 0:2^20")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", type=int, metavar="K", help="start a LocalCluster of K worker processes here")
    where.add_argument("--scheduler", metavar="ADDRESS", help="an existing cluster's scheduler, e.g. tcp://host:8786")
    p.add_argument("--shards", type=int, required=True, metavar="N", help="run the audit as N shards (--shard 1/N .. N/N)")
    p.add_argument("--pecheck", default=os.environ.get("PECHECK", "pecheck"),
                   help="the pecheck binary, on the workers and here (default: $PECHECK, else pecheck on PATH)")
    p.add_argument("--json", metavar="FILE", help="write the merged profile as JSON to FILE")
    p.add_argument("--html", metavar="FILE", help="write the merged report's page to FILE")
    p.add_argument("audit_args", nargs="*", metavar="-- AUDIT_ARGS", help="pecheck audit's arguments (--impl, --spec, --positions, ...)")
    return p


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.shards < 1:
        p.error(f"--shards {args.shards}: give 1 or more")
    if args.local is not None and args.local < 1:
        p.error(f"--local {args.local}: give 1 or more workers")
    if not args.audit_args:
        p.error("the audit's arguments are missing: give them after --, e.g. -- --impl-reference --spec 'rope(dim=64)'")
    for a in args.audit_args:
        if a.split("=", 1)[0] in RUNNER_OPTIONS or a == "merge":
            p.error(f"{a} among the audit's arguments: the runner gives each shard its --shard and --json, and merges itself")
    from distributed import Client, LocalCluster

    if args.local is not None:
        # One pecheck at a time on each worker process; no dashboard to bind; Dask's own logging
        # (a worker restarted, a task rescheduled) left out of the report's terminal.
        with LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
            return run(client, args.pecheck, args.audit_args, args.shards, args.json, args.html)
    with Client(args.scheduler) as client:
        return run(client, args.pecheck, args.audit_args, args.shards, args.json, args.html)


if __name__ == "__main__":
    sys.exit(main())
