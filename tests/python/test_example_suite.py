"""The example pytest suite (examples/python/pytest_example) run as a user runs it, in a fresh pytest
process that finds the `pecheck` fixture through the installed entry point: the correct RoPE
passes, the layout-swapped one fails, and its failure shows the counterexample and reproduce line."""
import os
import sys

import pytest

pytest_plugins = ["pytester"]

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python", "pytest_example", "test_my_rope.py")


def test_the_package_is_the_installed_one():
    import importlib.metadata

    import pecheck
    assert pecheck.__file__.startswith(sys.prefix) and sys.prefix != sys.base_prefix, (pecheck.__file__, sys.prefix)
    assert "pecheck.pytest_plugin" in [e.value for e in importlib.metadata.entry_points(group="pytest11")]


def test_the_example_suite_passes_the_correct_rope_and_fails_the_swapped_one(pytester):
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v", os.path.abspath(EXAMPLE))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_my_rope.py::test_rope PASSED*", "*test_my_rope.py::test_rope_layout_swapped FAILED*"])
    result.stdout.fnmatch_lines([
        "pecheck gate: FAIL, * checks failed, * incomplete (test_my_rope:rope_layout_swapped (NumPy *) at f32 I/O)",
        "FAIL conformance.rotate  rope(dim=64, base=10000, rotary_dim=64, layout=neox, truncate_low=0)",
        "    out of bound: y[[]*[]] = *, exact *: error *",
        "    minimal case: *",
        "    reproduce: pecheck gate --impl-cmd '* -m pecheck --path */pytest_example test_my_rope:rope_layout_swapped' --dtype f32 *"
        "--spec 'rope(dim=64, base=10000, rotary_dim=64, layout=neox, truncate_low=0)' --seed * --cases 100",
    ])
