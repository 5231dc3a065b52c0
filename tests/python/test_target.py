"""pecheck.target: how a function is named for the gate's process (or refused), and loaded back."""
import functools
import os
import subprocess
import sys
import types

import pytest

import pecheck.spec
import rope_functions
from pecheck import TargetError, load, target_of

HERE = os.path.dirname(os.path.abspath(__file__))


def test_a_module_function_is_named_by_module_and_root():
    assert target_of(rope_functions.rope) == ("rope_functions:rope", HERE)


def test_a_package_function_is_named_from_the_packages_parent():
    parent = os.path.dirname(os.path.dirname(os.path.abspath(pecheck.spec.__file__)))
    assert target_of(pecheck.spec.rope_spec) == ("pecheck.spec:rope_spec", parent)


class Holder:
    @staticmethod
    def static(x, pos, spec):
        return x

    def method(self, x, pos, spec):
        return x


def test_a_static_method_is_named_by_its_qualname():
    assert target_of(Holder.static) == ("test_target:Holder.static", HERE)
    assert load("test_target:Holder.static") is Holder.static


def closure_maker():
    def inner(x, pos, spec):
        return x
    return inner


@pytest.mark.parametrize("fn, message", [
    (lambda x, pos, spec: x, r"<lambda> is a lambda: the gate's process imports functions by name"),
    (closure_maker(), r"closure_maker.<locals>.inner is defined inside a function"),
    (Holder().method, r"Holder.method is a bound method"),
    (functools.partial(rope_functions.rope), r"partial is not a function"),
    (42, r"int is not a function"),
])
def test_what_cannot_be_imported_is_refused_with_the_reason(fn, message):
    with pytest.raises(TargetError, match=message):
        target_of(fn)


def test_a_replaced_function_is_refused(monkeypatch):
    original = rope_functions.rope
    monkeypatch.setattr(rope_functions, "rope", rope_functions.rope_sign_flipped)
    with pytest.raises(TargetError, match="rope_functions.rope does not name this function"):
        target_of(original)


def main_function(x, pos, spec):
    return x


def test_a_scripts_function_is_named_by_its_file(monkeypatch):
    main = types.ModuleType("__main__")
    main.__file__ = "/somewhere/script.py"
    main.main_function = main_function
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(main_function, "__module__", "__main__")
    assert target_of(main_function) == ("/somewhere/script.py:main_function", None)
    del main.__file__  # an interactive session
    with pytest.raises(TargetError, match="defined in __main__, which has no .py file"):
        target_of(main_function)


def test_load_by_module_and_by_file():
    assert load("rope_functions:rope") is rope_functions.rope
    by_file = load(os.path.join(HERE, "rope_functions.py") + ":rope_float64")
    assert by_file.__name__ == "rope_float64" and by_file.__code__.co_filename == os.path.join(HERE, "rope_functions.py")


@pytest.mark.parametrize("target, message", [
    ("rope_functions", "name the function as MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION, not 'rope_functions'"),
    ("/no/such/file.py:f", "no file /no/such/file.py"),
    ("rope_functions:missing", "rope_functions has no function missing"),
    ("no_such_module_here:f", "cannot import no_such_module_here: ModuleNotFoundError: No module named 'no_such_module_here'"),
])
def test_load_names_what_is_wrong(target, message):
    with pytest.raises(TargetError) as e:
        load(target)
    assert str(e.value) == message


def test_the_command_line_refuses_a_bad_target_in_one_line_before_hello():
    run = subprocess.run([sys.executable, "-m", "pecheck", "--path", HERE, "rope_functions:missing"], input=b"", capture_output=True)
    assert (run.returncode, run.stdout, run.stderr) == (2, b"", b"python -m pecheck: rope_functions has no function missing\n")
    run = subprocess.run([sys.executable, "-m", "pecheck", "--arrays", "jax", "m:f"], input=b"", capture_output=True)
    assert run.returncode == 2 and run.stderr.count(b"\n") == 1 and b"invalid choice: 'jax'" in run.stderr
