"""Calls become `ag__.call(f, *args)` so user functions are converted recursively at run time.

Calls whose target is known at conversion time to be a builtin, NumPy or
staging function are left alone (they need no conversion), except the builtins and library
functions that behave differently on symbolic values (print, len, range, enumerate, zip, min,
max, sum, round, math.*, str, repr, format, isinstance and type of a caught exception:
autograph.operators.py_builtins.OVERRIDES) and NumPy functions that
need routing for symbolic arguments.
"""

from __future__ import annotations

import ast
import builtins
import types

from autograph.operators import py_builtins
from autograph.pyct import templates, transformer
from staging import numpy_api
from staging.effects import random_ops

_INTERCEPTED_BUILTINS = frozenset(
    {
        "print",
        "len",
        "range",
        "enumerate",
        "zip",
        "min",
        "max",
        "sum",
        "int",
        "float",
        "bool",
        "complex",
        "hasattr",
        "getattr",
        "str",
        "repr",
        "ascii",
        "format",
        "isinstance",
        "type",
    }
)
_NATIVE_PACKAGES = (
    "numpy",
    "staging",
    "runtime",
    "math",
    "builtins",
    "operator",
    "functools",
    "itertools",
    "collections",
    "autograph",
)
_MISSING = object()
_SEQUENCE_FUNCTIONS = frozenset({"stack", "vstack", "hstack", "concatenate", "array", "asarray"})


def _native_module(obj) -> str | None:
    mod = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    if isinstance(mod, str) and mod.split(".")[0] in _NATIVE_PACKAGES:
        return mod
    return None


class _CallTrees(transformer.Transformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.namespace = ctx.namespace
        # Any name bound anywhere in the function counts as local (its value is not known statically).
        self.locals = ctx.bound

    def _resolve(self, func):
        """The object `func` names, if it is a global/builtin attribute chain; else _MISSING."""
        chain = []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or func.id in self.locals or func.id in self.ctx.freevars:
            return _MISSING
        obj = self.namespace.get(func.id, _MISSING)
        if obj is _MISSING:
            obj = getattr(builtins, func.id, _MISSING)
            if obj is _MISSING:
                return _MISSING
        for attr in reversed(chain):
            if not isinstance(obj, (types.ModuleType, type)):
                return _MISSING
            obj = getattr(obj, attr, _MISSING)
            if obj is _MISSING:
                return _MISSING
        return obj

    def _of_keywords_only(self, node) -> bool:
        """`dict(a=1)`: keys that are Python strs, nothing to stage (`opts=dict(...)` in
        directives)."""
        return not node.args and self._resolve(node.func) is dict

    def _needs_call(self, func) -> bool:
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "ag__"
        ):
            return False
        if isinstance(func, ast.Name) and (func.id == "super" or func.id in self.ctx.direct_calls):
            return False
        obj = self._resolve(func)
        if obj is _MISSING or py_builtins.is_overridden(obj):
            return True
        if (
            obj.__class__ is types.BuiltinFunctionType
            and getattr(obj, "__module__", None) == "builtins"
        ):
            return obj.__name__ in _INTERCEPTED_BUILTINS
        if isinstance(obj, type) and obj.__module__ == "builtins":
            return obj.__name__ in _INTERCEPTED_BUILTINS
        module = _native_module(obj)
        if module is None:
            return True
        if module.split(".")[0] == "numpy":
            # Functions taking sequences may receive a list built by a staged loop; random draws
            # run when the graph runs.
            return (
                getattr(obj, "__name__", "") in _SEQUENCE_FUNCTIONS
                or _numpy_needs_routing(obj)
                or random_ops.is_run_time_call(obj)
            )
        return False

    def visit_Call(self, node):
        self.generic_visit(node)
        if not self._needs_call(node.func) or self._of_keywords_only(node):
            return node
        call = templates.replace_as_expression("ag__.call(func)", node, func=node.func)
        call.args.extend(node.args)
        call.keywords = node.keywords
        return call


def _numpy_needs_routing(func) -> bool:
    try:
        return numpy_api.has_function(func)
    except TypeError:  # an unhashable object
        return False


def transform(node, ctx):
    return _CallTrees(ctx).visit(node)
