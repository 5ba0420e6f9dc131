"""Abstract interpretation of generated programs: which ones keep one type per variable at every join.

`analyze` runs a program on representatives (one value per type: `1` of the dtype and shape,
a Python argument stands for itself), taking every branch and running loop bodies until the
types settle, and reports each place where a variable reaches a join (the end of a branch, a
loop's back edge or exit, a function's return, the two sides of `a if c else b`, the elements
of a list) with two different types. Programs without such places are *dtype-stable*.
"""

from __future__ import annotations

import copy
import operator
import warnings

import numpy as np

from .program import (
    Append,
    Assign,
    Attr,
    AugAssign,
    BinOp,
    BoolOp,
    Break,
    Call,
    ClosureDef,
    Cmp,
    Continue,
    DictLit,
    For,
    FuncDef,
    If,
    IfExp,
    Index,
    ListLit,
    Lit,
    Method,
    Name,
    NpAttr,
    Print,
    Program,
    Return,
    SetAttr,
    SetItem,
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
        return ("list", None if v.elem is None else type_key(v.elem))
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
_BUILTINS = {"abs": abs, "len": len, "min": min, "max": max, "range": range, "bool": bool}


def apply_binop(op, a, b):
    return _BINOPS[op](a, b)


def apply_cmp(op, a, b):
    return _CMPS[op](a, b)


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
        if isinstance(e, Method):
            obj = self._ev(e.obj, env)
            return getattr(obj, e.name)(*[self._ev(a, env) for a in e.args])
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
            return obj[index]
        raise AbstractError(f"cannot evaluate {e!r}")

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
        if func.startswith("np."):
            return getattr(np, func[3:])(*args)
        if func in _BUILTINS:
            return _BUILTINS[func](*args)
        if func == "Box":
            return ABox()
        if func in self.closures:
            closure = self.closures[func]
            inner = dict(env)
            inner[closure.param] = args[0]
            return self._ev(closure.expr, inner)
        if func in self.helpers:
            return self.call_helper(self.helpers[func], args)
        raise AbstractError(f"unknown function {func}")

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
        if isinstance(s, ClosureDef):
            self.closures[s.name] = s
            env[s.name] = ("closure", s.name)
            return env
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
            iterable = self.ev(s.iter, env)
            items = list(iterable) if not isinstance(iterable, range) else [1]
            if isinstance(iterable, np.ndarray):
                items = [iterable[0]] if len(iterable) else []
            item = items[0] if items else None
            if item is None:
                raise AbstractError("empty iteration")

            def enter(e, item=item):
                e[s.target] = item
                return e

            out = self.loop(s.body, s.orelse, env, enter, returns, prefix, "for")
            if out is not None:
                out.pop(s.target, None)  # not bound after a loop of no trips
            return out
        raise AbstractError(f"cannot run {s!r}")

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
