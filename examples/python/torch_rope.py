#!/usr/bin/python3
"""Puts a user's PyTorch RoPE function through `pecheck gate --impl-cmd` (the wire protocol):
`python -m pecheck --arrays torch` under its first name, run from this source tree.

    pecheck gate --impl-cmd '/usr/bin/python3 examples/python/torch_rope.py examples/python/hf_style_rope.py:rope' \\
        --spec 'rope(dim=128, layout=neox)' --dtype bf16

usage: torch_rope.py [--device cpu|cuda] MODULE:FUNCTION | PATH/TO/FILE.py:FUNCTION
The function is called once per case, under torch.no_grad(), as fn(x, pos, spec) -> y:
  x     a torch tensor [T, H, D] of the gate's --dtype (float32, float16 or bfloat16, never upcast)
  pos   an int64 tensor [T], the tokens' positions; both on the device
  spec  a pecheck.RopeSpec: text, dim, base, rotary_dim, layout ("neox" or "gptj"), truncate_low,
        and scaling and freqs (their canonical text, or None); fields has every field's text
y must be a tensor of x's dtype and shape, on any device; anything else is that call's error.
Raise pecheck.Unsupported (pecheck_serve.Unsupported is the same class) for a spec the function
does not handle: the gate reports it UNSUPPORTED, never FAIL. The device is cuda when
torch.cuda.is_available(), else cpu; --device or PECHECK_TORCH_DEVICE forces one. Only rope(...)
specs' rotate is served.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))  # this tree's package first
from pecheck.__main__ import main  # noqa: E402

if __name__ == "__main__":
    main(sys.argv[1:], prog="torch_rope.py", defaults={"arrays": "torch"})
