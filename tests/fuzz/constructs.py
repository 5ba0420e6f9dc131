"""The generator's grammar for Python constructs beyond arithmetic and control flow (a mixin of Gen).

Container methods (lists, dicts, sets, deques, heapq), builtins over iterables, comprehensions,
a nested helper writing an enclosing variable with `nonlocal`, strings and f-strings, the
program's exception classes raised under staged conditions, `try` around operations that may
raise at run time, NumPy arrays made with `np.zeros` and filled in loops, and `math.*`. Each
family is a feature switch (features.py); `Gen` asks `more_expr_kinds`, `more_cond_kinds` and
`more_stmt_kinds` which of them apply where it builds an expression, a condition or a statement,
and calls the builders here by name (`ex_*`, `cond_*`, `st_*`).
"""

from __future__ import annotations

import numpy as np

from .analysis import ADeque, ADict, AList, ASet, type_key
from .program import (
    Assign,
    AugItem,
    BinOp,
    Call,
    Cmp,
    Comp,
    DictLit,
    ExprStmt,
    FField,
    For,
    FStr,
    Handler,
    If,
    Index,
    ListLit,
    Lit,
    Method,
    Name,
    NonlocalDef,
    NpAttr,
    Print,
    Raise,
    SetItem,
    SetLit,
    Try,
    Unary,
)

LIST_FEATURES = ("lists", "list_methods", "heaps", "iter_builtins")
_MATH_1 = [
    "math.sqrt",
    "math.exp",
    "math.log",
    "math.floor",
    "math.ceil",
    "math.trunc",
    "math.fabs",
    "math.isnan",
    "math.isfinite",
    "round",
    "abs",
]
_MATH_2 = ["math.isclose", "math.hypot", "math.atan2", "math.copysign", "math.fmod"]
_SPECS = ["", ".3f", ">8", "e", ".2e", "+.1f", "<7", "^9", "g", ".1%", "08.2f", ","]
_TEXT_SPECS = ["", ">12", "<10", "^14"]
_SEPARATORS = ["", " ", "=", "|", ", ", "x="]
_STR_LITS = ["a", "", "ab", "1.0", "nan", "0"]
# (exception expression, classes whose instances it catches, by the kind of risky operation)
_CATCH = {
    "raise": ["FuzzError", "ValueError", "Exception"],
    "limit": ["FuzzLimit", "ArithmeticError", "Exception"],
    "solve": ["np.linalg.LinAlgError", "ValueError", "Exception"],
    "zerodiv": ["ZeroDivisionError", "ArithmeticError", "(ZeroDivisionError, IndexError)"],
    "index": ["IndexError", "LookupError", "(ZeroDivisionError, IndexError)"],
    "math": ["ValueError", "OverflowError", "ArithmeticError", "(ValueError, OverflowError)"],
}
_ALL_CATCH = sorted({e for v in _CATCH.values() for e in v} | {"KeyError", "TypeError"})


def _is_str(rep):
    return isinstance(rep, str)


