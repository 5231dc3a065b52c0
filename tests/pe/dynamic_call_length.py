#!/usr/bin/env python3
"""Dynamic NTK at position 2^63 - 1 reads the call length 2^63 exactly (max(pos) + 1, which int64
cannot hold): pecheck's 256-bit rotation against mpmath's at 600 bits. Usage: dynamic_call_length.py PECHECK

Formula (HF dynamic NTK, pe/schemes/rope.hpp): base' = base * (f * L / original_max - (f - 1))^(r / (r - 2)),
theta_i = p * base'^(-2i/r). The angle is about 9.2e18 rad, so a length off by one (2^63 - 1, the
old saturation) moves theta_1 by p * d(omega)/dL ~ 1 rad, and the check fails in the first digits."""
import json
import subprocess
import sys

import mpmath

mpmath.mp.prec = 600  # before the outputs are read: mpf(text) rounds to the precision in force
pecheck = sys.argv[1]
p, base, factor, original, dim = 2**63 - 1, 10000, 2, 4096, 8
spec = f"rope(dim={dim}, scaling=dynamic(factor={factor}, original_max={original}))"
# x = 1 on the first of each neox pair (i, i + dim/2): y_i = cos theta_i, y_(i + dim/2) = sin theta_i.
x = ",".join(["1"] * (dim // 2) + ["0"] * (dim // 2))
out = subprocess.run([pecheck, "eval", "rotate", spec, "--positions", str(p), "--x", x, "--precision", "256", "--format", "json"],
                     capture_output=True, text=True, check=True).stdout
y = [mpmath.mpf(v) for v in json.loads(out)["outputs"]["y"]["data"]]

length = mpmath.mpf(2) ** 63
r = mpmath.mpf(dim)
scaled_base = base * (factor * length / original - (factor - 1)) ** (r / (r - 2))
worst = 0
for i in range(dim // 2):
    theta = p * scaled_base ** (-2 * mpmath.mpf(i) / r)
    for got, want in ((y[i], mpmath.cos(theta)), (y[i + dim // 2], mpmath.sin(theta))):
        worst = max(worst, abs(got - want))
# 256-bit outputs rounded once: 2^-255 relative; 1e-70 is far above that and far below any real error.
print(f"largest difference from mpmath: {mpmath.nstr(worst, 5)}")
sys.exit(0 if worst < mpmath.mpf("1e-70") else 1)
