"""The Dask runner (python/pecheck/dask_audit.py): shards on a LocalCluster merge to the unsharded run, a killed worker's shard is rerun, a bad shard is reported."""
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

import psutil
from distributed import Client, LocalCluster

from pecheck import dask_audit

PECHECK = os.environ["PECHECK"]
AUDIT = ["--impl-reference", "--spec", "rope(dim=64)", "--positions", "0:20000", "--tokens-per-call", "1000"]


def unsharded(tmp_path, audit):
    """The unsharded run's --json bytes and its report without the sandbox lines (a merge has none)."""
    whole = tmp_path / "whole.json"
    run = subprocess.run([PECHECK, "audit", *audit, "--json", str(whole)], capture_output=True, text=True, check=True)
    report = "".join(line for line in run.stdout.splitlines(keepends=True) if not line.startswith("sandbox: "))
    return whole.read_bytes(), report


def runner(*args):
    return subprocess.run([sys.executable, "-m", "pecheck.dask_audit", *args], capture_output=True, text=True, timeout=120)


def test_shards_on_two_workers_merge_to_the_unsharded_run(tmp_path):
    whole, report = unsharded(tmp_path, AUDIT)
    merged = tmp_path / "merged.json"
    run = runner("--local", "2", "--shards", "5", "--pecheck", PECHECK, "--json", str(merged), "--", *AUDIT)
    assert run.returncode == 0, run.stderr
    assert merged.read_bytes() == whole
    assert run.stdout == report
    assert "failed call" not in run.stdout
    assert run.stdout.endswith("audit: PASS\n")
    # One progress line a shard, the last saying all are done.
    done = [line for line in run.stderr.splitlines() if line.startswith("shard ")]
    assert len(done) == 5 and done[-1].endswith("done (5 of 5)"), run.stderr


def pecheck_children(pids):
    """(worker pid, pecheck pid) of each pecheck a worker runs now."""
    found = []
    for pid in pids:
        try:
            for child in psutil.Process(pid).children():
                if child.exe() == os.path.realpath(PECHECK):
                    found.append((pid, child.pid))
        except psutil.Error:  # it ended while looked at
            pass
    return found


def test_a_worker_killed_mid_shard_has_its_shard_rerun(tmp_path):
    # 4 shards of about a second each on 2 workers: the kill lands while a shard's pecheck runs
    # (seen running before the kill), not at a time guessed with sleep.
    audit = ["--impl-reference", "--spec", "rope(dim=64)", "--positions", "0:200000", "--tokens-per-call", "1000"]
    whole, report = unsharded(tmp_path, audit)
    merged = tmp_path / "merged.json"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster) as client, open(tmp_path / "report.txt", "w") as out, open(tmp_path / "progress.txt", "w") as err:
        workers = list(client.run(os.getpid).values())
        status = []
        thread = threading.Thread(target=lambda: status.append(dask_audit.run(client, PECHECK, audit, 4, str(merged), out=out, err=err)))
        thread.start()
        deadline = time.monotonic() + 60
        while not (running := pecheck_children(workers)) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert running, "no shard was seen running"
        worker, orphan = running[0]
        argv = psutil.Process(orphan).cmdline()
        orphan_part = argv[argv.index("--json") + 1]  # written when its sweep ends
        os.kill(worker, signal.SIGKILL)
        thread.join(120)
        assert not thread.is_alive()
    assert status == [0]
    assert merged.read_bytes() == whole
    assert (tmp_path / "report.txt").read_text() == report
    # The killed worker's pecheck died with it (PR_SET_PDEATHSIG), not left sweeping: gone, and its
    # part never written (one left running would have finished and written it by now).
    deadline = time.monotonic() + 10
    while psutil.pid_exists(orphan) and psutil.Process(orphan).status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not psutil.pid_exists(orphan) or psutil.Process(orphan).status() == psutil.STATUS_ZOMBIE
    assert not os.path.exists(orphan_part)
    shutil.rmtree(os.path.dirname(orphan_part), ignore_errors=True)  # the dead worker's temporary directory


def test_a_shard_with_bad_input_is_reported_and_the_run_fails(tmp_path):
    # A pecheck that refuses shard 2 of 4 as bad input (exit 2, one line on stderr), the real one otherwise.
    wrapper = tmp_path / "pecheck_refusing_shard_2"
    wrapper.write_text("#!/bin/sh\ncase \" $* \" in *' --shard 2/4 '*) echo 'pecheck: a refusal for shard 2' >&2; exit 2;; esac\n"
                       f"exec '{PECHECK}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    run = runner("--local", "2", "--shards", "4", "--pecheck", str(wrapper), "--", *AUDIT)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "shard 2/4 FAILED (exit 2)" in run.stderr
    assert "pecheck: a refusal for shard 2" in run.stderr
    # The other three are merged, and the merge says a shard is missing: no pass.
    assert "a shard is missing" in run.stdout and run.stdout.endswith("audit: FAIL\n"), run.stdout


def test_bad_input_in_every_shard_is_reported_with_pechecks_line(tmp_path):
    run = runner("--local", "1", "--shards", "2", "--pecheck", PECHECK, "--", "--impl-reference", "--spec", "rope(dim=64)", "--positions", "5:1")
    assert run.returncode == 2
    assert "none of the 2 shards wrote a part" in run.stderr
    assert "pecheck: " in run.stderr and "--positions" in run.stderr, run.stderr


def test_the_runners_own_options_are_refused_among_the_audits():
    run = runner("--local", "1", "--shards", "2", "--", "--impl-reference", "--shard", "1/2")
    assert run.returncode == 2
    assert "--shard among the audit's arguments" in run.stderr
