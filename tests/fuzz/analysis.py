"""Abstract interpretation of generated programs: which ones keep one type per variable at every join.

`analyze` runs a program on representatives (one value per type: `1` of the dtype and shape,
a Python argument stands for itself), taking every branch and running loop bodies until the
types settle, and reports each place where a variable reaches a join (the end of a branch, a
loop's back edge or exit, a function's return, the two sides of `a if c else b`, the elements
of a list) with two different types. Programs without such places are *dtype-stable*.
"""

from __future__ import annotations

import copy
import math
import operator
import warnings

import numpy as np

from .program import (
    Append,
    Assign,
    Attr,
    AugAssign,
    AugItem,
    BinOp,
    BoolOp,
    Break,
    Call,
    ClosureDef,
    Cmp,
    Comp,
    Continue,
    DictLit,
    ExprStmt,
    For,
    FStr,
    FuncDef,
    If,
    IfExp,
    Index,
    ListLit,
    Lit,
    Method,
    Name,
    NonlocalDef,
    NpAttr,
    Print,
    Program,
    Raise,
    Return,
    SetAttr,
    SetItem,
    SetLit,
    Try,
    Unary,
    While,
)


class AList:
    """A list: the representative of its elements (None while empty)."""

    def __init__(self, elem=None):
        self.elem = elem

    def __getitem__(self, i):
        if self.elem is None:
            raise IndexError("list index out of range")
        return self.elem

    def __len__(self):
        return 1

    def __iter__(self):
        return iter([] if self.elem is None else [self.elem])


class ADict(dict):
    """A dict with str keys (copied at every branch)."""


class ASet(AList):
    """A set: the representative of its elements (None while empty)."""


class ADeque(AList):
    """A collections.deque: the representative of its elements (None while empty)."""


class AException:
    """An exception bound by `except ... as e` (only printed)."""

    def __str__(self):
        return "error"


class ABox:
    """A Box instance: its attributes."""

    def __init__(self):
        self.attrs = {}


def type_key(v):
    """What must stay the same at a join: Python type, or dtype and rank, or structure."""
    if isinstance(v, np.generic):
        return ("np", v.dtype.name)
    if isinstance(v, (bool, int, float, complex)):
        return ("py", type(v).__name__)
    if isinstance(v, np.ndarray):
        return ("arr", v.dtype.name, v.ndim)
    if isinstance(v, AList):
        kind = {ASet: "set", ADeque: "deque"}.get(type(v), "list")
        return (kind, None if v.elem is None else type_key(v.elem))
    if isinstance(v, ADict):
        return ("dict", tuple(sorted((k, type_key(x)) for k, x in v.items())))
    if isinstance(v, ABox):
        return ("box", tuple(sorted((k, type_key(x)) for k, x in v.attrs.items())))
    if isinstance(v, tuple):
        return ("tuple", tuple(type_key(x) for x in v))
    return ("obj", type(v).__name__)


def describe_key(key) -> str:
    if key[0] == "py":
        return f"Python {key[1]}"
    if key[0] == "np":
        return f"np.{key[1]} scalar"
    if key[0] == "arr":
        return f"{key[1]} array of rank {key[2]}"
    return str(key)


class AbstractError(Exception):
    """The abstract interpreter could not evaluate something (the types do not fit)."""


_BINOPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
_CMPS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
_REPRESENTATIVE_DRAWS = np.random.RandomState(0)
_BUILTINS = {
    "abs": abs,
    "len": len,
    "min": min,
    "max": max,
    "range": range,
    "bool": bool,
    "int": int,
    "float": float,
    "round": round,
    "divmod": divmod,
    "pow": pow,
    "str": str,
    "repr": repr,
}
# Errors that depend on the values (not the types) of the operands: the representatives may
# meet them where the program's inputs do not, or the other way round. The abstract interpreter
# evaluates such an operation again on ones of the same types (`_unit`).
_VALUE_ERRORS = (
    ZeroDivisionError,
    ValueError,
    OverflowError,
    IndexError,
    np.linalg.LinAlgError,
)


