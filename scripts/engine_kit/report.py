"""The conformance report of scripts/engines: report.md (the tables) and report.html (the same
tables with each audit's error-against-position figure), written whole or not at all."""
import dataclasses
import datetime
import html
import os
import pathlib
import re
import subprocess
import tempfile


@dataclasses.dataclass
class Row:
    name: str          # unique among the rows: the figure's anchor
    release: object
    model: str
    spec: str
    dtype: str
    gate: object       # runs.GateResult
    audit: object      # runs.AuditResult, or None where nothing was computed
    declined: str      # why the engine cannot compute it, or ""
    older_baseline: str
    baseline: pathlib.Path


@dataclasses.dataclass
class Bug:
    release: object
    name: str
    model: str
    spec: str
    gate: object
    best: str
    expected: str
    sentence: str


def short_spec(spec):
    """The spec with each list of more than 4 numbers written as its length."""
    return re.sub(r"\[([^\]]*)\]", lambda m: m.group(0) if m.group(1).count(",") < 4 else f"[{m.group(1).count(',') + 1} values]", spec)


def position(p):
    """A first position over a threshold; the audit writes -1 where none is."""
    return "never" if p is None or p < 0 else str(p)


def verdict_text(row):
    if row.declined and row.gate.verdict == "NOTHING SUPPORTED":
        return f"unsupported ({row.declined})"
    return row.gate.verdict


def baseline_change(row):
    """What changed against the older release's baseline: verdict changes and the largest growth."""
    if not row.older_baseline:
        return ""
    def checks(text):
        out = {}
        for line in text.splitlines():
            parts = line.split(" ", 4)
            if len(parts) == 5 and parts[0] == "check":
                out[(parts[3], parts[4])] = (parts[1], float(parts[2]))
        return out
    old, new = checks(row.older_baseline), checks(row.baseline.read_text()) if row.baseline.exists() else {}
    changed = [f"{name} {old[(name, s)][0]} -> {new[(name, s)][0]}" for name, s in sorted(new) if (name, s) in old and old[(name, s)][0] != new[(name, s)][0]]
    # Worst fractions of checks judged both times that moved by more than 5 % (the largest move).
    moved = [(new[k][1] / old[k][1], k[0]) for k in new if k in old and old[k][1] > 0 and new[k][0] == old[k][0] == "PASS"
             and abs(new[k][1] / old[k][1] - 1) > 0.05]
    text = "; ".join(changed[:3] + ([f"{len(changed) - 3} more verdicts"] if len(changed) > 3 else []))
    if moved:
        ratio, name = max(moved, key=lambda m: abs(m[0] - 1))
        text += ("; " if text else "") + f"{len(moved)} checks' worst/bound moved, most x{ratio:.2f} ({name})"
    regression = "regression" in row.gate.baseline and "no regression" not in row.gate.baseline
    return ("REGRESSION: " if regression else "") + (text or "unchanged")


