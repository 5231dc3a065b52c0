#!/usr/bin/env python3
"""Runs the example commands of README.md and the manual pages, and checks their quoted outputs.

    doc_commands_test.py --pecheck BUILD/pecheck --source ROOT [--page PATH ...]

The convention, in every page of PAGES: a fenced block opened by ```console is an example. Each
line beginning with `$ ` is a command (a line ending in ` \\` continues on the next); the lines after
it, up to the next command or the block's end, are its quoted output (stdout and stderr together):

- a line `...` alone stands for any number of output lines (none included);
- without a `...` first, the quote begins at the output's first line, and without one last, it ends
  at the output's last line; quoted lines between two `...` lines follow each other in the output;
- `...` inside a line matches any text there; lines are compared with trailing spaces trimmed;
- a last line `[exit N]` is the exit status the command must give (0 when there is none).

A command runs with bash in a fresh directory per page that holds a link to each top-level entry of
the source tree (so `examples/...`, `tests/...`, `golden/` work as in a checkout, and files a
command writes stay there), `build` linked to the directory of --pecheck, and `pecheck` on PATH as
--pecheck itself. The commands of one page run in order in that directory, so a later block may use
what an earlier one wrote. Other fences (```sh, ```python, plain ```) are never run: they hold
commands that need a GPU, the network or minutes, and code.

It fails, naming page:line, where a command exits otherwise than shown, a quoted line is not in the
output, a command runs past its time limit or prints a line containing "deprecated" (the pages use
the current option names). It also fails where a page of PAGES is missing, where README.md links a
Markdown file of the tree that is neither in PAGES nor in REPORTS, where a page of PAGES is not
linked from README.md, where a relative link of a page names no file, where an index page of
INDEXES does not link every Markdown file of its folder, and where no command ran. It prints how
many commands ran per page."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# The landing page and the manual, each page beside what it documents.
PAGES = [
    "README.md",
    "src/cli/README.md",
    "src/gate/README.md",
    "src/audit/README.md",
    "src/audit/diagnose.md",
    "src/convert/README.md",
    "src/pe/README.md",
    "src/pe/schemes/README.md",
    "properties/README.md",
    "golden/README.md",
    "proofs/README.md",
    "src/kernels/README.md",
    "python/README.md",
    "examples/cpp_consumer/README.md",
    "examples/engines/README.md",
    "tests/README.md",
]
# Markdown files README.md may link that are not manual pages: written by a script, not by hand.
REPORTS = ["examples/engines/report.md"]
# Pages that index a folder: each must link every other Markdown file there.
INDEXES = {"proofs/README.md": "proofs"}
COMMAND_TIMEOUT_S = 120

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
EXIT = re.compile(r"^\[exit (\d+)\]$")


class Example:
    def __init__(self, line, command):
        self.line = line  # 1-based line of the `$ ` in its page
        self.command = command
        self.quoted = []  # (line number, text)
        self.status = 0


def examples_of(text):
    """The commands of the page's ```console blocks, each with its quoted output and exit status."""
    found = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        i += 1
        current = None
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i].rstrip()
            if line.startswith("$ "):
                start = i + 1
                command = line[2:]
                while command.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    command = command + "\n" + lines[i].rstrip()  # bash reads the backslash-newline as one line
                current = Example(start, command)
                found.append(current)
            elif current is None:
                raise ValueError(f"line {i + 1}: a ```console block must begin with a `$ ` command")
            else:
                current.quoted.append((i + 1, line))
            i += 1
        if i == len(lines):
            raise ValueError("a ```console block is never closed")
        i += 1
    for example in found:
        if example.quoted and EXIT.match(example.quoted[-1][1]):
            example.status = int(EXIT.match(example.quoted.pop()[1]).group(1))
        for number, text in example.quoted:
            if EXIT.match(text):
                raise ValueError(f"line {number}: [exit N] must be the last line of a command's output")
    return found


def line_matches(quoted, actual):
    """quoted, with `...` matching any text, is the whole of actual (both without trailing spaces)."""
    pattern = ".*".join(re.escape(part) for part in quoted.split("..."))
    return re.fullmatch(pattern, actual, re.DOTALL) is not None


def first_mismatch(quoted, output):
    """None when the quoted lines are in the output as the convention says, else (line number, text)
    of the quoted line that is not."""
    actual = [line.rstrip() for line in output.split("\n")]
    while actual and actual[-1] == "":
        actual.pop()
    if not quoted:
        return None if not actual else (None, "(nothing quoted, yet the command printed something)")
    open_start, open_end = quoted[0][1] == "...", quoted[-1][1] == "..."
    segments, segment = [], []
    for number, text in quoted + [(None, "...")]:
        if text == "...":
            if segment:
                segments.append(segment)
            segment = []
        else:
            segment.append((number, text))
    position = 0
    for k, seg in enumerate(segments):
        first, last = k == 0 and not open_start, k == len(segments) - 1 and not open_end
        if last:
            starts = [len(actual) - len(seg)]
        elif first:
            starts = [0]
        else:
            starts = range(position, len(actual) - len(seg) + 1)
        chosen = None
        for s in starts:
            if s < position or s + len(seg) > len(actual) or (first and s != 0):
                continue
            if all(line_matches(text, actual[s + j]) for j, (_, text) in enumerate(seg)):
                chosen = s
                break
        if chosen is None:
            for number, text in seg:  # the first quoted line found nowhere after the last match
                if not any(line_matches(text, a) for a in actual[position:]):
                    return (number, text)
            where = "at the output's start" if first else "at the output's end" if last else "in that order"
            return (seg[0][0], seg[0][1] + f"  (its lines are in the output, but not together {where})")
        position = chosen + len(seg)
    return None