def _unit(v):
    """A value of v's type (and shape) that the value-dependent errors spare."""
    if isinstance(v, bool) or isinstance(v, np.bool_):
        return type(v)(True)
    if isinstance(v, (int, float, complex, np.generic)):
        return type(v)(1)
    if isinstance(v, np.ndarray):
        return np.ones_like(v)
    return v


def tolerant(fn, *args, errors=_VALUE_ERRORS):
    """fn(*args); on a value-dependent error, fn of ones of the same types (or AbstractError)."""
    try:
        return fn(*args)
    except errors:
        pass
    try:
        return fn(*[_unit(a) for a in args])
    except Exception as error:  # noqa: BLE001 - the types do not fit
        raise AbstractError(f"{type(error).__name__}: {error}") from None


def apply_binop(op, a, b):
    # A division by a zero representative only (an OverflowError of NEP 50, `-1` meeting a
    # uint8, depends on the types: staging raises it while tracing, on every path).
    return tolerant(_BINOPS[op], a, b, errors=ZeroDivisionError)


def _contains(container, item):
    """`item in container` on representatives: a Python bool, where Python could tell."""
    if isinstance(container, ADict):
        hash(item)
        return item in container
    if isinstance(container, AList):
        if isinstance(container, ASet):
            hash(item)
        if container.elem is not None:
            _truth(container.elem == item)
        return True
    return item in container


_CMPS["in"] = lambda a, b: _contains(b, a)
_CMPS["not in"] = lambda a, b: not _contains(b, a)


def apply_cmp(op, a, b):
    return _CMPS[op](a, b)


def fformat(value, conv, spec):
    """What an f-string's replacement field `{value!conv:spec}` gives."""
    if conv == "r":
        value = repr(value)
    elif conv == "s":
        value = str(value)
    return format(value, spec)


def check_order(rep):
    """Raises unless values of rep's type can be ordered (heapq, sorted, min, max)."""
    if rep is not None:
        _truth(rep < rep)


class Analysis:
    """The result of `analyze`: the joins where a variable has two types, and evaluation
    problems (an abstract error makes the program count as not dtype-stable)."""

    def __init__(self):
        self.unstable = []  # descriptions
        self.errors = []

    @property
    def stable(self) -> bool:
        return not self.unstable and not self.errors


class _Frame:
    def __init__(self):
        self.breaks = []
        self.continues = []