def table(rows):
    lines = ["| model | spec | dtype | verdict | worst/bound | max ulps | RMS ulps | first p over 1 / 10 / 100 ulps | against the older release |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        a = r.audit
        figures = f" ([figure](report.html#{r.name}))" if r.release.figures and a else ""
        lines.append(f"| {r.model} | `{short_spec(r.spec)}` | {r.dtype} | {verdict_text(r)}{figures} | "
                     + (f"{r.gate.worst_fraction:.3g}" if r.gate.checks else "-") + " | "
                     + (f"{a.max_ulps:.3g} | {a.rms_ulps:.3g} | {' / '.join(position(a.first_over.get(n)) for n in ('1', '10', '100'))}" if a else "- | - | -")
                     + f" | {baseline_change(r) or '-'} |")
    return lines


def markdown(releases, rows, bugs, problems, plan, date):
    out = ["# Real engines under pecheck's gate", "",
           f"Written by `scripts/engines` on {date}: each engine release below is fetched from the npm registry at its pinned",
           "version, its tarball checked against the pinned sha512 before it is unpacked, and driven through an adapter in",
           "`examples/engines/` that calls the engine's own RoPE the way its model code does. Each spec a real model's",
           "`config.json` gives (`pecheck spec from-hf tests/convert/hf/<model>.json`), and for llama.cpp also each other spec",
           "its GGUF metadata gives (`pecheck spec from-gguf`, files written by `tests/convert/gguf/make_gguf.py`), is gated",
           "(`pecheck gate --golden-scope spec`, positions up to the engine's largest: conformance, the laws, the spec's golden",
           "files, determinism) and audited at",
           f"{plan.AUDIT_POSITIONS} log-spaced positions from 0 to the engine's largest (`pecheck audit`). Regenerate with `scripts/engines`;",
           "it exits 1 where a result differs from the expectations in `scripts/engine_kit/plan.py`.", "",
           "## The packages", "",
           "| engine | release | npm package | sha512 (npm's integrity) | libraries the adapter links |", "|---|---|---|---|---|"]
    for r in releases:
        out.append(f"| {r.engine} | {r.label} | `{r.package.npm}@{r.package.version}` | `{r.package.integrity}` | "
                   + ", ".join(f"`{name}`" for name in r.libraries) + " |")
    out += ["", "## Verdicts", "",
            "worst/bound: the largest worst error of the gate's checks as a fraction of its bound (1 fails). max and RMS ulps:",
            "the audit's error in units in the last place of the I/O dtype at the output's scale. first p over N ulps: the",
            "first position where an element's error passes N ulps. Against the older release: the gate run with",
            "`--baseline` of the older release's run (a check that regresses fails it), with what changed.", ""]
    for release in releases:
        mine = [r for r in rows if r.release is release]
        names = sorted({r.gate.implementation for r in mine})
        out += [f"### {release.engine}: {release.label}", "", f"Adapter: `{release.adapter}`. It named itself "
                + ", ".join(f"\"{n}\"" for n in names) + ".", ""]
        out += [f"- {note}" for note in release.notes] + ([""] if release.notes else [])
        out += table(mine) + [""]
    out += ["## Injected bugs", "",
            "The adapter built with each bug class (`-DINJECT=n`), gated at "
            f"{plan.BUG_DTYPE} and diagnosed (`pecheck diagnose`): each must FAIL and be named.", "",
            "| release | bug | model | gate | diagnose names | expected | diagnosis |", "|---|---|---|---|---|---|---|"]
    for b in bugs:
        out.append(f"| {b.release.key} | {b.name} | {b.model} | {b.gate.verdict} | `{b.best}` | `{b.expected}` | {b.sentence} |")
    out += ["", "## Results that differ from their expectation", ""]
    out += [f"- {p}" for p in problems] or ["None: every correct configuration passed, every declined one was refused by the engine's",
                                            "adapter as unsupported, and every injected bug failed and was named."]
    return "\n".join(out) + "\n"


def inline(text):
    """A line of the report's markdown as HTML: code spans and links."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]*)`", r"<code>\1</code>", text)
    return re.sub(r"\[([^\]]*)\]\(([^)]*)\)", lambda m: f"<a href='{m.group(2).replace('report.html', '')}'>{m.group(1)}</a>", text)


def markdown_to_html(text):
    """The report's own markdown (headings, tables, paragraphs and lists) as HTML."""
    out, in_table = [], False
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= {"-"} for c in cells):
                continue
            out.append(("<table>" if not in_table else "") + "<tr>" + "".join(f"<td>{inline(c)}</td>" for c in cells) + "</tr>")
            in_table = True
            continue
        if in_table:
            out.append("</table>")
            in_table = False
        heading = re.match(r"(#+) (.*)", line)
        if heading:
            out.append(f"<h{len(heading.group(1))}>{inline(heading.group(2))}</h{len(heading.group(1))}>")
        elif line.startswith("- "):
            out.append(f"<li>{inline(line[2:])}</li>")
        elif line:
            out.append(f"<p>{inline(line)}</p>")
    return "\n".join(out + (["</table>"] if in_table else []))


def page(markdown_text, rows):
    """report.html: the report, then each audited row's figure of its error against position."""
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>pecheck: real engines</title>",
             "<style>body{font-family:sans-serif;max-width:1200px;margin:auto;font-size:13px}"
             "td{border:1px solid #ccc;padding:2px 4px}table{border-collapse:collapse}</style></head><body>",
             markdown_to_html(markdown_text), "<h2>Error against position</h2>"]
    for r in rows:
        if not r.release.figures or not r.audit or not r.audit.html.exists():
            continue
        figure = re.search(r"<svg.*?</svg>", r.audit.html.read_text(), re.S)
        if figure:
            parts.append(f"<h3 id='{r.name}'>{html.escape(r.release.label)}: {html.escape(r.model)}, {r.dtype}</h3>"
                         f"<p><code>{html.escape(short_spec(r.spec))}</code></p>{figure.group(0)}")
    parts.append("</body></html>")
    return "".join(parts)


def write_whole(path, text):
    """path replaced in one step: a reader sees the old file or the new one."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".part") as f:
        f.write(text)
    os.chmod(f.name, 0o644)
    os.replace(f.name, path)


def write(out, releases, rows, bugs, problems, plan):
    out.mkdir(parents=True, exist_ok=True)
    date = datetime.date.today().isoformat()
    text = markdown(releases, rows, bugs, problems, plan, date)
    write_whole(out / "report.md", text)
    write_whole(out / "report.html", page(text, rows))
