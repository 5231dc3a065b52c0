"""Naming a function so that another process can import it (target_of), and importing it (load).

A target is MODULE:QUALNAME, imported with DIR first on sys.path, or PATH/TO/FILE.py:QUALNAME for a
function of a script run as __main__ or of a module that is not importable by its name.
"""
import importlib
import importlib.util
import os
import sys


class TargetError(Exception):
    """A function or target that the gate's process cannot import, with the reason."""


def module_root(module):
    """The sys.path entry that imports module by its name (root/a/b.py for a.b), or None."""
    path, name = getattr(module, "__file__", None), module.__name__
    if not path or not path.endswith(".py"):
        return None
    path = os.path.abspath(path)
    parts = name.split(".")
    stem = os.path.join(*parts) + (os.sep + "__init__.py" if os.path.basename(path) == "__init__.py" else ".py")
    if not path.endswith(os.sep + stem):
        return None
    return path[:-len(stem)].rstrip(os.sep) or os.sep


def target_of(fn):
    """(target, sys.path entry or None) naming fn for a child process; TargetError when it has none."""
    qualname, module_name = getattr(fn, "__qualname__", None), getattr(fn, "__module__", None)
    what = getattr(fn, "__name__", type(fn).__name__)
    if not callable(fn) or qualname is None or module_name is None:
        raise TargetError(f"{what!s} is not a function: pass a function defined at a module's top level")
    if getattr(fn, "__self__", None) is not None and not isinstance(fn.__self__, type(sys)):
        raise TargetError(f"{qualname} is a bound method: the gate's process imports functions by name, without their object; "
                          "pass a module-level function")
    if "<lambda>" in qualname or "<locals>" in qualname:
        kind = "a lambda" if "<lambda>" in qualname else "defined inside a function"
        raise TargetError(f"{qualname} is {kind}: the gate's process imports functions by name; define it at a module's top level")
    module = sys.modules.get(module_name)
    found = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is not fn:
        raise TargetError(f"{module_name}.{qualname} does not name this function (was it replaced or decorated?): "
                          "the gate's process would import something else")
    root = None if module_name == "__main__" else module_root(module)
    if root is not None:
        return f"{module_name}:{qualname}", root
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        raise TargetError(f"{qualname} is defined in {module_name}, which has no .py file (an interactive session?): "
                          "put it in a module the gate's process can import")
    return f"{os.path.abspath(path)}:{qualname}", None


def load(target):
    """The function target names; TargetError saying why not."""
    where, _, qualname = target.rpartition(":")
    if not where or not qualname:
        raise TargetError(f"name the function as MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION, not '{target}'")
    try:
        if where.endswith(".py") or os.sep in where:
            if not os.path.isfile(where):
                raise TargetError(f"no file {where}")
            sys.path.insert(0, os.path.dirname(os.path.abspath(where)))  # so the file imports its neighbours
            name = os.path.splitext(os.path.basename(where))[0]
            spec = importlib.util.spec_from_file_location(name, where)
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(name, module)  # dataclasses and pickling look modules up by name
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except TargetError:
        raise
    except Exception as e:  # the user's module failed to import: say why in one line
        raise TargetError(f"cannot import {where}: {type(e).__name__}: {e}") from None
    fn = module
    for part in qualname.split("."):
        fn = getattr(fn, part, None)
    if not callable(fn):
        raise TargetError(f"{where} has no function {qualname}")
    return fn
