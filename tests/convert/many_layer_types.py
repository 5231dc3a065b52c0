#!/usr/bin/env python3
"""spec from-hf on a config that gives each of 10^5 layers a type and rope parameters of its own: one entry per layer, in order.

    many_layer_types.py PECHECK DIR

The readers once grouped layers, merged equal specs and looked for repeating patterns by scanning
everything found so far (16,000 layers took 231 s); nlohmann's callback parser did the same for
each object's end. The ctest time limit catches a return of that (10^5 layers would take hours);
the test itself checks what is printed."""
import json
import os
import subprocess
import sys

N = 100_000
pecheck, directory = sys.argv[1], sys.argv[2]
os.makedirs(directory, exist_ok=True)
config = os.path.join(directory, "many_layer_types.json")
with open(config, "w") as f:
    json.dump({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": N,
               "layer_types": [f"t{i}" for i in range(N)],
               "rope_parameters": {f"t{i}": {"rope_type": "default", "rope_theta": 10000 + i} for i in range(N)}}, f)
run = subprocess.run([pecheck, "--limit", f"layers={N}", "spec", "from-hf", config, "--format", "json"], capture_output=True, text=True)
problems = []
if run.returncode != 0:
    problems.append(f"exit status {run.returncode}: {run.stderr.strip()[:300]}")
else:
    entries = json.loads(run.stdout)
    if len(entries) != N:
        problems.append(f"{len(entries)} entries, expected {N}")
    for i, e in enumerate(entries):
        if e["layers"] != [i] or e["spec"]["base"] != 10000 + i:
            problems.append(f"entry {i}: layers {e['layers']}, spec {e['spec']}")
            break
# Over the default --limit layers (4096) the same config is refused in one line.
refused = subprocess.run([pecheck, "spec", "from-hf", config], capture_output=True, text=True)
if refused.returncode != 2 or "over the limit layers=4096" not in refused.stderr:
    problems.append(f"default limit: exit {refused.returncode}, {refused.stderr.strip()[:200]}")
os.remove(config)
print("\n".join(problems) if problems else f"{N} layers, one entry each")
sys.exit(1 if problems else 0)