class Interpreter:
    """Evaluates a program on representatives, all paths at once."""

    MAX_LOOP_PASSES = 4

    def __init__(self, program: Program, analysis: Analysis):
        self.helpers = {h.name: h for h in program.helpers}
        self.analysis = analysis
        self.closures = {}
        self._helper_cache = {}
        self._depth = 0

    # expressions
    def ev(self, e, env):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return self._ev(e, env)

    def _ev(self, e, env):
        if isinstance(e, Name):
            if e.id not in env:
                raise AbstractError(f"name {e.id!r} may be undefined")
            return env[e.id]
        if isinstance(e, Lit):
            return e.value
        if isinstance(e, NpAttr):
            return getattr(np, e.name)
        if isinstance(e, BinOp):
            return apply_binop(e.op, self._ev(e.left, env), self._ev(e.right, env))
        if isinstance(e, Cmp):
            return apply_cmp(e.op, self._ev(e.left, env), self._ev(e.right, env))
        if isinstance(e, Unary):
            if e.op == "not":
                return not _truth(self._test(e.operand, env))
            v = self._ev(e.operand, env)
            if e.op == "-":
                return -v
            return ~v
        if isinstance(e, BoolOp):
            a, b = self._ev(e.left, env), self._ev(e.right, env)
            _truth(a)
            self.join_values(a, b, f"the operands of `{e.op}`")
            return b
        if isinstance(e, IfExp):
            _truth(self._test(e.test, env))
            a, b = self._ev(e.body, env), self._ev(e.orelse, env)
            self.join_values(a, b, "the two values of a conditional expression")
            return a
        if isinstance(e, Call):
            args = [self._ev(a, env) for a in e.args]
            return self.call(e.func, args, env)
        if isinstance(e, ListLit):
            items = [self._ev(a, env) for a in e.items]
            for other in items[1:]:
                self.join_values(items[0], other, "list elements")
            return AList(items[0] if items else None)
        if isinstance(e, DictLit):
            return ADict({k: self._ev(v, env) for k, v in e.items})
        if isinstance(e, SetLit):
            items = [self._ev(a, env) for a in e.items]
            for item in items:
                hash(item)
                self.join_values(items[0], item, "set elements")
            return ASet(items[0] if items else None)
        if isinstance(e, FStr):
            return "".join(
                p if isinstance(p, str) else fformat(self._ev(p.value, env), p.conv, p.spec)
                for p in e.parts
            )
        if isinstance(e, Comp):
            return self.comprehension(e, env)
        if isinstance(e, Method):
            obj = self._ev(e.obj, env)
            args = [self._ev(a, env) for a in e.args]
            if isinstance(obj, (AList, ADict)):
                return self.container_method(obj, e.name, args)
            return getattr(obj, e.name)(*args)
        if isinstance(e, Attr):
            obj = self._ev(e.obj, env)
            if isinstance(obj, ABox):
                if e.name not in obj.attrs:
                    raise AbstractError(f"attribute {e.name!r} may be unset")
                return obj.attrs[e.name]
            return getattr(obj, e.name)
        if isinstance(e, Index):
            obj, index = self._ev(e.obj, env), self._ev(e.index, env)
            if isinstance(obj, ADict) and index not in obj:
                raise AbstractError(f"key {index!r} may be missing")
            if isinstance(obj, (ASet, ADeque)):
                raise AbstractError("no indexing here")
            if isinstance(obj, AList):
                operator.index(index)
                return obj[index]
            return tolerant(operator.getitem, obj, index)
        raise AbstractError(f"cannot evaluate {e!r}")

    def comprehension(self, e, env):
        """A list comprehension's AList, or a generator's items (an AList too)."""
        iterable = self._ev(e.iter, env)
        item = _first_item(iterable)
        if item is None:
            return AList(None)
        inner = dict(env)
        inner[e.var] = item
        if e.cond is not None:
            self.test(e.cond, inner)
        return AList(self._ev(e.elt, inner))

    def container_method(self, obj, name, args):
        """A method of a list, set, deque or dict on representatives (mutating `obj`)."""
        if isinstance(obj, ADict):
            if name in ("get", "pop", "setdefault") and len(args) > 1 and args[0] in obj:
                self.join_values(obj[args[0]], args[1], f"the value and default of dict.{name}")
            if name == "pop" and args[0] not in obj and len(args) < 2:
                raise AbstractError("key may be missing")
            return getattr(obj, name)(*args)
        if name in ("append", "appendleft", "add", "insert", "extend"):
            values = args[-1] if name == "extend" else [args[-1]]
            for value in values if not isinstance(values, AList) else [values.elem]:
                if value is None:
                    continue
                if isinstance(obj, ASet):
                    hash(value)
                if obj.elem is not None:
                    self.join_values(obj.elem, value, f"elements put in a {type_key(obj)[0]}")
                else:
                    obj.elem = value
            return None
        if name in ("pop", "popleft"):
            if obj.elem is None:
                raise AbstractError("pop from an empty container")
            return obj.elem
        if name in ("remove", "discard"):
            _contains(obj, args[0])
            return None
        if name == "copy":
            return type(obj)(obj.elem)
        raise AbstractError(f"no method {name}")

    def test(self, e, env):
        """Evaluates a condition (only its truth value is used: `and`/`or` operands may differ)."""
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return _truth(self._test(e, env))

    def _test(self, e, env):
        if isinstance(e, BoolOp):
            a = _truth(self._test(e.left, env))
            b = _truth(self._test(e.right, env))
            return a and b if e.op == "and" else a or b
        if isinstance(e, Unary) and e.op == "not":
            return not _truth(self._test(e.operand, env))
        return self._ev(e, env)

    def call(self, func, args, env):
        if func.startswith("np.random."):  # a private generator: types only, global state untouched
            return getattr(_REPRESENTATIVE_DRAWS, func[len("np.random.") :])(*args)
        if func.startswith("np.linalg."):
            return tolerant(getattr(np.linalg, func[len("np.linalg.") :]), *args)
        if func.startswith("np."):
            return getattr(np, func[3:])(*args)
        if func.startswith("math."):
            return tolerant(getattr(math, func[5:]), *args)
        if func in _ITERABLE_CALLS and (len(args) == 1 or func not in ("min", "max")):
            return _ITERABLE_CALLS[func](self, *args)
        if func in _BUILTINS:
            return tolerant(_BUILTINS[func], *args)
        if func == "Box":
            return ABox()
        if func in self.closures:
            closure = self.closures[func]
            inner = dict(env)
            inner[closure.param] = args[0]
            value = self._ev(closure.expr, inner)
            if isinstance(closure, NonlocalDef):  # writes f's variable, returns None
                env[closure.target] = value
                return None
            return value
        if func in self.helpers:
            return self.call_helper(self.helpers[func], args)
        raise AbstractError(f"unknown function {func}")

    # calls that take an iterable (a list, set, deque, comprehension or array)
    def it_sum(self, iterable):
        item = _first_item(iterable)
        if item is None:
            return 0
        total = apply_binop("+", 0, item)
        self.join_values(0, total, "the sum of an empty and of a non-empty iterable")
        return total

    def it_extreme(self, iterable):
        item = _first_item(iterable)
        if item is None:
            raise AbstractError("min/max of an empty iterable")
        check_order(item)
        return item

    def it_sorted(self, iterable):
        item = _first_item(iterable)
        check_order(item)
        return AList(item)

    def it_truth(self, iterable):
        item = _first_item(iterable)
        if item is not None:
            _truth(item)
        return True

    def it_list(self, iterable):
        return AList(_first_item(iterable))

    def it_deque(self, iterable=None):
        return ADeque(_first_item(iterable) if iterable is not None else None)

    def it_heappush(self, heap, value):
        check_order(value)
        self.container_method(heap, "append", [value])

    def it_heappop(self, heap):
        check_order(heap.elem)
        return self.container_method(heap, "pop", [])

    def call_helper(self, helper, args):
        key = (helper.name, tuple(type_key(a) for a in args))
        if key in self._helper_cache:
            return self._helper_cache[key]
        if self._depth > 8:
            raise AbstractError("helper recursion")
        self._depth += 1
        try:
            result = self.run_function(
                helper, dict(zip(helper.params, args)), f"in {helper.name}: "
            )
        finally:
            self._depth -= 1
        self._helper_cache[key] = result
        return result

    # joins
    def join_values(self, a, b, what, prefix=""):
        ka, kb = type_key(a), type_key(b)
        if ka != kb:
            self.analysis.unstable.append(
                f"{prefix}{what}: {describe_key(ka)} vs {describe_key(kb)}"
            )

    def join(self, envs, where, prefix=""):
        envs = [e for e in envs if e is not None]
        if not envs:
            return None
        first = envs[0]
        out = {}
        for name, value in first.items():
            if all(name in e for e in envs[1:]):
                for other in envs[1:]:
                    self.join_values(value, other[name], f"{name!r} {where}", prefix)
                out[name] = value
        return out

    # statements
    def run_function(self, fn: FuncDef, env, prefix=""):
        returns = []
        saved = self.closures
        self.closures = dict(saved)
        try:
            end = self.block(fn.body, env, None, returns, prefix)
        finally:
            self.closures = saved
        if end is not None:  # falling off the end returns None
            returns.append(None)
        if not returns:
            return None
        first = returns[0]
        for other in returns[1:]:
            self.join_values(first, other, "returned values", prefix)
        return first

    def block(self, stmts, env, frame, returns, prefix):
        for s in stmts:
            env = self.stmt(s, env, frame, returns, prefix)
            if env is None:
                return None
        return env

    def stmt(self, s, env, frame, returns, prefix):
        if isinstance(s, Assign):
            env[s.target] = self.ev(s.value, env)
            return env
        if isinstance(s, AugAssign):
            old = env.get(s.target)
            if old is None:
                raise AbstractError(f"{s.target} undefined")
            new = self.ev(BinOp(s.op, Name(s.target), s.value), env)
            if isinstance(old, np.ndarray):  # in place: keeps dtype, or raises
                new = np.asarray(new)
                if not np.can_cast(new.dtype, old.dtype, casting="same_kind"):
                    raise AbstractError("in-place operation changes the dtype")
                new = old.copy()
            env[s.target] = new
            return env
        if isinstance(s, SetItem):
            target = env[s.target]
            value = self.ev(s.value, env)
            index = self.ev(s.index, env)
            if isinstance(target, ADict):
                new = ADict(target)
                new[index] = value
                env[s.target] = new
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    target = target.copy()
                    target[index] = value
                env[s.target] = target
            return env
        if isinstance(s, SetAttr):
            box = env[s.target]
            new = ABox()
            new.attrs = dict(box.attrs)
            new.attrs[s.attr] = self.ev(s.value, env)
            env[s.target] = new
            return env
        if isinstance(s, Append):
            lst = env[s.target]
            value = self.ev(s.value, env)
            if lst.elem is not None:
                self.join_values(lst.elem, value, f"elements appended to {s.target!r}", prefix)
                env[s.target] = AList(lst.elem)
            else:
                env[s.target] = AList(value)
            return env
        if isinstance(s, Print):
            for a in s.args:
                self.ev(a, env)
            return env
        if isinstance(s, (ClosureDef, NonlocalDef)):
            if isinstance(s, NonlocalDef) and s.target not in env:
                raise AbstractError(f"nonlocal {s.target} is not bound")
            self.closures[s.name] = s
            env[s.name] = ("closure" if isinstance(s, ClosureDef) else "nonlocal", s.name)
            return env
        if isinstance(s, ExprStmt):
            self.ev(s.value, env)
            return env
        if isinstance(s, AugItem):
            return self.aug_item(s, env)
        if isinstance(s, Raise):
            for a in s.args:
                self.ev(a, env)
            return None
        if isinstance(s, Try):
            return self.try_stmt(s, env, frame, returns, prefix)
        if isinstance(s, Return):
            value = tuple(self.ev(v, env) for v in s.values)
            returns.append(value[0] if len(value) == 1 else value)
            return None
        if isinstance(s, Break):
            frame.breaks.append(_copy_env(env))
            return None
        if isinstance(s, Continue):
            frame.continues.append(_copy_env(env))
            return None
        if isinstance(s, If):
            outs = []
            tests = [s.test] + [t for t, _ in s.elifs]
            bodies = [s.body] + [b for _, b in s.elifs] + [s.orelse]
            for test in tests:
                self.test(test, env)
            for body in bodies:
                outs.append(self.block(body, _copy_env(env), frame, returns, prefix))
            return self.join(outs, "after an if statement", prefix)
        if isinstance(s, While):
            env[s.counter] = 0

            def enter(e):
                self.test(Cmp("<", Name(s.counter), s.bound), e)
                if s.extra is not None:
                    self.test(s.extra, e)
                e[s.counter] = self.ev(BinOp("+", Name(s.counter), Lit(1)), e)
                return e

            return self.loop(s.body, s.orelse, env, enter, returns, prefix, "while")
        if isinstance(s, For):
            return self.for_stmt(s, env, returns, prefix)
        raise AbstractError(f"cannot run {s!r}")

    def for_stmt(self, s, env, returns, prefix):
        iterable = self.ev(s.iter, env)
        targets = s.target.split(", ")
        if isinstance(iterable, type({}.items())):  # `for k, v in d.items()`
            items = list(iterable)
            for other in items[1:]:
                self.join_values(items[0], other, f"{s.target!r} in a for loop", prefix)
            item = items[0] if items else None
        else:
            item = _first_item(iterable)
        if item is None:
            raise AbstractError("empty iteration")
        if len(targets) > 1 and (not isinstance(item, tuple) or len(item) != len(targets)):
            raise AbstractError("cannot unpack")

        def enter(e, item=item):
            for name, value in zip(targets, item if len(targets) > 1 else [item]):
                e[name] = value
            return e

        out = self.loop(s.body, s.orelse, env, enter, returns, prefix, "for")
        if out is not None:
            for name in targets:
                out.pop(name, None)  # not bound after a loop of no trips
        return out

    def aug_item(self, s, env):
        target = env[s.target]
        index = self.ev(s.index, env)
        value = self.ev(s.value, env)
        new = apply_binop(s.op, tolerant(operator.getitem, target, index), value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            target = target.copy()
            tolerant(operator.setitem, target, index, new)
        env[s.target] = target
        return env

    def try_stmt(self, s, env, frame, returns, prefix):
        """Body, then each handler from the names as they were before the `try` (what a
        handler sees when the body's first line raises), else, finally."""
        before = _copy_env(env)
        end = self.block(s.body, _copy_env(before), frame, returns, prefix)
        if end is not None and s.orelse:
            end = self.block(s.orelse, end, frame, returns, prefix)
        outs = [end]
        for h in s.handlers:
            start = _copy_env(before)
            if h.name:
                start[h.name] = AException()
            out = self.block(h.body, start, frame, returns, prefix)
            if out is not None and h.name:
                out.pop(h.name, None)  # Python unbinds it after the clause
            outs.append(out)
        joined = self.join(outs, "after a try statement", prefix)
        if not s.finalbody:
            return joined
        if joined is None:
            self.block(s.finalbody, before, frame, returns, prefix)
            return None
        return self.block(s.finalbody, joined, frame, returns, prefix)

    def loop(self, body, orelse, env, enter, returns, prefix, kind):
        head = _copy_env(env)
        breaks = []
        for _ in range(self.MAX_LOOP_PASSES):
            frame = _Frame()
            end = self.block(body, enter(_copy_env(head)), frame, returns, prefix)
            breaks = frame.breaks
            back = [head, end] + frame.continues
            before = {k: type_key(v) for k, v in head.items()}
            joined = self.join(back, f"across iterations of a {kind} loop", prefix)
            # Keep the newest types so later passes see what a second iteration sees.
            newest = {}
            for name in joined:
                cands = [e[name] for e in [end] + frame.continues if e is not None and name in e]
                newest[name] = cands[0] if cands else head[name]
            if {k: type_key(v) for k, v in newest.items()} == before:
                break
            head = newest
        exit_env = self.block(orelse, _copy_env(head), None, returns, prefix) if orelse else head
        return self.join([exit_env] + breaks, f"after a {kind} loop", prefix)


_ITERABLE_CALLS = {
    "sum": Interpreter.it_sum,
    "min": Interpreter.it_extreme,
    "max": Interpreter.it_extreme,
    "sorted": Interpreter.it_sorted,
    "any": Interpreter.it_truth,
    "all": Interpreter.it_truth,
    "list": Interpreter.it_list,
    "collections.deque": Interpreter.it_deque,
    "heapq.heappush": Interpreter.it_heappush,
    "heapq.heappop": Interpreter.it_heappop,
}


def _first_item(iterable):
    """The representative of an iterable's items (None: it has none)."""
    if isinstance(iterable, AList):
        return iterable.elem
    if isinstance(iterable, range):
        return 1 if len(iterable) else None
    if isinstance(iterable, np.ndarray):
        if iterable.ndim == 0:
            raise AbstractError("iteration over a 0-d array")
        return iterable[0] if len(iterable) else None
    if isinstance(iterable, dict):
        return next(iter(iterable), None)
    raise AbstractError(f"cannot iterate {type(iterable).__name__}")


def _truth(v):
    if isinstance(v, np.ndarray) and v.size != 1:
        raise AbstractError("truth value of an array")
    if isinstance(v, (AList, ADict, ABox)):
        return True
    return bool(v)


def _copy_env(env):
    return {
        k: copy.deepcopy(v) if isinstance(v, (AList, ADict, ABox)) else v for k, v in env.items()
    }


def analyze(program: Program) -> Analysis:
    """Dtype stability of `program` under every input signature it is called with."""
    analysis = Analysis()
    seen = set()
    for call in program.calls:
        sig = tuple(a.signature() for a in call)
        if sig in seen:
            continue
        seen.add(sig)
        interp = Interpreter(program, analysis)
        env = {p: a.representative() for p, a in zip(program.main.params, call)}
        try:
            interp.run_function(program.main, env)
        except Exception as error:  # noqa: BLE001 - any failure means "not known to be stable"
            analysis.errors.append(f"{type(error).__name__}: {error}")
    # The same join may be reported once per signature and pass: keep one of each.
    analysis.unstable = list(dict.fromkeys(analysis.unstable))
    return analysis
