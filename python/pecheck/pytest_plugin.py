"""The pytest plugin (entry point pytest11): the `pecheck` fixture, whose gate() fails the test on a FAIL.

    def test_my_rope(pecheck):
        pecheck.gate(my_rope, spec="rope(dim=128)")

The failure message lists each failing check with the gate's counterexample and reproduce line.
"""
import pytest

from .run_gate import gate


class Fixture:
    """The `pecheck` fixture: gate() as pecheck.gate, failing the test unless the gate passes."""

    def gate(self, fn, spec, dtype="f32", **options):
        """pecheck.gate(fn, spec, dtype, **options); pytest.fail with the failures, else the GateResult."""
        result = gate(fn, spec, dtype, **options)
        if not result.passed:
            pytest.fail(result.failure_text(), pytrace=False)
        return result


@pytest.fixture
def pecheck():
    """Gates Python functions with pecheck: pecheck.gate(fn, spec=...) fails the test on a FAIL."""
    return Fixture()
