"""Building an engine's adapter and running pecheck's gate, audit and diagnose on it, each run's
results read back from the JSON pecheck writes."""
import dataclasses
import json
import math
import pathlib
import shlex
import subprocess
import sys


class RunError(Exception):
    pass


def build_adapter(release, lib_dir, repo, out_dir, inject=0):
    """The adapter of `release` compiled against the libraries in lib_dir (inject: a bug class)."""
    out = pathlib.Path(out_dir) / release.key / (f"libadapter_bug{inject}.so" if inject else "libadapter.so")
    out.parent.mkdir(parents=True, exist_ok=True)
    command = ["cc", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", f"-I{repo / 'src/gate'}",
               str(repo / release.adapter), "-o", str(out), f"-DINJECT={inject}"]
    command += [f"-D{d}" for d in release.defines]
    # The libraries are named, not only referenced weakly: the linker would otherwise drop the loader.
    command += [f"-L{lib_dir}", "-Wl,--no-as-needed"] + [f"-l:{name}" for name in release.libraries]
    command += ["-Wl,--as-needed", f"-Wl,-rpath,{lib_dir}", "-ldl", "-lm"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RunError(f"building {release.key}'s adapter failed:\n{shlex.join(command)}\n{result.stderr.strip()}")
    return out


def write_gguf_files(repo, writer, out_dir):
    """The GGUF test files, written by the repository's writer into out_dir."""
    result = subprocess.run([sys.executable, str(repo / writer), str(out_dir)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RunError(f"{writer} {out_dir}: {result.stderr.strip()}")
    return pathlib.Path(out_dir)


def run_pecheck(command, json_path):
    """Runs a pecheck command that writes json_path; returns (its JSON, its standard output)."""
    json_path.unlink(missing_ok=True)
    result = subprocess.run(command, capture_output=True, text=True)
    if not json_path.exists():
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise RunError(f"{shlex.join(command)} exited {result.returncode} without its JSON: {' / '.join(tail)}")
    return json.loads(json_path.read_text()), result.stdout


@dataclasses.dataclass
class GateResult:
    implementation: str     # the name the implementation gave itself
    verdict: str
    worst_fraction: float   # the largest worst fraction of its bound over the run's judged checks
    checks: int             # checks judged (PASS or FAIL)
    failed: list            # "check: worst" for each FAIL
    baseline: str           # the baseline comparison's line, or ""


def gate(pecheck, adapter, spec, dtype, max_pos, work, golden_scope="spec", save_baseline=None, baseline=None):
    json_path = work.parent / (work.name + ".gate.json")
    command = [pecheck, "gate", "--impl", str(adapter), "--spec", spec, "--dtype", dtype, "--max-position", str(max_pos),
               "--golden-scope", golden_scope, "--json", str(json_path)]
    if save_baseline:
        command += ["--save-baseline", str(save_baseline)]
    if baseline:
        command += ["--baseline", str(baseline)]
    report, output = run_pecheck(command, json_path)
    judged = [c for c in report["checks"] if c["result"] in ("PASS", "FAIL")]
    failed = [f"{c['check']}: {c['worst']}" for c in judged if c["result"] == "FAIL"]
    baseline_line = next((line for line in output.splitlines() if line.startswith("baseline ")), "")
    return GateResult(report["implementation"], report["verdict"], max((c["worst_fraction_of_bound"] for c in judged), default=0.0), len(judged),
                      failed, baseline_line)


@dataclasses.dataclass
class AuditResult:
    verdict: str
    max_ulps: float
    rms_ulps: float
    first_over: dict   # {"1": position or None, "10": ..., "100": ...}
    html: pathlib.Path


def audit(pecheck, adapter, spec, dtype, op, max_pos, points, work):
    json_path, html_path = work.parent / (work.name + ".audit.json"), work.parent / (work.name + ".audit.html")
    command = [pecheck, "audit", "--impl", str(adapter), "--spec", spec, "--dtype", dtype, "--op", op,
               "--positions", f"log:0:{max_pos}:{points}", "--json", str(json_path), "--html", str(html_path)]
    profile, output = run_pecheck(command, json_path)
    buckets = profile["buckets"]
    count = sum(b["count"] for b in buckets)
    rms = math.sqrt(sum(b["count"] * b["rms_ulps"] ** 2 for b in buckets) / count) if count else 0.0
    verdict = next((line.split(":", 1)[1].strip() for line in output.splitlines() if line.startswith("audit: ")), "?")
    return AuditResult(verdict, max((b["max_ulps"] for b in buckets), default=0.0), rms, profile["first_over"], html_path)


def diagnose(pecheck, adapter, spec, dtype, op, work):
    """(the best convention's name, the sentence)."""
    json_path = work.parent / (work.name + ".diagnose.json")
    command = [pecheck, "diagnose", "--impl", str(adapter), "--spec", spec, "--dtype", dtype, "--op", op, "--json", str(json_path)]
    report, output = run_pecheck(command, json_path)
    sentence = [line for line in output.splitlines() if line.strip()][-1]
    return report.get("best", ""), sentence


def specs_of(pecheck, source, path):
    """The specs `pecheck spec from-hf` or `from-gguf` (source "hf" or "gguf") prints for path."""
    result = subprocess.run([pecheck, "spec", f"from-{source}", str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RunError(f"pecheck spec from-{source} {path}: {result.stderr.strip()}")
    specs = [line for line in result.stdout.splitlines() if line.strip() and not line.startswith("#")]
    return list(dict.fromkeys(specs))
