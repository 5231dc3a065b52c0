"""The wire-protocol server under its first name: serve(fn) now lives in the pecheck package
(python/pecheck), and this module re-exports it from this source tree for scripts that import
pecheck_serve (torch_rope.py's functions written against it, tests/mutants, tests/faults)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))  # this tree's package first
from pecheck.np_io import decode as numpy_decode, encode as numpy_encode  # noqa: E402,F401
from pecheck.spec import spec_field  # noqa: E402,F401
from pecheck.wire import Unsupported, read_frame as _read_frame, serve, write_frame as _write_frame  # noqa: E402,F401
