"""pecheck for Python: serve a function over the gate's wire protocol, gate it, and a pytest fixture.

    import pecheck
    result = pecheck.gate(my_rope, spec="rope(dim=128)")     # my_rope(x, pos, spec) -> y, NumPy arrays
    result.passed, result.failures, result.report            # the gate's verdicts, its --json parsed

Importing pecheck loads neither NumPy nor torch (the pytest plugin loads in every pytest run):
pecheck.np_io and pecheck.torch_io, the array conversions, import them.
"""
from .adapter import serve_function
from .layouts import LAYOUTS
from .run_gate import GateError, GateResult, find_binary, gate, impl_command
from .spec import RopeSpec, rope_spec, spec_field, spec_fields
from .target import TargetError, load, target_of
from .wire import Unsupported, WireError, read_frame, serve, write_frame

__version__ = "0.1.0"
__all__ = ["LAYOUTS", "GateError", "GateResult", "RopeSpec", "TargetError", "Unsupported", "WireError", "find_binary", "gate", "impl_command",
           "load", "read_frame", "rope_spec", "serve", "serve_function", "spec_field", "spec_fields", "target_of", "write_frame"]
