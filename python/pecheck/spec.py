"""The fields of the canonical spec text the gate sends ("rope(dim=128, base=10000, ...)")."""
from __future__ import annotations

import dataclasses
import re


def spec_field(spec, key):
    """The text after key= in a canonical spec, or None (a top-level or nested field alike)."""
    m = re.search(r"(?:^|[( ])" + re.escape(key) + r"=([^,()]+)", spec)
    return m.group(1) if m else None


def spec_fields(text):
    """{key: value text} of a canonical spec's own fields; nested specs and lists stay whole."""
    inner = text[text.index("(") + 1:text.rindex(")")]
    fields, depth, start = {}, 0, 0
    for i, c in enumerate(inner + ","):
        depth += (c in "([") - (c in ")]")
        if c == "," and depth == 0:
            key, _, value = inner[start:i].strip().partition("=")
            if key:
                fields[key] = value
            start = i + 1
    return fields


@dataclasses.dataclass(frozen=True)
class RopeSpec:
    """A rope(...) spec: scaling and freqs are their canonical text, or None; fields has every field's text."""
    text: str
    dim: int
    base: float
    rotary_dim: int
    layout: str
    truncate_low: float
    scaling: str | None
    freqs: str | None
    fields: dict


def rope_spec(text):
    """The RopeSpec of canonical rope(...) text."""
    f = spec_fields(text)
    return RopeSpec(text=text, dim=int(f["dim"]), base=float(f["base"]), rotary_dim=int(f["rotary_dim"]), layout=f["layout"],
                    truncate_low=float(f.get("truncate_low", 0)), scaling=f.get("scaling"), freqs=f.get("freqs"), fields=f)