def local_links(text):
    """Relative link targets of a Markdown text, without their #anchors."""
    targets = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        targets.append(target.split("#")[0])
    return targets


def make_workdir(source, pecheck):
    """A fresh directory that looks like a checkout with its build."""
    work = tempfile.mkdtemp(prefix="pecheck-doc-")
    build = os.path.dirname(os.path.abspath(pecheck))
    for name in sorted(os.listdir(source)):
        if name.startswith(".") or name == "build" or os.path.realpath(os.path.join(source, name)) == build:
            continue
        os.symlink(os.path.join(source, name), os.path.join(work, name))
    os.symlink(build, os.path.join(work, "build"))
    return work


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pecheck", required=True, help="the built pecheck binary")
    parser.add_argument("--source", required=True, help="the source tree's root")
    parser.add_argument("--page", action="append", help="run only these pages of PAGES (the link checks still run)")
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    pecheck = os.path.abspath(args.pecheck)
    failures = []

    # The pages, and the links between them.
    texts = {}
    for page in PAGES:
        path = os.path.join(source, page)
        if not os.path.isfile(path):
            failures.append(f"{page}: missing (listed in PAGES)")
            continue
        with open(path, encoding="utf-8") as f:
            texts[page] = f.read()
    for page, text in texts.items():
        base = os.path.dirname(os.path.join(source, page))
        for target in local_links(text):
            resolved = os.path.normpath(os.path.join(base, target))
            if not os.path.exists(resolved):
                failures.append(f"{page}: the link {target} names no file")
                continue
            if page == "README.md" and target.endswith(".md"):
                rel = os.path.relpath(resolved, source)
                if rel not in PAGES and rel not in REPORTS:
                    failures.append(f"README.md: links {rel}, a Markdown file that is not in PAGES")
    for page, folder in INDEXES.items():
        if page in texts:
            linked = {os.path.normpath(os.path.join(os.path.dirname(page), t)) for t in local_links(texts[page])}
            for name in sorted(os.listdir(os.path.join(source, folder))):
                path = os.path.join(folder, name)
                if name.endswith(".md") and path != page and path not in linked:
                    failures.append(f"{page}: does not link {path}")
    if "README.md" in texts:
        linked = {os.path.normpath(t) for t in local_links(texts["README.md"])}
        for page in PAGES[1:]:
            if page not in linked:
                failures.append(f"README.md: does not link the manual page {page}")

    # The examples.
    bin_dir = tempfile.mkdtemp(prefix="pecheck-doc-bin-")
    os.symlink(pecheck, os.path.join(bin_dir, "pecheck"))
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.pop("PECHECK", None)
    total = 0
    started = time.monotonic()
    for page in PAGES:
        if page not in texts or (args.page and page not in args.page):
            continue
        try:
            examples = examples_of(texts[page])
        except ValueError as e:
            failures.append(f"{page}: {e}")
            continue
        if not examples:
            print(f"{page}: 0 commands")
            continue
        work = make_workdir(source, pecheck)
        page_started = time.monotonic()
        ran = 0
        try:
            for example in examples:
                where = f"{page}:{example.line}"
                try:
                    result = subprocess.run(["bash", "-c", example.command], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    failures.append(f"{where}: `{example.command}` ran past {COMMAND_TIMEOUT_S} s")
                    continue
                ran += 1
                output = result.stdout.decode("utf-8", "replace")
                problems = []
                if result.returncode != example.status:
                    problems.append(f"exit status {result.returncode}, the page shows {example.status}")
                for line in output.split("\n"):
                    if "deprecated" in line.lower():
                        problems.append(f"prints a deprecation: {line.strip()}")
                mismatch = first_mismatch(example.quoted, output)
                if mismatch is not None:
                    number, text = mismatch
                    problems.append(f"quoted line {number} is not in the output as shown: {text}")
                if problems:
                    shown = "\n".join("    | " + line for line in output.rstrip("\n").split("\n")[:60])
                    failures.append(f"{where}: `{example.command}`: " + "; ".join(problems) + "\n  its output:\n" + shown)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        total += ran
        print(f"{page}: {ran} commands ({time.monotonic() - page_started:.1f} s)")
    shutil.rmtree(bin_dir, ignore_errors=True)
    print(f"{total} commands in {time.monotonic() - started:.1f} s")
    if total == 0:
        failures.append("no command ran: no ```console block was found")
    for failure in dict.fromkeys(failures):  # each once, in order
        print("FAIL " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
