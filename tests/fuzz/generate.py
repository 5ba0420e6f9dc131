"""Hypothesis strategies that build random, terminating, deterministic programs (with switchable features).

`programs(features)` draws two byte strings and builds a `Program` from them: argument
signatures and values first (features.py), then the body of `f`, one statement at a time. Every
expression is checked on representative values (the abstract interpreter of analysis.py) as it
is built, so programs mostly run without type errors. Without the `retype` switch the generator
keeps the types of the values that meet at a join equal (casting or picking another value), so
most programs are dtype-stable; with it, they may differ. Loops always terminate: `while` loops
count up to a small bound that the body never assigns, `for` loops go over `range` of a small
bound or over a small array or a list the body never grows. Byte 0 is always the simplest
choice, so Hypothesis shrinks failing programs towards small ones.

This module is long because the generator is one class whose expression, condition, statement
and result builders share its state (the variables in scope and what the switches allow).
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import strategies as st

from .analysis import ABox, ADict, AList, Analysis, Interpreter, _copy_env, _Frame, type_key
from .constructs import MoreGrammar
from .features import ALL_FEATURES, Source, call_sets, dtypes_of
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

# -- the program generator ------------------------------------------------------------------


def is_py(rep):
    return isinstance(rep, (bool, int, float, complex)) and not isinstance(rep, np.generic)


def is_value(rep):
    return is_py(rep) or isinstance(rep, (np.generic, np.ndarray))


def shape_class(rep):
    return "A" if isinstance(rep, np.ndarray) and rep.ndim >= 1 else "S"


_LITERALS = [1, 2, 0, 3, -1, 0.5, 1.5, -2.0, True, False, 5, 100, 300, 1j, 2.5 - 1j]
_EDGE_INTS = (-1, 300)  # out of range of some integer dtypes: NEP 50 raises OverflowError
_ARITH = ["+", "-", "*"]
_DIV = ["/", "//", "%"]
_BITS = ["&", "|", "^", "<<", ">>"]
_CMP_OPS = ["<", ">", "==", "<=", ">=", "!="]
_UNARY_NP = [
    "np.abs",
    "np.square",
    "np.sqrt",
    "np.sign",
    "np.negative",
    "np.exp",
    "np.floor",
    "np.cos",
]
_BINARY_NP = ["np.maximum", "np.minimum", "np.add", "np.multiply"]
_REDUCE_FUNCS = ["np.sum", "np.max", "np.min", "np.mean", "np.prod"]
_REDUCE_METHODS = ["sum", "max", "min", "mean"]


class Gen(MoreGrammar):
    """Draws one program. `env` maps names to representatives (the abstract interpreter's
    values); statements are built against the env of the point where they go."""

    MAX_EXPR_DEPTH = 2

    def __init__(self, src: Source, features, params, calls):
        self.src = src
        self.features = features
        self.params = params
        self.calls = calls
        self.helpers = []
        self.analysis = Analysis()  # scratch: instabilities found while generating are ignored
        self.program_stub = Program((), FuncDef("f", tuple(params), ()), calls, features)
        self.interp = Interpreter(self.program_stub, self.analysis)
        self.counter = 0
        self.max_depth = 3 if "nesting" in features else 1
        self.literals = [v for v in _LITERALS if self._literal_ok(v)]
        self.nonempty_lists = set()
        self.fresh_arrays = set()  # arrays no other name or container refers to (in-place is safe)
        self.anchor = [p for p, a in zip(params, calls[0]) if a.kind != "py" and p != "n"]
        self.return_arity = 1
        self.return_reps = None  # the types f's first return gave (later returns keep them)
        self.in_helper = False
        self.ret_cls = None
        self.counters = (
            set()
        )  # while-loop counters: never assigned by the body (they bound the loop)
        self.iterating = (
            set()
        )  # lists a for loop goes over: never appended to (the loop would not end)
        self.helper_classes = {}  # name -> (argument shape classes, result shape class, argument types)
        self.closure_classes = {}  # name -> shape class of its parameter
        self.nonlocal_classes = {}  # name of a helper writing with `nonlocal` -> its parameter's class
        self.filled = set()  # arrays made by np.zeros and filled in a loop (feature fill_arrays)

    # choices
    def pick(self, options):
        return self.src.pick(options)

    def chance(self, tenths):
        """True with probability tenths/10; shrinks towards False."""
        return self.src.chance(tenths)

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def has(self, feature):
        return feature in self.features

    def _literal_ok(self, v):
        if v in _EDGE_INTS and not isinstance(v, (bool, float)):
            return self.has("edge_ints")
        if isinstance(v, complex):
            return self.has("dt_complex")
        if isinstance(v, bool):
            return self.has("dt_bool")
        if isinstance(v, float):
            return self.has("dt_float") or self.has("dt_float16")
        return True

    # evaluation
    def rep(self, e, env):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                v = self.interp.ev(e, env)
            except Exception:  # noqa: BLE001 - a type that does not fit: the caller falls back
                return None
        if isinstance(v, np.ndarray) and v.ndim > 1:
            return None
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**62:
            return None
        return v

    def rep_test(self, e, env):
        """Whether `e` works as a condition (True), or None."""
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                self.interp.test(e, env)
            except Exception:  # noqa: BLE001
                return None
        return True

    def values(self, env, cls=None, py_only=False):
        out = []
        for name, rep in env.items():
            if not is_value(rep):
                continue
            if cls is not None and shape_class(rep) != cls:
                continue
            if py_only and not is_py(rep):
                continue
            out.append(name)
        return sorted(out, key=self._name_order)

    @staticmethod
    def _name_order(name):
        return (0 if name in ("x", "n", "y") else 1, name)

    # expressions
    def leaf(self, env, cls, py_only=False, any_var=False):
        """A variable or a literal. Python-valued local variables (counters, accumulators,
        `len()` results) only where they meet no NumPy value in arithmetic, unless
        weak_scalars is on (or `any_var`: a direct operand of a comparison)."""
        names = self.values(env, cls, py_only)
        if not (py_only or any_var or self.has("weak_scalars")):
            names = [n for n in names if not is_py(env[n]) or n in self.params]
        if cls == "S" and (not names or self.chance(2)):
            return Lit(self.pick(self.literals))
        if not names:
            return Lit(1)
        return Name(self.pick(names))

    def expr(self, env, cls="S", depth=0, py_only=False):
        """An expression of shape class `cls` ("S" scalar, "A" array like x) valid in `env`."""
        kinds = ["leaf"]
        if depth < self.MAX_EXPR_DEPTH:
            kinds += ["binop", "binop", "unary"]
            if not py_only:
                kinds += ["cmp"]
                if self.has("numpy_calls"):
                    kinds += ["npcall"]
                if self.has("random") and (cls == "S" or self.values(env, "A")):
                    kinds += ["draw"]
                if cls == "S" and self.has("reductions") and self.values(env, "A"):
                    kinds += ["reduce"]
                if cls == "S" and self.has("indexing") and self.values(env, "A"):
                    kinds += ["index"]
                if self.has("astype") or self.has("scalar_casts"):
                    kinds += ["cast"]
                if self.has("ifexp"):
                    kinds += ["ifexp"]
                if self.containers(env):
                    kinds += ["read", "read"]
                if self.has("helpers") and depth == 0:
                    kinds += ["helper"]
                if self.closures(env):
                    kinds += ["closure"]
            if (
                cls == "S"
                and self.has("lists")
                and self.lists(env)
                and (py_only or self.has("weak_scalars"))
            ):
                kinds += ["len"]
            kinds += self.more_expr_kinds(env, cls, depth, py_only)
        kind = self.pick(kinds)
        node = self.build(kind, env, cls, depth, py_only)
        rep = self.rep(node, env) if node is not None else None
        if (
            rep is None
            or not is_value(rep)
            or shape_class(rep) != cls
            or (py_only and not is_py(rep))
        ):
            node = self.leaf(env, cls, py_only)
        elif is_py(rep) and not (py_only or self.has("weak_scalars") or self.constant(node, env)):
            node = self.leaf(env, cls, py_only)
        return node

    def constant(self, node, env) -> bool:
        """Whether `node` is a Python value fixed while tracing (literals and Python arguments)."""
        if isinstance(node, Lit):
            return True
        if isinstance(node, Name):
            return node.id in self.params and is_py(env.get(node.id))
        if isinstance(node, (BinOp, Cmp, BoolOp)):
            return self.constant(node.left, env) and self.constant(node.right, env)
        if isinstance(node, Unary):
            return self.constant(node.operand, env)
        if isinstance(node, IfExp):
            return all(self.constant(n, env) for n in (node.test, node.body, node.orelse))
        return False

    def operand(self, env, cls, depth, py_only):
        return self.expr(env, cls, depth + 1, py_only)

    def cmp_operand(self, env, cls, depth, py_only=False):
        """An operand of a comparison (whose result is a bool whatever the operand types)."""
        if self.chance(4):
            return self.leaf(env, cls, py_only, any_var=True)
        return self.operand(env, cls, depth, py_only)

    def build(self, kind, env, cls, depth, py_only):
        if kind == "leaf":
            return self.leaf(env, cls, py_only)
        if kind == "binop":
            ops = list(_ARITH)
            if self.has("divmod"):
                ops += _DIV
            if self.has("pow"):
                ops += ["**"]
            if self.has("bitwise"):
                ops += _BITS
            op = self.pick(ops)
            left = self.operand(env, cls, depth, py_only)
            other = "S" if cls == "S" or self.chance(5) else "A"
            if op in ("**", "<<", ">>") or (op == "*" and py_only):
                right = Lit(self.pick([2, 1, 3]))  # keeps Python ints small
                lrep = self.rep(left, env)
                if op == "**" and isinstance(lrep, int) and not isinstance(lrep, np.generic):
                    return None  # Python int powers in loops grow without bound
                if op == "**" and is_py(lrep) and not self.has("weak_scalars"):
                    return (
                        None  # a Python float power overflows with OverflowError (see weak_scalars)
                    )
            else:
                right = self.operand(env, other, depth, py_only)
            if isinstance(left, Lit) and isinstance(right, Lit):
                left = self.leaf(env, cls, py_only)
            if (
                op in _DIV
                and not self.has("weak_scalars")
                and is_py(self.rep(left, env))
                and is_py(self.rep(right, env))
            ):
                op = "+"  # Python's int division raises on zero; staged it may not (see weak_scalars)
            if self.chance(3) and op not in ("**", "<<", ">>") and other == cls:
                left, right = right, left
            return BinOp(op, left, right)
        if kind == "unary":
            ops = ["-"] + (["~"] if self.has("bitwise") else [])
            return Unary(self.pick(ops), self.operand(env, cls, depth, py_only))
        if kind == "cmp":
            left = self.cmp_operand(env, cls, depth, py_only)
            right = self.cmp_operand(env, "S" if self.chance(6) else cls, depth, py_only)
            return Cmp(self.pick(_CMP_OPS), left, right)
        if kind == "npcall":
            if self.chance(4):
                return Call(
                    self.pick(_BINARY_NP),
                    (
                        self.operand(env, cls, depth, py_only),
                        self.operand(env, "S", depth, py_only),
                    ),
                )
            if self.chance(3):
                test = self.cond_expr(env, depth + 1, cls, boolop=False)
                return Call(
                    "np.where",
                    (
                        test,
                        self.operand(env, cls, depth, py_only),
                        self.operand(env, "S", depth, py_only),
                    ),
                )
            return Call(self.pick(_UNARY_NP), (self.operand(env, cls, depth, py_only),))
        if kind == "draw":
            if cls == "A":  # an array like x
                size = Call("len", (Name(self.pick(self.values(env, "A"))),))
                return Call(self.pick(["np.random.rand", "np.random.randn"]), (size,))
            if self.chance(2):
                return Index(Call("np.random.randint", (Lit(0), Lit(5), Lit(1))), Lit(0))
            return Index(
                Call(
                    self.pick(["np.random.uniform", "np.random.normal"]),
                    (Lit(-2.0), Lit(2.0), Lit(1)),
                ),
                Lit(0),
            )
        if kind == "reduce":
            arr = self.operand(env, "A", depth, py_only)
            choice = self.pick(["func", "method", "anyall"])
            if choice == "func":
                return Call(self.pick(_REDUCE_FUNCS), (arr,))
            if choice == "method":
                return Method(arr, self.pick(_REDUCE_METHODS), ())
            cmp = Cmp(self.pick(_CMP_OPS), arr, Lit(self.pick([0, 1, 2])))
            return Call(self.pick(["np.any", "np.all"]), (cmp,))
        if kind == "index":
            arr = Name(self.pick(self.values(env, "A")))
            ints = [
                n
                for n in self.values(env, "S", py_only=True)
                if isinstance(env[n], int) and not isinstance(env[n], bool)
            ]
            choice = self.pick(["first", "last", "var"] if ints else ["first", "last"])
            if choice == "first":
                return Index(arr, Lit(0))
            if choice == "last":
                return Index(arr, Lit(-1))
            return Index(arr, BinOp("%", Name(self.pick(ints)), Call("len", (arr,))))
        if kind == "cast":
            dtype = self.pick(dtypes_of(self.features))
            inner = self.operand(env, cls, depth, py_only)
            if self.has("astype") and (not self.has("scalar_casts") or self.chance(5)):
                return Method(inner, "astype", (NpAttr(dtype),))
            return Call(f"np.{dtype}", (inner,))
        if kind == "ifexp":
            body = self.operand(env, cls, depth, py_only)
            orelse = self.operand(env, cls, depth, py_only)
            if not self.has("retype"):
                body_rep = self.rep(body, env)
                orelse = (
                    self.coerce(orelse, body_rep, env, like=body) if body_rep is not None else None
                )
                if orelse is None:
                    return None
            return IfExp(self.cond_expr(env, depth + 1), body, orelse)
        if kind == "read":
            name = self.pick(self.containers(env))
            rep = env[name]
            if isinstance(rep, ADict):
                return Index(Name(name), Lit(self.pick(sorted(rep))))
            if isinstance(rep, ABox):
                return Attr(Name(name), self.pick(sorted(rep.attrs)))
            return Index(Name(name), Lit(self.pick([-1, 0])))
        if kind == "len":
            return Call("len", (Name(self.pick(self.lists(env))),))
        if kind == "helper":
            return self.helper_call(env, cls)
        if kind == "closure":
            name = self.pick(self.closures(env))
            return Call(name, (self.operand(env, self.closure_classes[name], depth, py_only),))
        builder = getattr(self, "ex_" + kind, None)
        return builder(env, cls, depth, py_only) if builder is not None else None

    def cond_expr(self, env, depth=0, cls="S", boolop=True, operand=False):
        """A condition: scalar unless `cls` is "A" (for np.where). `and`/`or` only where the
        value is used for its truth alone (not in np.where, where its type would matter).
        `operand`: an operand of and/or, which is a Python number only with weak_scalars."""
        kinds = ["cmp", "cmp", "cmp"]
        if cls == "S" and self.has("reductions") and self.values(env, "A"):
            kinds += ["anyall"]
        if cls == "S" and boolop and self.has("boolop") and depth < self.MAX_EXPR_DEPTH:
            kinds += ["and", "or", "not"]
        if cls == "S":
            kinds += ["truth"]
        kinds += self.more_cond_kinds(env, cls, depth)
        kind = self.pick(kinds)
        if kind == "cmp":
            left = self.cmp_operand(env, cls, depth)
            right = (
                self.cmp_operand(env, "S", depth)
                if self.chance(7)
                else Lit(self.pick([0, 1, 2, 0.5]))
            )
            node = Cmp(self.pick(_CMP_OPS), left, right)
        elif kind == "anyall":
            node = Call(
                self.pick(["np.any", "np.all"]),
                (
                    Cmp(
                        self.pick(_CMP_OPS),
                        self.expr(env, "A", depth + 1),
                        Lit(self.pick([0, 1, 2])),
                    ),
                ),
            )
        elif kind in ("and", "or"):
            node = BoolOp(
                kind,
                self.cond_expr(env, depth + 1, operand=True),
                self.cond_expr(env, depth + 1, operand=True),
            )
        elif kind == "not":
            node = Unary("not", self.cond_expr(env, depth + 1))
        elif kind != "truth":
            node = getattr(self, "cond_" + kind)(env, depth)
        else:
            names = self.values(env, "S")
            if operand and not self.has("weak_scalars"):
                names = [n for n in names if not is_py(env[n])]
            node = Name(self.pick(names)) if names else Lit(True)
        rep = self.rep_test(node, env) if cls == "S" else self.rep(node, env)
        if rep is None or shape_class(rep) != cls or not _truth_ok(rep):
            return self.fallback_cond(env, cls)
        return node

    def fallback_cond(self, env, cls):
        for name in self.values(env, cls):
            node = Cmp(">", Name(name), Lit(1))
            rep = self.rep(node, env)
            if rep is not None and (cls == "A" or _truth_ok(rep)):
                return node
        return Lit(True)

    # containers, closures, helpers
    def containers(self, env):
        out = []
        for name, rep in env.items():
            if isinstance(rep, (ADict, ABox)) and (rep if isinstance(rep, ADict) else rep.attrs):
                out.append(name)
            elif isinstance(rep, AList) and name in self.nonempty_lists and rep.elem is not None:
                out.append(name)
        return sorted(out)

    def lists(self, env):
        return sorted(n for n, r in env.items() if type(r) is AList)

    def growable_lists(self, env):
        return [n for n in self.lists(env) if n not in self.iterating]

    def closures(self, env):
        return sorted(n for n, r in env.items() if isinstance(r, tuple) and r[:1] == ("closure",))

    def helper_call(self, env, cls):
        existing = [h for h in self.helpers if self.helper_classes[h.name][1] == cls]
        if existing and self.chance(6):
            helper = self.pick(existing)
            arg_classes, _, arg_reps = self.helper_classes[helper.name]
            args = tuple(self.expr(env, c, self.MAX_EXPR_DEPTH) for c in arg_classes)
            if not self.has("retype"):  # the helper's body was built for these argument types
                args = tuple(self.coerce(a, r, env) for a, r in zip(args, arg_reps))
                if any(a is None for a in args):
                    return None
            return Call(helper.name, args)
        if len(self.helpers) >= 3 or self.in_helper:
            return None
        n_args = self.pick([1, 2])
        arg_classes = tuple(
            "S" if not self.values(env, "A") or self.chance(5) else "A" for _ in range(n_args)
        )
        args = tuple(self.expr(env, c, self.MAX_EXPR_DEPTH) for c in arg_classes)
        reps = [self.rep(a, env) for a in args]
        if any(r is None for r in reps):
            return None
        name = f"h{len(self.helpers)}"
        params = tuple(f"a{i}" for i in range(n_args))
        body = self.function_body(dict(zip(params, reps)), cls, in_helper=True)
        if body is None:
            return None
        helper = FuncDef(name, params, body)
        self.helpers.append(helper)
        self.helper_classes[name] = (arg_classes, cls, reps)
        self.interp.helpers[name] = helper
        return Call(name, args)

    # statements
    def function_body(self, env, ret_cls=None, in_helper=False):
        """Statements ending with a return. f returns `return_arity` values, a helper one."""
        saved = (
            self.in_helper,
            self.ret_cls,
            self.return_arity,
            self.nonempty_lists,
            self.fresh_arrays,
            self.anchor,
            self.return_reps,
        )
        self.in_helper = in_helper
        self.ret_cls = ret_cls
        if in_helper:
            self.return_arity = 1
            self.nonempty_lists, self.fresh_arrays, self.anchor = set(), set(), []
            self.return_reps = None
        try:
            body, env = self.block(
                env, depth=0, in_loop=False, top=True, min_len=1, max_len=3 if in_helper else 6
            )
            if env is None:  # every path has returned already
                return body
            return body + (self.return_stmt(env),)
        finally:
            (
                self.in_helper,
                self.ret_cls,
                self.return_arity,
                self.nonempty_lists,
                self.fresh_arrays,
                self.anchor,
                self.return_reps,
            ) = saved

    # results
    def output_ok(self, rep) -> bool:
        """Whether a value may be part of f's results (feature switches py_results, zero_d_results)."""
        if isinstance(rep, AList):
            return rep.elem is None or self.output_ok(rep.elem)
        if isinstance(rep, ADict):
            return all(self.output_ok(v) for v in rep.values())
        if isinstance(rep, ABox):
            return all(self.output_ok(v) for v in rep.attrs.values())
        if isinstance(rep, str):
            return self.has("strings")
        if not is_value(rep):
            return False
        if is_py(rep) and not self.has("py_results"):
            return False
        if isinstance(rep, np.ndarray) and rep.ndim == 0 and not self.has("zero_d_results"):
            return False
        return True

    def stored(self, value, env):
        """`value` for a container element (which may become a result), or a replacement."""
        rep = self.rep(value, env)
        if rep is None or self.output_ok(rep) or self.in_helper:
            return value
        return self.result_expr(env, shape_class(rep))

    def result_expr(self, env, cls=None, target=None):
        """An expression fit to be a result (of `target`'s type when given and types must stay)."""
        cls = cls or (self.pick(["S", "A"]) if self.values(env, "A") else "S")

        def fits(rep):
            return (
                rep is not None
                and self.output_ok(rep)
                and (target is None or type_key(rep) == type_key(target))
            )

        names = [n for n in self.values(env, cls) if n not in self.params and fits(env[n])]
        if names and self.chance(6):
            return Name(self.pick(names))
        for _ in range(3):
            value = self.expr(env, cls)
            if target is not None:
                value = self.coerce(value, target, env)
                if value is None:
                    continue
            if fits(self.rep(value, env)) and not (isinstance(value, Lit) and names):
                return value
        candidates = [Name(n) for n in self.values(env, cls)]
        candidates += [
            BinOp("+", Name(n), Lit(0)) for n in self.values(env, cls) if not is_py(env[n])
        ]
        fitting = [c for c in candidates if fits(self.rep(c, env))]
        if fitting:
            return self.pick(fitting)
        if target is not None:
            return self.result_expr(env, cls)
        return Lit(0)  # only Python values here: nothing is symbolic, so a Python result is exact

    def coerce(self, value, target, env, like=None):
        """`value`, or an expression standing in for it, with `target`'s type; or None. `like`:
        a variable of that type, whose dtype a cast names (so it holds for every signature)."""
        rep = self.rep(value, env)
        if rep is None:
            return None
        if type_key(rep) == type_key(target):
            return value
        if (
            isinstance(target, (np.generic, np.ndarray))
            and isinstance(rep, (np.generic, np.ndarray))
            and shape_class(rep) == shape_class(target)
            and self.has("astype")
        ):
            dtype = Attr(like, "dtype") if isinstance(like, Name) else NpAttr(target.dtype.name)
            cast = Method(value, "astype", (dtype,))
            cast_rep = self.rep(cast, env)
            if cast_rep is not None and type_key(cast_rep) == type_key(target):
                return cast
        names = [n for n in self.values(env) if type_key(env[n]) == type_key(target)]
        if names:
            return Name(self.pick(names))
        return None

    def return_values(self, env):
        if self.in_helper:
            value = self.expr(env, self.ret_cls or "S")
            if self.return_reps is not None and not self.has("retype"):
                value = self.coerce(value, self.return_reps[0], env) or value
            if self.return_reps is None and self.rep(value, env) is not None:
                self.return_reps = [self.rep(value, env)]
            return (value,)
        values = []
        keep_types = self.return_reps is not None and not self.has("retype")
        for i in range(self.return_arity):
            target = self.return_reps[i] if keep_types else None
            if isinstance(target, str) or (
                target is None and self.has("strings") and self.chance(2)
            ):
                values.append(self.str_expr(env))
                continue
            containers = [
                n for n, r in env.items() if isinstance(r, (AList, ADict)) and self.output_ok(r)
            ]
            if target is not None:
                containers = [n for n in containers if type_key(env[n]) == type_key(target)]
            if containers and (target is not None and not is_value(target) or self.chance(3)):
                values.append(Name(self.pick(sorted(containers))))
            elif target is not None and not is_value(target):
                values.append(
                    Name(self.pick(sorted(containers))) if containers else self.result_expr(env)
                )
            else:
                cls = shape_class(target) if target is not None else None
                values.append(self.result_expr(env, cls, target))
        if self.return_reps is None:
            reps = [self.rep(v, env) for v in values]
            if all(r is not None for r in reps):
                self.return_reps = reps
        return tuple(values)

    def return_stmt(self, env):
        return Return(self.return_values(env))

    def block(self, env, depth, in_loop, top=False, min_len=1, max_len=4, frame=None, returns=None):
        """(statements, env after them); each statement is kept only if the abstract interpreter
        can run it."""
        count = self.src.integer(min_len, max_len)
        out = []
        returns = [] if returns is None else returns
        for _ in range(count):
            stmts = self.statement(env, depth, in_loop, top)
            for s in stmts:
                new_env = self.run_stmt(s, env, frame, returns)
                if new_env is False:
                    break
                out.append(s)
                env = new_env
                if env is None:  # break / continue / return: nothing after it runs
                    return tuple(out), None
        return tuple(out), env

    def run_stmt(self, s, env, frame, returns):
        """The env after `s`, None if `s` does not fall through, False if it cannot run."""
        frame = frame if frame is not None else _Frame()
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                return self.interp.stmt(s, _copy_env(env), frame, returns, "")
        except Exception:  # noqa: BLE001
            return False

    def statement(self, env, depth, in_loop, top):
        kinds = ["assign", "assign"]
        values = self.values(env)
        locals_ = self.assignable(env, depth=depth)
        if locals_:
            kinds += ["reassign", "reassign"]
            if self.has("aug_assign") and self.aug_targets(env, depth):
                kinds += ["aug"]
        if self.has("py_locals"):
            kinds += ["py_local"]
        if self.has("print") and self.anchor and not self.in_helper:
            kinds += ["print"]
        if depth < self.max_depth:
            if self.has("if"):
                kinds += ["if", "if"]
                if self.has("branch_define"):
                    kinds += ["if_define"]
            if self.has("while"):
                kinds += ["while"]
            if self.has("for_range"):
                kinds += ["for_range"]
            if self.has("for_array") and self.values(env, "A"):
                kinds += ["for_array"]
            if self.has("for_list") and self.lists(env):
                kinds += ["for_list"]
        if in_loop and self.has("break"):
            kinds += ["break"]
        if in_loop and self.has("continue"):
            kinds += ["continue"]
        if self.has("return") and depth > 0:
            kinds += ["return"]
        if self.has("lists"):
            kinds += ["list_new"] + (["append"] if self.growable_lists(env) else [])
        if self.has("dicts"):
            dicts = [n for n, r in env.items() if isinstance(r, ADict)]
            kinds += ["dict_new"] + (["dict_set"] if dicts else [])
        if self.has("attrs"):
            boxes = [n for n, r in env.items() if isinstance(r, ABox)]
            kinds += ["box_new"] + (["box_set"] if boxes else [])
        if self.has("closures") and top and not self.in_helper and values:
            kinds += ["closure"]
        if self.has("inplace") and [n for n in self.fresh_arrays if n in env]:
            kinds += ["inplace"]
        kinds += self.more_stmt_kinds(env, depth, in_loop, top)
        kind = self.pick(kinds)
        return getattr(self, "st_" + kind)(env, depth, in_loop, top)

    def _cls_for_new(self, env):
        return "A" if self.values(env, "A") and self.chance(5) else "S"

    def st_assign(self, env, depth, in_loop, top):
        name = self.fresh("v")
        value = self.expr(env, self._cls_for_new(env))
        self._note_store(name, value, env)
        return [Assign(name, value)]

    def _note_store(self, name, value, env):
        """Track which arrays are fresh (not aliased), so in-place updates are safe."""
        for alias in _bare_names(value):
            self.fresh_arrays.discard(alias)
        if not _bare_names(value):
            rep = self.rep(value, env)
            if isinstance(rep, np.ndarray) and rep.ndim >= 1 and not _is_view(value):
                self.fresh_arrays.add(name)
                return
        self.fresh_arrays.discard(name)

    def assignable(self, env, cls=None, depth=0):
        """Variables a statement may assign. Without weak_scalars, Python-valued ones only at
        the top level of a function (in a branch or loop they would become symbolic)."""
        return [
            n
            for n in self.values(env, cls)
            if n not in self.params
            and n not in self.counters
            and (depth == 0 or self.has("weak_scalars") or not is_py(env[n]))
        ]

    def st_reassign(self, env, depth, in_loop, top):
        locals_ = self.assignable(env, depth=depth)
        name = self.pick(locals_)
        old = env[name]
        value = self.expr(env, shape_class(old), py_only=is_py(old) and not self.has("retype"))
        new = self.rep(value, env)
        if (
            new is not None
            and type_key(new) != type_key(old)
            and not (self.has("retype") and self.chance(4))
        ):
            # Keep the variable's type: cast NumPy values back, give up on anything else.
            cast = Method(value, "astype", (Attr(Name(name), "dtype"),))
            cast_rep = self.rep(cast, env) if not is_py(old) else None
            if cast_rep is not None and type_key(cast_rep) == type_key(old):
                value = cast
            else:
                value = (
                    BinOp("+", Name(name), Lit(0))
                    if not isinstance(old, (bool, np.bool_))
                    else Name(name)
                )
                rep = self.rep(value, env)
                if rep is None or type_key(rep) != type_key(old):
                    value = Name(name)
        self._note_store(name, value, env)
        return [Assign(name, value)]

    def aug_targets(self, env, depth):
        """Scalars `+=` may update: not 0-d arrays, which `+=` updates in place (through every
        alias); in-place updates of arrays belong to `inplace`."""
        return [n for n in self.assignable(env, "S", depth) if not isinstance(env[n], np.ndarray)]

    def st_aug(self, env, depth, in_loop, top):
        name = self.pick(self.aug_targets(env, depth))
        old = env[name]
        ops = ["+", "-", "*"]
        if self.has("divmod") and (self.has("weak_scalars") or not is_py(old)):
            ops.append("//")
        op = self.pick(ops)
        py_only = is_py(old) and not self.has("retype")
        value = (
            Lit(self.pick([1, 2, 3]))
            if op == "*" and is_py(old)
            else self.expr(env, "S", 1, py_only)
        )
        new = self.rep(BinOp(op, Name(name), value), env)
        if new is None or (type_key(new) != type_key(old) and not self.has("retype")):
            return self.st_reassign(env, depth, in_loop, top)
        return [AugAssign(name, op, value)]

    def st_py_local(self, env, depth, in_loop, top):
        name = self.fresh("s")
        return [
            Assign(name, Lit(self.pick([0, 1, 0.0, 2] + ([True] if self.has("dt_bool") else []))))
        ]

    def st_print(self, env, depth, in_loop, top):
        tag = Lit(f"p{self.fresh('')}")
        args = [tag]
        for _ in range(self.src.integer(1, 2)):
            if self.has("strings") and self.chance(4):
                args.append(self.str_expr(env))
            else:
                args.append(self.expr(env, self._cls_for_new(env)))
        args.append(Name(self.anchor[0]))
        return [Print(tuple(args))]

    def sub_block(self, env, depth, in_loop, frame=None, returns=None, min_len=1):
        body, _ = self.block(
            dict(env), depth + 1, in_loop, min_len=min_len, max_len=3, frame=frame, returns=returns
        )
        return body

    def st_if(self, env, depth, in_loop, top):
        test = self.cond_expr(env)
        body = self.sub_block(env, depth, in_loop)
        elifs = []
        if self.has("elif") and self.chance(2):
            elifs.append((self.cond_expr(env), self.sub_block(env, depth, in_loop)))
        orelse = self.sub_block(env, depth, in_loop) if self.chance(5) else ()
        return [If(test, body, tuple(elifs), orelse)]

    def st_if_define(self, env, depth, in_loop, top):
        """`if c: v = a ... elif d: v = b ... else: v = c ...`: a new name every branch assigns."""
        name = self.fresh("v")
        cls = self._cls_for_new(env)
        first = self.expr(env, cls)
        first_rep = self.rep(first, env)
        if first_rep is None:
            return self.st_assign(env, depth, in_loop, top)

        def branch():
            value = self.expr(env, cls)
            if not self.has("retype"):
                value = self.coerce(value, first_rep, env) or first
            rest = self.sub_block(env, depth, in_loop, min_len=0) if self.chance(4) else ()
            return (Assign(name, value),) + rest

        body = (Assign(name, first),) + (
            self.sub_block(env, depth, in_loop, min_len=0) if self.chance(4) else ()
        )
        elifs = ((self.cond_expr(env), branch()),) if self.has("elif") and self.chance(3) else ()
        return [If(self.cond_expr(env), body, elifs, branch())]

    def _loop_body(self, env, depth):
        return self.sub_block(env, depth, in_loop=True, frame=_Frame())

    def _loop_else(self, env, depth, in_loop):
        if self.has("loop_else") and self.chance(2):
            return self.sub_block(env, depth, in_loop)
        return ()

    def st_while(self, env, depth, in_loop, top):
        counter = self.fresh("k")
        self.counters.add(counter)
        bounds = (
            [Lit(2), Lit(3)]
            if self.in_helper
            else [Name("n"), Lit(2), Lit(3), BinOp("+", Name("n"), Lit(1))]
        )
        bound = self.pick(bounds)
        extra = self.cond_expr(env) if self.chance(3) else None
        inner = dict(env)
        inner[counter] = 1
        body = self._loop_body(inner, depth)
        return [While(counter, bound, extra, body, self._loop_else(inner, depth, in_loop))]

    def st_for_range(self, env, depth, in_loop, top):
        target = self.fresh("i")
        choices = [Call("range", (Lit(self.pick([2, 3, 0])),))]
        if not self.in_helper:
            choices.append(Call("range", (Name("n"),)))
            if self.has("range_start"):
                choices.append(Call("range", (Lit(1), Name("n"))))
        if self.values(env, "A"):
            choices.append(Call("range", (Call("len", (Name(self.values(env, "A")[0]),)),)))
        choices = choices[1:] + choices[:1]
        it = self.pick(choices)
        inner = dict(env)
        inner[target] = 1
        body = self._loop_body(inner, depth)
        return [For(target, it, body, self._loop_else(env, depth, in_loop))]

    def st_for_array(self, env, depth, in_loop, top):
        target = self.fresh("e")
        arr = self.pick(self.values(env, "A"))
        inner = dict(env)
        inner[target] = env[arr][0]
        body = self._loop_body(inner, depth)
        return [For(target, Name(arr), body, self._loop_else(env, depth, in_loop))]

    def st_for_list(self, env, depth, in_loop, top):
        name = self.pick(self.lists(env))
        if env[name].elem is None:
            return self.st_assign(env, depth, in_loop, top)
        target = self.fresh("e")
        inner = dict(env)
        inner[target] = env[name].elem
        added = name not in self.iterating
        self.iterating.add(name)
        try:
            body = self._loop_body(inner, depth)
        finally:
            if added:
                self.iterating.discard(name)
        return [For(target, Name(name), body, self._loop_else(env, depth, in_loop))]

    def st_break(self, env, depth, in_loop, top):
        if self.chance(7):
            return [If(self.cond_expr(env), (Break(),))]
        return [Break()]

    def st_continue(self, env, depth, in_loop, top):
        if self.chance(7):
            return [If(self.cond_expr(env), (Continue(),))]
        return [Continue()]

    def st_return(self, env, depth, in_loop, top):
        return [Return(self.return_values(env))]

    def element(self, env, cls, old=None):
        """A value to store in a container slot that held `old` (None: a new slot); None if no
        value of old's type can be found and types must stay."""
        value = self.expr(env, cls)
        if old is not None and not self.has("retype"):
            value = self.coerce(value, old, env)
            if value is None:
                return None
        value = self.stored(value, env)
        for alias in _bare_names(value):
            self.fresh_arrays.discard(alias)
        return value

    def st_list_new(self, env, depth, in_loop, top):
        name = self.fresh("l")
        if self.chance(5):
            value = self.element(env, self._cls_for_new(env))
            self.nonempty_lists.add(name)
            return [Assign(name, ListLit((value,)))]
        return [Assign(name, ListLit(()))]

    def st_append(self, env, depth, in_loop, top):
        name = self.pick(self.growable_lists(env))
        elem = env[name].elem
        cls = shape_class(elem) if elem is not None else self._cls_for_new(env)
        value = self.element(env, cls, elem)
        if value is None:
            return self.st_assign(env, depth, in_loop, top)
        return [Append(name, value)]

    def st_dict_new(self, env, depth, in_loop, top):
        name = self.fresh("d")
        keys = ["a", "b"][: self.src.integer(1, 2)]
        return [
            Assign(
                name, DictLit(tuple((k, self.element(env, self._cls_for_new(env))) for k in keys))
            )
        ]

    def st_dict_set(self, env, depth, in_loop, top):
        name = self.pick(sorted(n for n, r in env.items() if isinstance(r, ADict)))
        growable = name not in self.iterating  # no new key while `for k, v in d.items()` runs
        new_keys = ["c"] if (depth == 0 or self.has("retype")) and growable else []
        key = self.pick(sorted(env[name]) + new_keys)
        old = env[name].get(key)
        value = self.element(env, shape_class(old) if old is not None else "S", old)
        if value is None:
            return self.st_assign(env, depth, in_loop, top)
        return [SetItem(name, Lit(key), value)]

    def st_box_new(self, env, depth, in_loop, top):
        name = self.fresh("o")
        value = self.element(env, self._cls_for_new(env))
        return [Assign(name, Call("Box", ())), SetAttr(name, "a", value)]

    def st_box_set(self, env, depth, in_loop, top):
        name = self.pick(sorted(n for n, r in env.items() if isinstance(r, ABox)))
        attrs = sorted(env[name].attrs) + (["b"] if depth == 0 or self.has("retype") else [])
        attr = self.pick(sorted(set(attrs)))
        old = env[name].attrs.get(attr)
        value = self.element(env, shape_class(old) if old is not None else "S", old)
        if value is None:
            return self.st_assign(env, depth, in_loop, top)
        return [SetAttr(name, attr, value)]

    def st_closure(self, env, depth, in_loop, top):
        name = self.fresh("g")
        cls = self._cls_for_new(env)
        param = "t"
        inner = dict(env)
        inner[param] = env[self.values(env, "A")[0]] if cls == "A" else 1
        expr = self.expr(inner, self._cls_for_new(inner))
        closure = ClosureDef(name, param, expr)
        self.closure_classes[name] = cls
        return [closure]

    def st_inplace(self, env, depth, in_loop, top):
        name = self.pick(sorted(n for n in self.fresh_arrays if n in env))
        if self.chance(5):
            op = self.pick(["+", "-", "*"])
            return [AugAssign(name, op, self.expr(env, "S" if self.chance(5) else "A"))]
        index = Lit(self.pick([0, -1]))
        return [SetItem(name, index, self.expr(env, "S"))]


