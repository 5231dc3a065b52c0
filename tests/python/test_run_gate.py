"""pecheck.gate: finding the binary, the command it runs, and the verdicts of the real gate (PECHECK)."""
import json
import os
import shlex
import subprocess
import sys

import pytest

import pecheck
import rope_functions
from pecheck import GateError, TargetError, gate
from pecheck.pytest_plugin import Fixture

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "python")
REPORT = {"format": "pecheck-gate/1", "implementation": "fake", "dtype": "f16", "working": "f32", "tolerance": "standard",
          "checks": [{"check": "conformance.rotate", "spec": "rope(dim=2)", "result": "PASS"}], "notes": []}


def fake_binary(directory, status=0, stderr=""):
    """A `pecheck` that records its argv in argv.json, writes REPORT to --json's file and exits with status."""
    path = os.path.join(directory, "pecheck")
    with open(path, "w") as f:
        f.write(f"""#!{sys.executable}
import json, sys
json.dump(sys.argv[1:], open({os.path.join(directory, 'argv.json')!r}, "w"))
sys.stderr.write({stderr!r})
if {status} != 2:
    json.dump({REPORT!r}, open(sys.argv[sys.argv.index("--json") + 1], "w"))
sys.exit({status})
""")
    os.chmod(path, 0o755)
    return path


def test_a_missing_binary_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PECHECK", str(tmp_path / "nope"))
    with pytest.raises(GateError, match=r"^PECHECK=.*/nope: no such file$"):
        gate(rope_functions.rope, spec="rope(dim=2)")
    monkeypatch.delenv("PECHECK")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GateError, match=r"^pecheck not found: set PECHECK to the binary's path, or put pecheck on PATH$"):
        gate(rope_functions.rope, spec="rope(dim=2)")


