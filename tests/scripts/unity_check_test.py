#!/usr/bin/env python3
"""scripts/unity-check on tiny builds: two files' anonymous-namespace helper(int) and helper(double)
are named (exit 1); the same helper(int) in both (a loud error in a batch, not this check's) and
one file's overloads pass (exit 0); a unity build's objects are refused (exit 2). In the sources,
a using-directive and a #define left defined are named, a #define that is #undef'd is not.
Usage: unity_check_test.py CXX SCRIPT TMPDIR"""
import os
import shutil
import subprocess
import sys

cxx, script, tmp = sys.argv[1:4]
sources = {
    "a.cpp": "namespace { int helper(int x) { return x; } }\nint use_a() { return helper(1); }\n",
    "b.cpp": "namespace { double helper(double x) { return x; } }\ndouble use_b() { return helper(1.0); }\n",
    "same.cpp": "namespace { int helper(int x) { return x + 1; } }\nint use_same() { return helper(2); }\n",
    "both.cpp": "namespace { int twice(int x) { return 2 * x; }\ndouble twice(double x) { return 2 * x; } }\n"
                "double use_both() { return twice(1) + twice(1.0); }\n",
}


def build(name, files, unity=False):
    """A build tree holding the objects of `files`, as one target of src/."""
    objects = os.path.join(tmp, name, "src", "CMakeFiles", "t.dir", "Unity" if unity else "")
    os.makedirs(objects, exist_ok=True)
    for f in files:
        source = os.path.join(tmp, f)
        with open(source, "w") as out:
            out.write(sources[f])
        subprocess.run([cxx, "-O0", "-c", source, "-o", os.path.join(objects, f + ".o")], check=True)
    return os.path.join(tmp, name)


def source_tree(name, text):
    """A source tree with one file, src/x.cpp, holding text."""
    os.makedirs(os.path.join(tmp, name, "src"))
    with open(os.path.join(tmp, name, "src", "x.cpp"), "w") as out:
        out.write(text)
    return os.path.join(tmp, name)


def check(tree, sources=None):
    sources = sources or clean_sources
    r = subprocess.run([sys.executable, script, tree, "--sources", sources], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


shutil.rmtree(tmp, ignore_errors=True)
os.makedirs(tmp)
clean_sources = source_tree("clean", "#define FIELD(x) x\nint f() { return FIELD(1); }\n#undef FIELD\n")
failures = []
status, out = check(build("overloaded", ["a.cpp", "b.cpp"]))
if status != 1 or "t.dir: helper is defined with different parameters in 2 files (a.cpp (int); b.cpp (double))" not in out:
    failures.append(f"helper(int) and helper(double) in two files: exit {status}, {out!r}")
for name, files in (("same", ["a.cpp", "same.cpp"]), ("one_file", ["both.cpp", "a.cpp"])):
    status, out = check(build(name, files))
    if status != 0 or "no anonymous-namespace function is overloaded across files" not in out:
        failures.append(f"{' and '.join(files)}: exit {status}, {out!r}")
status, out = check(build("unity", ["a.cpp"], unity=True))
if status != 2 or "is a unity build" not in out:
    failures.append(f"a unity build: exit {status}, {out!r}")
same = os.path.join(tmp, "same")
for name, text, line in (
        ("using", "#include <cmath>\nusing namespace std;\n", "src/x.cpp:2: a using-directive reaches the files after this one"),
        ("define", "#define FLAVOUR 2\n#define DONE 1\n#undef DONE\n", "src/x.cpp:1: #define FLAVOUR is not #undef'd")):
    status, out = check(same, source_tree(name, text))
    if status != 1 or line not in out or "DONE" in out:
        failures.append(f"sources with {name}: exit {status}, {out!r}")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