def _bare_names(e):
    """Names an expression may evaluate to (the value itself, not a copy)."""
    if isinstance(e, Name):
        return {e.id}
    if isinstance(e, IfExp):
        return _bare_names(e.body) | _bare_names(e.orelse)
    if isinstance(e, BoolOp):
        return _bare_names(e.left) | _bare_names(e.right)
    return set()


def _is_view(e):
    return isinstance(e, Index) or isinstance(e, Attr) or isinstance(e, Name)


def _truth_ok(rep):
    return not (isinstance(rep, np.ndarray) and rep.size != 1) and is_value(rep)


ARGS_BYTES = 64
BODY_BYTES = 400


def build_program(args_data: bytes, body_data: bytes, features=ALL_FEATURES) -> Program:
    """The program two byte strings stand for (deterministic)."""
    features = frozenset(features)
    params, calls = call_sets(Source(args_data), features)
    gen = Gen(Source(body_data), features, params, calls)
    gen.return_arity = gen.src.integer(1, 3)
    env = {p: a.representative() for p, a in zip(params, calls[0])}
    body = gen.function_body(env)
    if body is None:
        body = (Return((Name("x"),)),)
    return Program(tuple(gen.helpers), FuncDef("f", tuple(params), body), calls, features)


@st.composite
def programs(draw, features=ALL_FEATURES):
    """A Program using only `features` (a set of names from FEATURES)."""
    args_data = draw(st.binary(min_size=ARGS_BYTES, max_size=ARGS_BYTES))
    body_data = draw(st.binary(min_size=BODY_BYTES, max_size=BODY_BYTES))
    return build_program(args_data, body_data, features)
