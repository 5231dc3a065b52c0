#!/usr/bin/python3
"""Exact constants through pecheck eval: seed 004's trace (theta = pi/4, q = [1, 0] at position 3,
so R_3 q = (cos 3pi/4, sin 3pi/4) = (-sqrt(2)/2, sqrt(2)/2)) to 70+ correct digits at 256 bits, where
the binary64 frequency nearest pi/4 gives 16; binary64 outputs that are the correct rounding of the
exact values; the spec printed with its expression; grammar errors as one line, exit 2.

Usage: exact_constants.py PECHECK"""
import json
import subprocess
import sys

import mpmath

pecheck = sys.argv[1]
failures = []
mpmath.mp.prec = 1000
HALF_SQRT2 = mpmath.sqrt(2) / 2


def run(*args):
    r = subprocess.run([pecheck, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def check(what, ok, detail=""):
    if not ok:
        failures.append(f"{what}: {detail}")


def correct_digits(text, exact):
    """Significant decimal digits of text that agree with exact: floor(-log10(relative error))."""
    error = abs(mpmath.mpf(text) - exact) / abs(exact)
    return 1000 if error == 0 else int(mpmath.floor(-mpmath.log10(error)))


def rotate(spec, precision):
    code, out, err = run("eval", "rotate", spec, "--positions", "3", "--x", "1,0", "--precision", str(precision), "--format", "json")
    if code != 0:
        failures.append(f"eval rotate {spec}: exit {code}: {err.strip()}")
        return None
    return json.loads(out)


# Seed 004 at 256 bits: 256 bits hold 77 significant digits (2^-256 relative is 1.2e-77), and the
# reference rounds once at 256 bits, so -sqrt(2)/2 and sqrt(2)/2 agree to at least 76 digits; the
# binary64 frequency nearest pi/4 (2.2e-17 away from it) gives 16 (mpmath).
exact = rotate("rope(dim=2, freqs=[pi/4])", 256)
if exact:
    check("spec text keeps the expression", exact["spec"] == "rope(dim=2, base=10000, rotary_dim=2, layout=neox, freqs=[pi/4], truncate_low=0)", exact["spec"])
    y0, y1 = exact["outputs"]["y"]["data"]
    d0, d1 = correct_digits(y0, -HALF_SQRT2), correct_digits(y1, HALF_SQRT2)
    print(f"freqs=[pi/4] at 256 bits: y0 = {y0} ({d0} correct digits), y1 = {y1} ({d1} correct digits)")
    check("seed 004: cos(3 pi/4) to 76+ digits", d0 >= 76, f"{d0} digits: {y0}")
    check("seed 004: sin(3 pi/4) to 76+ digits", d1 >= 76, f"{d1} digits: {y1}")
rounded = rotate("rope(dim=2, freqs=[0.7853981633974483])", 256)
if rounded:
    d0 = correct_digits(rounded["outputs"]["y"]["data"][0], -HALF_SQRT2)
    print(f"freqs=[0.7853981633974483] at 256 bits: {d0} correct digits of -sqrt(2)/2")
    check("the rounded frequency is 16 digits from -sqrt(2)/2", d0 == 16, f"{d0} digits")

# binary64: outputs are the correct rounding of the exact values (mpmath's float() of them).
b64 = rotate("rope(dim=2, freqs=[pi/4])", 53)
if b64:
    y = [float(v) for v in b64["outputs"]["y"]["data"]]
    check("binary64 rotate is RN(-sqrt(2)/2), RN(sqrt(2)/2)", y == [float(-HALF_SQRT2), float(HALF_SQRT2)], str(y))
code, out, err = run("eval", "inv_freq", "rope(dim=4, freqs=[3/(2*pi), 1/3])", "--format", "json")
if code == 0:
    inv = [float(v) for v in json.loads(out)["outputs"]["inv_freq"]["data"]]
    want = [float(3 / (2 * mpmath.pi)), float(mpmath.mpf(1) / 3)]
    check("binary64 inv_freq is the correct rounding", inv == want, f"{inv} != {want}")
else:
    failures.append(f"eval inv_freq: exit {code}: {err.strip()}")

# Refusals: one line naming the parameter and the place, exit 2, nothing on stdout.
for spec, message in [
    ("rope(dim=2, freqs=[pi/])", "rope: freqs[0]: 'pi/' ends after '/'"),
    ("rope(dim=4, base=2*tau)", "rope: base: '2*tau' has the unknown name 'tau' at column 3 (the one constant is pi)"),
    ("rope(dim=4, base=1/(1-1))", "rope: base: '1/(1-1)' divides by zero at column 2"),
    ("rope(dim=4, base=-pi)", "rope: base=-pi must be > 1"),
]:
    code, out, err = run("eval", "inv_freq", spec)
    check(f"{spec} exits 2", code == 2, f"exit {code}")
    check(f"{spec} prints nothing", out == "", out)
    lines = err.strip().splitlines()
    check(f"{spec} is one line naming the place", len(lines) == 1 and message in lines[0], err)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("exact constants: all checks passed")
