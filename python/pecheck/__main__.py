"""python -m pecheck [OPTIONS] TARGET: serves a Python function as a `pecheck gate --impl-cmd` process.

    pecheck gate --impl-cmd 'python3 -m pecheck my_rope:rope' --spec 'rope(dim=128)'
    pecheck gate --impl-cmd 'python3 -m pecheck --arrays torch path/to/my_rope.py:rope' --spec 'rope(dim=128)' --dtype bf16

TARGET is MODULE:FUNCTION (imported from --path DIRs, then the current directory) or
PATH/TO/FILE.py:FUNCTION. Bad usage is one line on stderr and status 2, before hello, so the gate
stops there and shows it.
"""
import argparse
import os
import sys

from .adapter import ARRAYS, INTERFACES, serve_function
from .target import TargetError, load


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line: the gate shows the process's stderr as its reason."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def parser(prog):
    p = OneLineParser(prog=prog, description="Serves a Python function over pecheck's wire protocol.")
    p.add_argument("--interface", choices=INTERFACES, default="rope",
                   help="rope: fn(x, pos, spec) -> y (default); ops: fn(op, spec, inputs) -> outputs")
    p.add_argument("--arrays", choices=ARRAYS, default="auto",
                   help="the arrays fn takes and returns (default auto: torch where fn's module imports torch, else numpy)")
    p.add_argument("--device", choices=("cpu", "cuda"), help="torch arrays' device (default: cuda when available)")
    p.add_argument("--ops", default="rotate", help="with --interface ops: the ops fn serves, comma-separated (default rotate)")
    p.add_argument("--inplace", action="store_true",
                   help="fn writes its [T, H, D] outputs into its [T, H, D] inputs (rotate's y into x), read from there")
    p.add_argument("--path", action="append", default=[], metavar="DIR", help="a directory to import TARGET's module from (repeatable)")
    p.add_argument("--name", help="the name the gate reports (default: TARGET)")
    p.add_argument("target", metavar="TARGET", help="MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION")
    return p


def main(argv=None, prog="python -m pecheck", defaults=None):
    """Parses argv (defaults: option values a wrapper script fixes), loads TARGET and serves it."""
    p = parser(prog)
    p.set_defaults(**(defaults or {}))
    args = p.parse_args(argv)
    # A script's sys.path starts at its own directory, not the caller's: add the caller's after --path.
    sys.path[:0] = [os.path.abspath(d) for d in args.path] + ([] if os.getcwd() in sys.path else [os.getcwd()])
    try:
        fn = load(args.target)
        label = args.name or os.path.basename(args.target)
        serve_function(fn, interface=args.interface, arrays=args.arrays, device=args.device, label=label,
                       ops=[op for op in args.ops.split(",") if op], inplace=args.inplace)
    except (TargetError, ValueError, ImportError) as e:
        p.exit(2, f"{prog}: {e}\n")


if __name__ == "__main__":
    main()