def test_the_binary_is_found_on_path_and_given_every_option(monkeypatch, tmp_path):
    fake_binary(str(tmp_path))
    monkeypatch.delenv("PECHECK", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    result = gate(rope_functions.rope, spec=["rope(dim=2)", "rope(dim=4)"], dtype="f16", cases=7, seed=3, golden="g", args=["--tolerance", "loose"])
    assert (result.passed, result.report, result.failures) == (True, REPORT, [])
    argv = json.load(open(tmp_path / "argv.json"))
    impl = argv[2]
    assert argv[:2] == ["gate", "--impl-cmd"] and argv[3:-1] == ["--dtype", "f16", "--layouts", "contiguous,padded_heads,transposed,packed_qkv",
                                                                 "--spec", "rope(dim=2)", "--spec", "rope(dim=4)", "--cases", "7",
                                                                 "--seed", "3", "--golden", "g", "--tolerance", "loose", "--json"]
    assert shlex.split(impl) == [sys.executable, "-m", "pecheck", "--path", HERE, "rope_functions:rope"]


def test_status_2_is_an_error_carrying_the_gates_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PECHECK", fake_binary(str(tmp_path), status=2, stderr="pecheck: bad spec 'x'\n"))
    with pytest.raises(GateError, match=r"^pecheck gate exited with status 2: pecheck: bad spec 'x'$"):
        gate(rope_functions.rope, spec="x")


def test_what_cannot_run_is_refused_before_the_gate(monkeypatch):
    monkeypatch.setenv("PECHECK", "/no/such/pecheck")  # the errors below come first
    with pytest.raises(ValueError, match="dtype bf16 needs arrays='torch'"):
        gate(rope_functions.rope, spec="rope(dim=2)", dtype="bf16")
    with pytest.raises(TargetError, match="is a lambda"):
        gate(lambda x, pos, spec: x, spec="rope(dim=2)")
    with pytest.raises(ValueError, match=r"layouts are some of .*, not \['diagonal'\]"):
        gate(rope_functions.rope, spec="rope(dim=2)", layouts=["contiguous", "diagonal"])


def real_gate(fn, spec="rope(dim=32)", layouts=("contiguous",), **options):
    """The gate of this build (PECHECK, set by ctest) on fn, without golden files and in one layout
    unless asked for more: seconds, not minutes."""
    assert os.path.isfile(os.environ.get("PECHECK", "")), "PECHECK must name the pecheck binary under test"
    return gate(fn, spec=spec, args=["--golden-scope", "none"], layouts=layouts, **options)


def verdicts(result):
    return {c["check"]: c["result"] for c in result.checks}


def test_a_correct_rope_passes():
    result = real_gate(rope_functions.rope, cases=30)
    assert result.passed and result.failures == []
    assert verdicts(result)["conformance.rotate"] == "PASS" and verdicts(result)["rope.norm_preservation"] == "PASS"
    assert result.report["implementation"].startswith("rope_functions:rope (NumPy ")


def test_a_wrong_rope_fails_with_its_counterexample_and_a_reproduce_line_that_reproduces():
    result = real_gate(rope_functions.rope_sign_flipped)
    assert not result.passed and verdicts(result)["conformance.rotate"] == "FAIL"
    rotate = next(c for c in result.failures if c["check"] == "conformance.rotate")
    assert "minimal case:" in rotate["detail"] and rotate["reproduce"].startswith("pecheck gate --impl-cmd ")
    text = result.failure_text()
    assert "FAIL conformance.rotate  rope(dim=32, " in text and "    reproduce: " + rotate["reproduce"] in text
    again = subprocess.run(os.environ["PECHECK"] + rotate["reproduce"][len("pecheck"):] + " --golden-scope none", shell=True, capture_output=True, text=True)
    assert again.returncode == 1 and any(line.startswith("FAIL        conformance.rotate") for line in again.stdout.splitlines()), again


def test_every_layout_is_a_pass_of_every_check():
    result = real_gate(rope_functions.rope, cases=10, layouts=pecheck.LAYOUTS)
    assert result.passed and result.report["layouts"] == list(pecheck.LAYOUTS)
    rotate = [c["layout"] for c in result.checks if c["check"] == "conformance.rotate"]
    assert rotate == list(pecheck.LAYOUTS) and all(c["result"] == "PASS" for c in result.checks if c["check"] == "conformance.rotate")
    assert "[layout transposed]" in result.output


def test_a_kernel_that_reads_its_input_as_contiguous_fails_in_every_other_layout():
    result = real_gate(rope_functions.rope_assumes_contiguous, cases=10, layouts=pecheck.LAYOUTS)
    rotate = {c["layout"]: c["result"] for c in result.checks if c["check"] == "conformance.rotate"}
    assert rotate == {"contiguous": "PASS", "padded_heads": "FAIL", "transposed": "FAIL", "packed_qkv": "FAIL"}, rotate
    failing = next(c for c in result.failures if c["layout"] == "transposed")
    assert "--layouts transposed" in failing["reproduce"] and "FAIL conformance.rotate  rope(dim=32, " in result.failure_text()
    assert "[layout transposed]" in result.failure_text()


def test_a_kernel_that_writes_its_input_fails_unless_declared_in_place():
    result = real_gate(rope_functions.rope_in_place, cases=10)
    detail = next(c["detail"] for c in result.failures if c["check"] == "conformance.rotate")
    assert detail.startswith("error: wrote into its input x: x["), detail
    assert "inplace=True" in detail
    declared = real_gate(rope_functions.rope_in_place, cases=10, layouts=pecheck.LAYOUTS, inplace=True)
    assert declared.passed, declared.failure_text()
    assert declared.report["implementation"].endswith(", in place)")
    # In place, the output is read from x: a kernel that writes nothing there fails.
    nothing = real_gate(rope_functions.rope, cases=10, inplace=True)
    assert "conformance.rotate" in [c["check"] for c in nothing.failures]


def test_declining_every_position_past_0_is_incomplete_not_a_pass():
    result = real_gate(rope_functions.rope_position_0_only, cases=20)
    assert not result.passed and result.failures == [] and result.report["verdict"] == "INCOMPLETE"
    rotate = next(c for c in result.incomplete if c["check"] == "conformance.rotate")
    assert "never answered: positions in [1, 2^8]" in rotate["detail"], rotate
    text = result.failure_text()
    assert text.startswith("pecheck gate: INCOMPLETE, 0 of ") and "INCOMPLETE conformance.rotate  rope(dim=32, " in text, text


def test_a_wrong_dtype_is_the_calls_error():
    result = real_gate(rope_functions.rope_float64, cases=5)
    detail = next(c["detail"] for c in result.failures if c["check"] == "conformance.rotate")
    assert detail.startswith("error: BadOutput: rope_functions:rope_float64 returned float64 [")


def test_the_ops_interface_serves_every_op():
    sys.path.insert(0, EXAMPLES)
    import numpy_rope

    result = real_gate(numpy_rope.rope, interface="ops", ops=("rotate", "inv_freq", "attend"), cases=20)
    assert result.passed
    assert {verdicts(result)[op] for op in ("conformance.rotate", "conformance.inv_freq", "conformance.attend")} == {"PASS"}


def test_torch_at_bf16():
    pytest.importorskip("torch")
    sys.path.insert(0, EXAMPLES)
    import hf_style_rope

    result = real_gate(hf_style_rope.rope, dtype="bf16", arrays="torch", device="cpu", cases=20)
    assert result.passed and verdicts(result)["conformance.rotate"] == "PASS"
    assert "PyTorch" in result.report["implementation"] and result.report["dtype"] == "bf16"


def test_a_torch_function_is_served_torch_arrays_without_asking():
    """The default arrays="auto" reads fn's module: HF-style code imports torch, so it gets tensors
    (NumPy arrays made each of its calls an AttributeError); a NumPy module gets NumPy arrays."""
    pytest.importorskip("torch")
    sys.path.insert(0, EXAMPLES)
    import hf_style_rope

    from pecheck.adapter import arrays_of

    assert arrays_of(hf_style_rope.rope) == "torch"
    assert arrays_of(rope_functions.rope) == "numpy"
    result = real_gate(hf_style_rope.rope, device="cpu", cases=20)
    assert result.passed, result.failure_text()
    assert "PyTorch" in result.report["implementation"]
    # Said outright, NumPy still wins: the user's word is kept.
    numpy_served = real_gate(rope_functions.rope, arrays="numpy", cases=5)
    assert numpy_served.passed and "NumPy" in numpy_served.report["implementation"]


def test_a_bad_spec_is_a_gate_error():
    with pytest.raises(GateError, match=r"^pecheck gate exited with status 2: pecheck: bad spec 'rope\(dim=3': "):
        real_gate(rope_functions.rope, spec="rope(dim=3")


def test_the_fixture_fails_the_test_with_the_failures_and_passes_the_result_on():
    with pytest.raises(pytest.fail.Exception) as failed:
        Fixture().gate(rope_functions.rope_sign_flipped, spec="rope(dim=32)", args=["--golden-scope", "none"])
    assert "FAIL conformance.rotate" in str(failed.value) and "reproduce: pecheck gate --impl-cmd" in str(failed.value)
    assert Fixture().gate(rope_functions.rope, spec="rope(dim=32)", cases=10, args=["--golden-scope", "none"]).passed


def test_the_source_trees_package_serves_without_being_installed():
    """The system's interpreter (no venv, no user site), pecheck imported from python/: the gate's
    process finds it through the PYTHONPATH the command sets."""
    source = os.path.abspath(os.path.join(HERE, "..", "..", "python"))
    code = (f"import sys; sys.path[:0] = [{source!r}, {HERE!r}]; import pecheck, rope_functions; "
            "r = pecheck.gate(rope_functions.rope, spec='rope(dim=8)', cases=5, args=['--golden-scope', 'none']); "
            "print(r.passed, pecheck.__file__, r.command[3])")
    python = os.path.join(sys.base_prefix, "bin", "python3")
    run = subprocess.run([python, "-c", code], capture_output=True, text=True, env=dict(os.environ, PYTHONNOUSERSITE="1"))
    assert run.returncode == 0, run.stderr
    passed, package, impl = run.stdout.strip().split(" ", 2)
    assert (passed, package) == ("True", os.path.join(source, "pecheck", "__init__.py"))
    assert impl.startswith(f"PYTHONPATH={source}${{PYTHONPATH:+:$PYTHONPATH}} {python} -m pecheck ")
