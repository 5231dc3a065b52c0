"""gate(fn, spec=...): runs `pecheck gate` on a Python function and returns its verdicts (the gate's --json)."""
from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import site
import subprocess
import sys
import tempfile

from .adapter import ARRAYS, INTERFACES, arrays_of
from .layouts import LAYOUTS
from .target import target_of


class GateError(Exception):
    """The gate could not judge: no binary, bad usage or an unusable implementation (its status 2)."""


def find_binary(binary=None):
    """The pecheck binary: binary, else $PECHECK, else pecheck on PATH; GateError naming what is missing."""
    if binary is None and os.environ.get("PECHECK"):
        binary, where = os.environ["PECHECK"], "PECHECK="
    else:
        where = ""
    if binary is None:
        found = shutil.which("pecheck")
        if found is None:
            raise GateError("pecheck not found: set PECHECK to the binary's path, or put pecheck on PATH")
        return found
    found = shutil.which(binary) if os.sep not in binary else binary
    if found is None or not os.path.isfile(found):
        raise GateError(f"{where}{binary}: no such file")
    if not os.access(found, os.X_OK):
        raise GateError(f"{where}{binary}: not executable")
    return found


def package_path_prefix():
    """'' when a fresh interpreter imports this package by itself (installed, or on PYTHONPATH), else
    the PYTHONPATH assignment that lets the gate's process import it from this source tree."""
    parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    usersite = [site.getusersitepackages()] if site.ENABLE_USER_SITE else []
    default = site.getsitepackages() + usersite + os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if any(d and os.path.abspath(d) == parent for d in default):
        return ""
    return f"PYTHONPATH={shlex.quote(parent)}${{PYTHONPATH:+:$PYTHONPATH}} "


def impl_command(fn, interface="rope", arrays="auto", device=None, ops=("rotate",), inplace=False):
    """The --impl-cmd text that serves fn: this interpreter running `-m pecheck` on fn's target."""
    target, root = target_of(fn)
    argv = [sys.executable, "-m", "pecheck"]
    if interface != "rope":
        argv += ["--interface", interface, "--ops", ",".join(ops)]
    if arrays != "auto":
        argv += ["--arrays", arrays]
    if device is not None:
        argv += ["--device", device]
    if inplace:
        argv += ["--inplace"]
    if root is not None:
        argv += ["--path", root]
    return package_path_prefix() + shlex.join(argv + [target])


@dataclasses.dataclass
class GateResult:
    """One gate run: report is its --json (format pecheck-gate/1), output its text report, log its stderr."""
    report: dict
    returncode: int
    output: str
    log: str
    command: list

    @property
    def passed(self):
        """The gate's own verdict: no check failed, none was INCOMPLETE unless --allow-partial accepted it,
        and every spec had something checked."""
        return self.returncode == 0

    @property
    def checks(self):
        return self.report["checks"]

    @property
    def failures(self):
        return [c for c in self.checks if c["result"] == "FAIL"]

    @property
    def incomplete(self):
        """The INCOMPLETE checks --allow-partial did not accept: cases declined, so not checked."""
        return [c for c in self.checks if c["result"] == "INCOMPLETE" and not c.get("accepted_partial")]

    def failure_text(self):
        """What failed: each failing check with its counterexample and reproduce line, each INCOMPLETE one, and the notes."""
        failures, incomplete = self.failures, self.incomplete
        lines = [f"pecheck gate: {self.report.get('verdict', 'PASS' if self.passed else 'FAIL')}, {len(failures)} of {len(self.checks)} checks failed, "
                 f"{len(incomplete)} incomplete ({self.report['implementation']} at {self.report['dtype']} I/O)"]
        for c in failures + incomplete:
            layout = f"  [layout {c['layout']}]" if c.get("layout", "contiguous") != "contiguous" else ""
            lines.append(f"{c['result']} {c['check']}  {c['spec']}{layout}")
            if c["detail"]:
                lines.append(f"    {c['detail']}")
            if c["result"] == "FAIL":
                lines.append(f"    reproduce: {c['reproduce']}")
        if not failures and not incomplete:  # failed without a failing check (nothing checked, a baseline regression): the gate's own words
            lines.append(self.output.rstrip())
        lines += [f"note: {n}" for n in self.report.get("notes", [])]
        return "\n".join(lines)


def gate(fn, spec, dtype="f32", *, cases=None, seed=None, golden=None, args=(), interface="rope", arrays="auto",
         device=None, ops=("rotate",), layouts=LAYOUTS, inplace=False, binary=None, timeout=None):
    """Runs `pecheck gate` on fn and returns a GateResult, whatever the verdict.

    spec: one spec or a list; dtype: f32, f64, f16 or bf16 (bf16 needs arrays="torch"); cases, seed,
    golden: the gate's --cases, --seed, --golden; args: further gate options, passed as they are.
    interface, arrays, device, ops: how fn is called (pecheck.adapter). layouts: the memory layouts
    fn's [T, H, D] inputs are handed in, each a pass of every check (pecheck.layouts; all by default).
    inplace: fn writes its outputs into its inputs (else writing an input fails). fn must be a module-level
    function: the gate's process imports it by name. GateError when the gate cannot judge."""
    specs = [spec] if isinstance(spec, str) else list(spec)
    if not specs:
        raise ValueError("pecheck.gate: name at least one spec")
    if interface not in INTERFACES or arrays not in ARRAYS:
        raise ValueError(f"pecheck.gate: interface is one of {INTERFACES} and arrays one of {ARRAYS}, not {interface!r}, {arrays!r}")
    if dtype == "bf16" and (arrays if arrays != "auto" else arrays_of(fn)) == "numpy":
        raise ValueError("pecheck.gate: dtype bf16 needs arrays='torch' (NumPy has no bfloat16)")
    layouts = [layouts] if isinstance(layouts, str) else list(layouts)
    unknown = [name for name in layouts if name not in LAYOUTS]
    if not layouts or unknown:
        raise ValueError(f"pecheck.gate: layouts are some of {LAYOUTS}, not {unknown or layouts!r}")
    impl = impl_command(fn, interface, arrays, device, ops, inplace)  # fn's own errors before the binary's
    argv = [find_binary(binary), "gate", "--impl-cmd", impl, "--dtype", dtype, "--layouts", ",".join(layouts)]
    for s in specs:
        argv += ["--spec", s]
    for flag, value in (("--cases", cases), ("--seed", seed), ("--golden", golden)):
        if value is not None:
            argv += [flag, str(value)]
    argv += [str(a) for a in args]
    with tempfile.TemporaryDirectory(prefix="pecheck-gate-") as tmp:
        report_path = os.path.join(tmp, "gate.json")
        run = subprocess.run(argv + ["--json", report_path], capture_output=True, text=True, timeout=timeout)
        if run.returncode not in (0, 1) or not os.path.isfile(report_path):
            # stderr's line for bad usage or an unusable implementation; the verdict line (the last) for
            # one that supports nothing of any spec.
            reason = run.stderr.strip() or (run.stdout.strip().splitlines() or ["no output"])[-1]
            raise GateError(f"pecheck gate exited with status {run.returncode}: {reason}")
        with open(report_path) as f:
            report = json.load(f)
    return GateResult(report=report, returncode=run.returncode, output=run.stdout, log=run.stderr, command=argv)
