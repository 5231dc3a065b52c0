"""An example pytest suite gating RoPE functions with the `pecheck` fixture (`pip install ./python`
registers it). test_rope passes; test_rope_layout_swapped fails on purpose, to show what a failure
prints: each failing check, its smallest counterexample and the command that reproduces it.

    PECHECK=build/pecheck python3 -m pytest examples/python/pytest_example
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # examples/python
import numpy_rope  # noqa: E402  (HF's binary32 RoPE in NumPy)


def rope(x, pos, spec):
    """x [T, H, D] float32 rotated at positions pos [T]: the function under test, fn(x, pos, spec) -> y."""
    return numpy_rope.rope("rotate", spec.text, {"x": x, "pos": pos})["y"]


def rope_layout_swapped(x, pos, spec):
    """A bug: GPT-J's pairs (2i, 2i + 1) where the spec asks for NeoX's (i, i + r/2)."""
    swapped = spec.text.replace("layout=neox", "layout=gptj")
    return numpy_rope.rope("rotate", swapped, {"x": x, "pos": pos})["y"]


def test_rope(pecheck):
    pecheck.gate(rope, spec=["rope(dim=128)", "rope(dim=96, rotary_dim=24)"])


def test_rope_layout_swapped(pecheck):
    # Wrong pairs are wrong in every memory layout: contiguous inputs alone show it once.
    pecheck.gate(rope_layout_swapped, spec="rope(dim=64)", layouts=["contiguous"])