class MoreGrammar:
    """Builders for the constructs of this module; mixed into generate.Gen."""

    # -- what applies where ---------------------------------------------------------------

    def more_expr_kinds(self, env, cls, depth, py_only):
        if py_only or depth >= self.MAX_EXPR_DEPTH:
            return []
        kinds = []
        if cls == "S" and self.has("math"):
            kinds += ["math"]
        if self.has("comprehensions") and self.comp_iters(env) and (cls == "S" or self.arrays(env)):
            kinds += ["comp"]
        if cls == "S" and self.has("iter_builtins") and self.reducible(env):
            kinds += ["iter_reduce"]
        if cls == "S" and self.has("list_methods") and self.poppable(env):
            kinds += ["pop"]
        if cls == "S" and self.has("dict_methods") and self.dicts(env):
            kinds += ["dict_get"]
        if cls == "S" and self.sized(env) and (self.has("sets") or self.has("deques")):
            kinds += ["clen"]
        return kinds

    def more_cond_kinds(self, env, cls, depth):
        if cls != "S":
            return []
        kinds = []
        if self.membership_targets(env):
            kinds += ["contains"]
        if self.truthy_containers(env):
            kinds += ["ctruth"]
        if self.has("strings") and not self.in_field:  # no f-string inside an f-string
            kinds += ["streq"]
        if self.has("math") and depth < self.MAX_EXPR_DEPTH:
            kinds += ["mathtest"]
        if self.has("comprehensions") and self.comp_iters(env) and depth < self.MAX_EXPR_DEPTH:
            kinds += ["anygen"]
        return kinds

    def more_stmt_kinds(self, env, depth, in_loop, top):
        kinds = []
        if not self.has("lists") and any(self.has(f) for f in LIST_FEATURES):
            kinds += ["list_new"]
        if self.has("list_methods") and self.mutable(env, AList):
            kinds += ["list_method", "list_method"]
        if self.has("heaps"):
            kinds += ["heap_op"]
        if self.has("dict_methods"):
            kinds += ["dict_new"] if not self.has("dicts") else []
            kinds += ["dict_method"] if self.dicts(env) else []
            if depth < self.max_depth and self.iterable_dicts(env):
                kinds += ["dict_items"]
        if self.has("sets"):
            kinds += ["set_new"] + (["set_op", "set_op"] if self.mutable(env, ASet) else [])
        if self.has("deques"):
            kinds += ["deque_new"] + (["deque_op", "deque_op"] if self.mutable(env, ADeque) else [])
        if self.has("comprehensions") and self.comp_iters(env):
            kinds += ["comp_list"]
        if self.has("nonlocal") and top and not self.in_helper and self.nonlocal_targets(env):
            kinds += ["nonlocal_def"]
        if self.nonlocal_helpers(env):
            kinds += ["nonlocal_call", "nonlocal_call"]
        if self.has("strings"):
            kinds += ["str_new"] + (["str_update"] if self.str_names(env, assignable=True) else [])
        if self.has("raise") and (depth > 0 or self.values(env)):
            kinds += ["raise"]
        if self.has("try") and depth < self.max_depth:
            kinds += ["try", "try"]
        if self.has("fill_arrays"):
            kinds += ["fill"] if depth < self.max_depth else []
            kinds += ["bump", "bump"] if self.filled_arrays(env) else []
        return kinds

    # -- what is in scope ------------------------------------------------------------------

    def arrays(self, env):
        return self.values(env, "A")

    def mutable(self, env, kind):
        return sorted(n for n, r in env.items() if type(r) is kind and n not in self.iterating)

    def dicts(self, env):
        return sorted(n for n, r in env.items() if isinstance(r, ADict) and r)

    def iterable_dicts(self, env):
        return [n for n in self.dicts(env) if n not in self.iterating]

    def sized(self, env):
        return sorted(n for n, r in env.items() if isinstance(r, (AList, ADict)))

    def poppable(self, env):
        return [n for n in self.mutable(env, AList) if env[n].elem is not None]

    def reducible(self, env):
        """Containers and arrays whose items sum, min, max and sorted take."""
        out = [n for n, r in env.items() if isinstance(r, AList) and r.elem is not None]
        return sorted(out) + self.arrays(env)

    def membership_targets(self, env):
        kinds = {
            ASet: "sets",
            ADeque: "deques",
            AList: "list_methods",
        }
        out = [n for n, r in env.items() if self.has(kinds.get(type(r), "")) and r.elem is not None]
        if self.has("dict_methods"):
            out += self.dicts(env)
        return sorted(out)

    def truthy_containers(self, env):
        kinds = {ASet: "sets", ADeque: "deques", AList: "list_methods"}
        return sorted(n for n, r in env.items() if self.has(kinds.get(type(r), "")))

    def comp_iters(self, env):
        """Iterables a comprehension may go over."""
        out = [Name(n) for n in self.arrays(env)]
        out += [
            Name(n) for n in self.mutable(env, AList) if env[n].elem is not None
        ]  # not grown while the comprehension runs
        if not self.in_helper:
            out.append(Call("range", (Name("n"),)))
        out.append(Call("range", (Lit(3),)))
        return out

    def str_names(self, env, assignable=False):
        return sorted(
            n
            for n, r in env.items()
            if _is_str(r) and not (assignable and (n in self.params or n in self.counters))
        )

    def nonlocal_targets(self, env):
        return [n for n in self.assignable(env) if not n.startswith(("i", "e", "c"))]

    def nonlocal_helpers(self, env):
        return sorted(n for n, r in env.items() if isinstance(r, tuple) and r[:1] == ("nonlocal",))

    def filled_arrays(self, env):
        return sorted(n for n in self.filled if n in env and isinstance(env[n], np.ndarray))

    def int_names(self, env):
        """Scalars of an integer or bool type (an index once taken modulo a length)."""
        out = []
        for n in self.values(env, "S"):
            rep = env[n]
            if isinstance(rep, (bool, int, np.integer, np.bool_)):
                out.append(n)
            elif isinstance(rep, np.ndarray) and rep.dtype.kind in "biu":
                out.append(n)
        return out

    def scalar(self, env, depth=1):
        return self.expr(env, "S", depth)

    # -- expressions ---------------------------------------------------------------------

    def ex_math(self, env, cls, depth, py_only):
        if self.chance(6):
            func = self.pick(_MATH_1)
            if func == "round" and self.chance(4):
                return Call("round", (self.operand(env, "S", depth, False), Lit(2)))
            return Call(func, (self.operand(env, "S", depth, False),))
        choice = self.pick(["two", "divmod", "pow"])
        a = self.operand(env, "S", depth, False)
        if choice == "pow":
            rep = self.rep(a, env)
            if isinstance(rep, int) and not isinstance(rep, np.generic):
                return None  # Python int powers in loops grow without bound
            return Call("pow", (a, Lit(self.pick([2, 3]))))
        b = self.operand(env, "S", depth, False)
        if choice == "divmod":
            return Index(Call("divmod", (a, b)), Lit(self.pick([0, 1])))
        return Call(self.pick(_MATH_2), (a, b))

    def comp(self, env, kind, depth, elt_cls="S", cond=True, iters=None):
        iters = iters or self.comp_iters(env)
        it = self.pick(iters)
        var = self.fresh("c")
        inner = dict(env)
        rep = self.rep(it, env)
        if isinstance(rep, np.ndarray):
            inner[var] = rep[0]
        elif isinstance(rep, AList):
            inner[var] = rep.elem
        else:
            inner[var] = 1
        elt = self.expr(inner, elt_cls, depth + 1)
        test = self.cond_expr(inner, depth + 1) if cond and self.chance(5) else None
        return Comp(kind, elt, var, it, test)

    def ex_comp(self, env, cls, depth, py_only):
        if cls == "A":
            arr = Name(self.pick(self.arrays(env)))
            return Call("np.array", (self.comp(env, "list", depth, cond=False, iters=[arr]),))
        choice = self.pick(["sum", "count", "len", "extreme"])
        if choice == "sum":
            return Call("sum", (self.comp(env, "gen", depth),))
        if choice == "count":
            c = self.comp(env, "gen", depth)
            return Call("sum", (Comp("gen", Lit(1), c.var, c.iter, c.cond),))
        if choice == "len":
            return Call("len", (self.comp(env, "list", depth),))
        return Call(self.pick(["max", "min"]), (self.comp(env, "list", depth, cond=False),))

    def ex_iter_reduce(self, env, cls, depth, py_only):
        name = Name(self.pick(self.reducible(env)))
        choice = self.pick(["sum", "min", "max", "sorted"])
        if choice == "sorted":
            return Index(Call("sorted", (name,)), Lit(self.pick([0, -1])))
        return Call(choice, (name,))

    def ex_pop(self, env, cls, depth, py_only):
        name = self.pick(self.poppable(env))
        self.nonempty_lists.discard(name)
        return Method(Name(name), "pop", (Lit(0),) if self.chance(3) else ())

    def ex_dict_get(self, env, cls, depth, py_only):
        name = self.pick(self.dicts(env))
        key = self.pick(sorted(env[name]) + ["z"])
        old = env[name].get(key)
        default = self.expr(env, "S", depth + 1)
        if old is not None and not self.has("retype"):
            default = self.coerce(default, old, env) or default
        if key == "z" and self.chance(3):
            return Method(Name(name), "get", (Lit(key),))  # None: not a value, falls back
        return Method(Name(name), "get", (Lit(key), default))

    def ex_clen(self, env, cls, depth, py_only):
        return Call("len", (Name(self.pick(self.sized(env))),))

    # -- conditions ----------------------------------------------------------------------

    def cond_contains(self, env, depth):
        name = self.pick(self.membership_targets(env))
        rep = env[name]
        if isinstance(rep, ADict):
            key = Lit(self.pick(sorted(rep) + ["z"]))
            return Cmp(self.pick(["in", "not in"]), key, Name(name))
        value = self.expr(env, shape_of(rep.elem), depth + 1)
        return Cmp(self.pick(["in", "not in"]), value, Name(name))

    def cond_ctruth(self, env, depth):
        name = Name(self.pick(self.truthy_containers(env)))
        return Unary("not", name) if self.chance(4) else name

    def cond_streq(self, env, depth):
        return Cmp(self.pick(["==", "!="]), self.str_expr(env, depth + 1), self.str_expr(env, 2))

    def cond_mathtest(self, env, depth):
        a = self.expr(env, "S", depth + 1)
        if self.chance(5):
            return Call(self.pick(["math.isnan", "math.isfinite", "math.isinf"]), (a,))
        return Call("math.isclose", (a, self.expr(env, "S", depth + 1)))

    def cond_anygen(self, env, depth):
        iters = self.comp_iters(env)
        it = self.pick(iters)
        var = self.fresh("c")
        inner = dict(env)
        rep = self.rep(it, env)
        inner[var] = (
            rep[0] if isinstance(rep, np.ndarray) else rep.elem if isinstance(rep, AList) else 1
        )
        return Call(
            self.pick(["any", "all"]), (Comp("gen", self.cond_expr(inner, depth + 1), var, it),)
        )

    # -- strings -------------------------------------------------------------------------

    def str_expr(self, env, depth=0):
        kinds = ["lit", "conv"]
        if self.str_names(env):
            kinds += ["name", "name"]
        if self.has("fstrings"):
            kinds += ["fstr", "fstr"]
        if depth < 2:
            kinds += ["concat"]
        kind = self.pick(kinds)
        if kind == "lit":
            return Lit(self.pick(_STR_LITS))
        if kind == "name":
            return Name(self.pick(self.str_names(env)))
        if kind == "conv":
            value = self.expr(env, self._cls_for_new(env), 1)
            return Call(self.pick(["str", "repr"]), (value,))
        if kind == "fstr":
            return self.fstring(env)
        return BinOp("+", self.str_expr(env, depth + 1), self.str_expr(env, depth + 1))

    def fstring(self, env):
        parts = []
        for _ in range(self.src.integer(1, 3)):
            sep = self.pick(_SEPARATORS)
            if sep:
                parts.append(sep)
            parts.append(self.field(env))
        return FStr(tuple(parts))

    in_field = False

    def field(self, env):
        self.in_field = True
        try:
            value = self.expr(env, self._cls_for_new(env), 1)
        finally:
            self.in_field = False
        rep = self.rep(value, env)
        conv = self.pick(["", "", "", "r", "s"])
        if conv or not np.ndim(rep) == 0:
            spec = self.pick(_TEXT_SPECS) if conv else ""
        else:
            spec = self.pick(_SPECS)
        node = FField(value, conv, spec)
        if self.rep(FStr((node,)), env) is None:
            node = FField(value, conv, "")
        return node

    def st_str_new(self, env, depth, in_loop, top):
        return [Assign(self.fresh("t"), self.str_expr(env))]

    def st_str_update(self, env, depth, in_loop, top):
        name = self.pick(self.str_names(env, assignable=True))
        if self.chance(6):
            return [Assign(name, BinOp("+", Name(name), self.str_expr(env, 1)))]
        return [Assign(name, self.str_expr(env))]

    # -- containers ----------------------------------------------------------------------

    def typed_element(self, env, elem, cls=None):
        """A value for a container whose elements are like `elem` (None: any scalar)."""
        cls = cls or (shape_of(elem) if elem is not None else "S")
        return self.element(env, cls, elem)

    def st_list_method(self, env, depth, in_loop, top):
        name = self.pick(self.mutable(env, AList))
        elem = env[name].elem
        choice = self.pick(["pop", "extend", "insert", "remove", "pop_assign"])
        if choice in ("pop", "pop_assign") and elem is not None:
            self.nonempty_lists.discard(name)
            call = Method(Name(name), "pop", (Lit(self.pick([0, -1])),) if self.chance(3) else ())
            if choice == "pop":
                return [ExprStmt(call)]
            return [Assign(self.fresh("v"), call)]
        value = self.typed_element(env, elem)
        if value is None:
            return self.st_assign(env, depth, in_loop, top)
        if choice == "extend":
            other = self.typed_element(env, self.rep(value, env) if elem is None else elem)
            items = (value,) if other is None else (value, other)
            return [ExprStmt(Method(Name(name), "extend", (ListLit(items),)))]
        if choice == "insert" or elem is None:
            index = Lit(self.pick([0, -1, 1, 5]))
            return [ExprStmt(Method(Name(name), "insert", (index, value)))]
        self.nonempty_lists.discard(name)
        guard = Cmp("in", value, Name(name))
        removal = ExprStmt(Method(Name(name), "remove", (value,)))
        return [If(guard, (removal,))] if self.chance(7) else [removal]

    def st_heap_op(self, env, depth, in_loop, top):
        heaps = [n for n in self.mutable(env, AList) if _orderable(env[n].elem)]
        if not heaps:
            return self.st_list_new(env, depth, in_loop, top)
        name = self.pick(heaps)
        elem = env[name].elem
        if elem is not None and self.chance(4):
            self.nonempty_lists.discard(name)
            pop = Call("heapq.heappop", (Name(name),))
            return [Assign(self.fresh("v"), pop)] if self.chance(6) else [ExprStmt(pop)]
        value = self.typed_element(env, elem, "S")
        if value is None or not _orderable(self.rep(value, env)):
            return self.st_assign(env, depth, in_loop, top)
        return [ExprStmt(Call("heapq.heappush", (Name(name), value)))]

    def st_dict_method(self, env, depth, in_loop, top):
        name = self.pick(self.dicts(env))
        rep = env[name]
        new_keys = ["c"] if depth == 0 or self.has("retype") else []
        changing = name not in self.iterating
        choice = self.pick(["get", "pop_default"] + (["setdefault", "update"] if changing else []))
        if choice == "pop_default" and changing and depth == 0 and len(rep) > 1 and self.chance(4):
            return [
                Assign(self.fresh("v"), Method(Name(name), "pop", (Lit(self.pick(sorted(rep))),)))
            ]
        key = self.pick(sorted(rep) + (new_keys if changing else []))
        old = rep.get(key)
        value = self.typed_element(env, old)
        if value is None:
            return self.st_assign(env, depth, in_loop, top)
        if choice == "get":
            return [Assign(self.fresh("v"), Method(Name(name), "get", (Lit(key), value)))]
        if choice == "pop_default":
            return [Assign(self.fresh("v"), Method(Name(name), "pop", (Lit("z"), value)))]
        if choice == "setdefault":
            return [ExprStmt(Method(Name(name), "setdefault", (Lit(key), value)))]
        return [ExprStmt(Method(Name(name), "update", (DictLit(((key, value),)),)))]

    def st_dict_items(self, env, depth, in_loop, top):
        name = self.pick(self.iterable_dicts(env))
        rep = env[name]
        first = next(iter(rep.values()))
        if not self.has("retype") and any(type_key(v) != type_key(first) for v in rep.values()):
            return self.st_assign(env, depth, in_loop, top)
        k, v = self.fresh("k"), self.fresh("e")
        inner = dict(env)
        inner[k], inner[v] = next(iter(rep)), first
        self.iterating.add(name)
        try:
            body = self._loop_body(inner, depth)
        finally:
            self.iterating.discard(name)
        return [For(f"{k}, {v}", Method(Name(name), "items", ()), body)]

    def st_set_new(self, env, depth, in_loop, top):
        name = self.fresh("s")
        if self.chance(5):
            return [Assign(name, Call("set", ()))]
        items = [self.set_element(env, None)]
        if self.chance(5):
            items.append(self.set_element(env, self.rep(items[0], env)))
        return [Assign(name, SetLit(tuple(i for i in items if i is not None) or (Lit(1),)))]

    def set_element(self, env, elem):
        value = self.typed_element(env, elem, "S")
        rep = self.rep(value, env) if value is not None else None
        if rep is None or isinstance(rep, np.ndarray):
            return Lit(self.pick([1, 2, 0]))
        return value

    def st_set_op(self, env, depth, in_loop, top):
        name = self.pick(self.mutable(env, ASet))
        value = self.set_element(env, env[name].elem)
        return [ExprStmt(Method(Name(name), self.pick(["add", "add", "discard"]), (value,)))]

    def st_deque_new(self, env, depth, in_loop, top):
        name = self.fresh("q")
        if self.chance(5):
            value = self.typed_element(env, None, self._cls_for_new(env))
            if value is not None:
                return [Assign(name, Call("collections.deque", (ListLit((value,)),)))]
        return [Assign(name, Call("collections.deque", ()))]

    def st_deque_op(self, env, depth, in_loop, top):
        name = self.pick(self.mutable(env, ADeque))
        elem = env[name].elem
        if elem is not None and self.chance(4):
            call = Method(Name(name), self.pick(["pop", "popleft"]), ())
            return [Assign(self.fresh("v"), call)] if self.chance(5) else [ExprStmt(call)]
        value = self.typed_element(env, elem)
        if value is None:
            return self.st_assign(env, depth, in_loop, top)
        return [ExprStmt(Method(Name(name), self.pick(["append", "appendleft"]), (value,)))]

    def st_comp_list(self, env, depth, in_loop, top):
        return [Assign(self.fresh("l"), self.comp(env, "list", 0, self._cls_for_new(env)))]

    # -- nonlocal ------------------------------------------------------------------------

    def st_nonlocal_def(self, env, depth, in_loop, top):
        target = self.pick(self.nonlocal_targets(env))
        old = env[target]
        cls = "A" if self.arrays(env) and self.chance(3) else "S"
        inner = dict(env)
        inner["t"] = env[self.arrays(env)[0]] if cls == "A" else 1
        value = self.expr(inner, shape_of(old))
        if not self.has("retype"):
            value = self.coerce(value, old, inner) or Name(target)
        name = self.fresh("g")
        self.nonlocal_classes[name] = cls
        return [NonlocalDef(name, "t", target, value)]

    def st_nonlocal_call(self, env, depth, in_loop, top):
        name = self.pick(self.nonlocal_helpers(env))
        return [ExprStmt(Call(name, (self.expr(env, self.nonlocal_classes[name]),)))]

    # -- exceptions ----------------------------------------------------------------------

    def raise_stmt(self, env):
        cls = self.pick(["FuzzError", "FuzzError", "FuzzLimit", "ValueError"])
        value = self.expr(env, self._cls_for_new(env), 1)
        if cls == "FuzzLimit":
            return Raise(cls, (value,)), "limit"
        tag = Lit(f"r{self.fresh('')}")
        if self.has("fstrings") and self.chance(3):
            return Raise(cls, (self.fstring(env),)), "raise"
        return Raise(cls, (tag, value) if self.chance(6) else (tag,)), "raise"

    def st_raise(self, env, depth, in_loop, top):
        stmt, _ = self.raise_stmt(env)
        if depth > 0 and self.chance(2):
            return [stmt]
        return [If(self.cond_expr(env), (stmt,))]

    def risky(self, env):
        """(statements that may raise at run time, the kind of error)."""
        kinds = ["zerodiv", "index", "solve"]
        if self.has("raise"):
            kinds += ["raise", "raise"]
        if self.has("math"):
            kinds += ["math"]
        kind = self.pick(kinds)
        target = self.fresh("v")
        if kind == "raise":
            stmt, kind = self.raise_stmt(env)
            return [If(self.cond_expr(env), (stmt,))], kind
        if kind == "zerodiv":
            divisor = Call(self.pick(["int", "int", "float"]), (self.scalar(env),))
            numerator = Lit(self.pick([7, 1, -3, 2.5]))
            return [Assign(target, BinOp(self.pick(["//", "%", "/"]), numerator, divisor))], kind
        if kind == "index":
            seqs = self.arrays(env) + [
                n for n in self.mutable(env, AList) if env[n].elem is not None
            ]
            if not seqs:
                return self.risky(env)
            index = Name("n") if self.chance(3) else Call("int", (self.scalar(env),))
            return [Assign(target, Index(Name(self.pick(seqs)), index))], kind
        if kind == "math":
            func = self.pick(["math.sqrt", "math.log", "math.acos", "math.exp"])
            return [Assign(target, Call(func, (self.scalar(env),)))], kind
        matrix = BinOp("-", BinOp("*", Call("np.eye", (Lit(2),)), self.scalar(env)), Lit(1.0))
        solve = Call("np.linalg.solve", (matrix, Call("np.ones", (Lit(2),))))
        return [Assign(target, Index(solve, Lit(self.pick([0, 1]))))], kind

    def handler(self, env, depth, in_loop, kind):
        exc = self.pick(_CATCH[kind]) if self.chance(7) else self.pick(_ALL_CATCH)
        name = self.fresh("x") if self.chance(4) else None
        body, _ = self.block(dict(env), depth + 1, in_loop, min_len=0, max_len=2)
        if name and self.has("print") and self.anchor and not self.in_helper:
            body = body + (Print((Lit(f"p{self.fresh('')}"), Name(name), Name(self.anchor[0]))),)
        return Handler(exc, name, body)

    def st_try(self, env, depth, in_loop, top):
        risky_first = self.chance(3)
        body, after = self.block(dict(env), depth + 1, in_loop, min_len=0, max_len=2)
        risky_env = env if risky_first or after is None else after
        risky, kind = self.risky(risky_env)
        body = tuple(risky) + body if risky_first or after is None else body + tuple(risky)
        handlers = [self.handler(env, depth, in_loop, kind)]
        if self.chance(3):
            handlers.append(self.handler(env, depth, in_loop, self.pick(sorted(_CATCH))))
        orelse = self.sub_block(env, depth, in_loop, min_len=0) if self.chance(3) else ()
        final = self.sub_block(env, depth, in_loop, min_len=0) if self.chance(3) else ()
        return [Try(body, tuple(handlers), orelse, final)]

    # -- arrays filled in loops ----------------------------------------------------------

    def st_fill(self, env, depth, in_loop, top):
        name, i = self.fresh("o"), self.fresh("i")
        arrays = self.arrays(env)
        length = Call("len", (Name(arrays[0]),)) if arrays and self.chance(6) else Lit(3)
        args = (length,)
        if self.chance(4):
            args += (NpAttr(self.pick(["int64", "float64", "complex128", "int32", "float32"])),)
        make = Assign(name, Call("np.zeros", args))
        inner = dict(env)
        inner[name] = self.rep(make.value, env)
        inner[i] = 1
        value = self.expr(inner, "S")
        rest = self.sub_block(inner, depth, True, min_len=0) if self.chance(3) else ()
        loop = For(i, Call("range", (length,)), (SetItem(name, Name(i), value),) + rest)
        self.filled.add(name)
        self.fresh_arrays.add(name)
        return [make, loop]

    def st_bump(self, env, depth, in_loop, top):
        name = self.pick(self.filled_arrays(env))
        ints = self.int_names(env)
        if ints and self.chance(7):
            index = Name(self.pick(ints))
        else:
            index = Call("int", (self.scalar(env),))
        index = BinOp("%", index, Call("len", (Name(name),)))
        value = Lit(1) if self.chance(6) else self.scalar(env)
        return [AugItem(name, index, self.pick(["+", "+", "-"]), value)]


def shape_of(rep):
    return "A" if isinstance(rep, np.ndarray) and rep.ndim >= 1 else "S"


def _orderable(rep):
    if rep is None:
        return True
    if isinstance(rep, (complex, np.complexfloating)) or isinstance(rep, np.ndarray):
        return False
    return isinstance(rep, (bool, int, float, np.generic))
