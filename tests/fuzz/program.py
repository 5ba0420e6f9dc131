"""Generated programs: a small syntax tree, its Python source and the arguments `f` is called with.

A program is a module with a `Box` class, helper functions and `f`, plus the argument sets
`f` is called with. Everything is plain frozen data, so a program can be printed, compared,
shrunk and rebuilt. `analysis.py` decides whether a program is dtype-stable.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

# -- expressions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Name:
    id: str


@dataclass(frozen=True)
class Lit:
    value: object  # bool, int, float, complex or str


@dataclass(frozen=True)
class NpAttr:
    """`np.<name>` used as a value (a dtype such as np.float32)."""

    name: str


@dataclass(frozen=True)
class BinOp:
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class Cmp:
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class Unary:
    op: str  # "-", "~", "not"
    operand: object


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and", "or"
    left: object
    right: object


@dataclass(frozen=True)
class IfExp:
    test: object
    body: object
    orelse: object


@dataclass(frozen=True)
class Call:
    func: str  # "np.sum", "abs", "len", "h0", "g1", "Box", ...
    args: tuple


@dataclass(frozen=True)
class ListLit:
    items: tuple


@dataclass(frozen=True)
class DictLit:
    items: tuple  # ((str key, value), ...)


@dataclass(frozen=True)
class Method:
    obj: object
    name: str
    args: tuple


@dataclass(frozen=True)
class Attr:
    obj: object
    name: str


@dataclass(frozen=True)
class Index:
    obj: object
    index: object


@dataclass(frozen=True)
class SetLit:
    """`{a, b}`, or `set()` when empty."""

    items: tuple


@dataclass(frozen=True)
class FField:
    """One replacement field of an f-string: `{value!conv:spec}`."""

    value: object
    conv: str = ""  # "", "r" or "s"
    spec: str = ""


@dataclass(frozen=True)
class FStr:
    """An f-string: literal text (str) and replacement fields (FField) in order."""

    parts: tuple


@dataclass(frozen=True)
class Comp:
    """`[elt for var in iter if cond]` (kind "list") or `(elt for var in iter if cond)` ("gen")."""

    kind: str
    elt: object
    var: str
    iter: object
    cond: object = None


# -- statements -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Assign:
    target: str
    value: object


@dataclass(frozen=True)
class AugAssign:
    target: str
    op: str
    value: object


@dataclass(frozen=True)
class SetItem:
    target: str
    index: object
    value: object


@dataclass(frozen=True)
class SetAttr:
    target: str
    attr: str
    value: object


@dataclass(frozen=True)
class Append:
    target: str
    value: object


@dataclass(frozen=True)
class If:
    test: object
    body: tuple
    elifs: tuple = ()  # ((test, body), ...)
    orelse: tuple = ()


@dataclass(frozen=True)
class While:
    """`counter = 0; while counter < bound [and extra]: counter += 1; body`: always terminates."""

    counter: str
    bound: object
    extra: object
    body: tuple
    orelse: tuple = ()


@dataclass(frozen=True)
class For:
    target: str
    iter: object
    body: tuple
    orelse: tuple = ()


@dataclass(frozen=True)
class Break:
    pass


@dataclass(frozen=True)
class Continue:
    pass


@dataclass(frozen=True)
class Return:
    values: tuple


@dataclass(frozen=True)
class Print:
    args: tuple


@dataclass(frozen=True)
class ClosureDef:
    """`def name(param): return expr`, reading the enclosing function's variables."""

    name: str
    param: str
    expr: object


@dataclass(frozen=True)
class NonlocalDef:
    """`def name(param): nonlocal target; target = expr`: a helper writing f's variable."""

    name: str
    param: str
    target: str
    expr: object


@dataclass(frozen=True)
class ExprStmt:
    """An expression evaluated for its effect (`l.pop()`, `heapq.heappush(h, v)`, `g(v)`)."""

    value: object


@dataclass(frozen=True)
class AugItem:
    """`target[index] op= value`."""

    target: str
    index: object
    op: str
    value: object


@dataclass(frozen=True)
class Raise:
    """`raise cls(args...)`."""

    cls: str
    args: tuple


@dataclass(frozen=True)
class Handler:
    """`except exc as name:` (name may be None) and its body."""

    exc: str
    name: object
    body: tuple


@dataclass(frozen=True)
class Try:
    body: tuple
    handlers: tuple  # Handlers
    orelse: tuple = ()
    finalbody: tuple = ()


@dataclass(frozen=True)
class FuncDef:
    name: str
    params: tuple
    body: tuple


# -- arguments ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arg:
    """One argument value. kind: "py" (a Python scalar), "np" (a NumPy scalar), "0d" (a 0-d
    array) or "arr" (a 1-d array). dtype: a NumPy dtype name, or the Python type's name."""

    kind: str
    dtype: str
    value: object  # a Python scalar, or a tuple of them for "arr"

    def build(self):
        with warnings.catch_warnings():  # 7e4 overflows float16 to inf on purpose
            warnings.simplefilter("ignore")
            return self._build()

    def _build(self):
        if self.kind == "py":
            return {"bool": bool, "int": int, "float": float, "complex": complex}[self.dtype](
                self.value
            )
        if self.kind == "np":
            return np.dtype(self.dtype).type(self.value)
        if self.kind == "0d":
            return np.array(self.value, dtype=self.dtype)
        return np.array(list(self.value), dtype=self.dtype)

    def source(self) -> str:
        if self.kind == "py":
            return _py_literal(self.value)
        if self.kind == "np":
            return f"np.{self.dtype}({_py_literal(self.value)})"
        if self.kind == "0d":
            return f"np.array({_py_literal(self.value)}, dtype=np.{self.dtype})"
        items = ", ".join(_py_literal(v) for v in self.value)
        return f"np.array([{items}], dtype=np.{self.dtype})"

    def representative(self):
        """A value of the same type and shape (the abstract interpreter's stand-in); a Python
        argument stands for itself (it is part of the trace key, a constant in the trace)."""
        if self.kind == "py":  # a constant while tracing: its own value
            return self.build()
        if self.kind == "np":
            return np.dtype(self.dtype).type(1)
        if self.kind == "0d":
            return np.ones((), self.dtype)
        return np.ones(len(self.value), self.dtype)

    def signature(self):
        if self.kind == "py":
            return ("py", self.dtype, self.value)
        if self.kind == "arr":
            return ("arr", self.dtype, len(self.value))
        return (self.kind, self.dtype)


@dataclass(frozen=True, repr=False)
class Program:
    helpers: tuple  # FuncDefs
    main: FuncDef
    calls: tuple  # tuples of Args, one per call, in call order
    features: frozenset = field(default_factory=frozenset, compare=False)

    def source(self) -> str:
        return render_module(self)

    def signatures(self):
        """The distinct input signatures of the calls (one trace each, when staged)."""
        seen = []
        for call in self.calls:
            sig = tuple(a.signature() for a in call)
            if sig not in seen:
                seen.append(sig)
        return seen

    def __repr__(self):
        return f"Program(\n{self.source()}\n{self.call_source()}\n)"

    def call_source(self) -> str:
        return "\n".join(f"f({', '.join(a.source() for a in call)})" for call in self.calls)


def _py_literal(value) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if isinstance(value, complex):
        return f"complex({_py_literal(value.real)}, {_py_literal(value.imag)})"
    return repr(value)


# -- rendering ------------------------------------------------------------------------------


def expr_source(e, top=True) -> str:
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Lit):
        if isinstance(e.value, str):
            return repr(e.value)
        text = _lit_source(e.value)
        return text if top or not text.startswith("-") and "+" not in text else f"({text})"
    if isinstance(e, NpAttr):
        return f"np.{e.name}"
    if isinstance(e, Call):
        if len(e.args) == 1 and isinstance(e.args[0], Comp) and e.args[0].kind == "gen":
            return f"{e.func}({_comp_source(e.args[0])})"  # `sum(v for v in x)`
        return f"{e.func}({', '.join(expr_source(a) for a in e.args)})"
    if isinstance(e, SetLit):
        return "{" + ", ".join(expr_source(a) for a in e.items) + "}" if e.items else "set()"
    if isinstance(e, FStr):
        return _fstring_source(e)
    if isinstance(e, Comp):
        text = _comp_source(e)
        return f"[{text}]" if e.kind == "list" else f"({text})"
    if isinstance(e, ListLit):
        return f"[{', '.join(expr_source(a) for a in e.items)}]"
    if isinstance(e, DictLit):
        return "{" + ", ".join(f"{k!r}: {expr_source(v)}" for k, v in e.items) + "}"
    if isinstance(e, Method):
        return f"{_atom(e.obj)}.{e.name}({', '.join(expr_source(a) for a in e.args)})"
    if isinstance(e, Attr):
        return f"{_atom(e.obj)}.{e.name}"
    if isinstance(e, Index):
        return f"{_atom(e.obj)}[{expr_source(e.index)}]"
    if isinstance(e, (BinOp, Cmp, BoolOp)):
        text = f"{expr_source(e.left, False)} {e.op} {expr_source(e.right, False)}"
    elif isinstance(e, Unary):
        sep = " " if e.op == "not" else ""
        text = f"{e.op}{sep}{expr_source(e.operand, False)}"
    elif isinstance(e, IfExp):
        text = f"{expr_source(e.body, False)} if {expr_source(e.test, False)} else {expr_source(e.orelse, False)}"
    else:
        raise TypeError(f"not an expression: {e!r}")
    return text if top else f"({text})"


def _comp_source(e: Comp) -> str:
    text = f"{expr_source(e.elt)} for {e.var} in {expr_source(e.iter)}"
    if e.cond is not None:
        text += f" if {expr_source(e.cond, False)}"
    return text


def _fstring_source(e: FStr) -> str:
    out = []
    for part in e.parts:
        if isinstance(part, str):
            out.append(part.replace("{", "{{").replace("}", "}}"))
            continue
        inner = expr_source(part.value)
        if inner.startswith("{"):
            inner = " " + inner
        conv = f"!{part.conv}" if part.conv else ""
        spec = f":{part.spec}" if part.spec else ""
        out.append("{" + inner + conv + spec + "}")
    return 'f"' + "".join(out) + '"'


def _atom(e) -> str:
    text = expr_source(e, top=False)
    if isinstance(e, Lit) and not text.startswith("("):
        return f"({text})"
    return text


def _lit_source(v) -> str:
    if isinstance(v, complex):
        if v.real == 0:
            return f"{v.imag!r}j"
        sign = "+" if v.imag >= 0 else "-"
        return f"{v.real!r} {sign} {abs(v.imag)!r}j"
    return repr(v)


def stmt_lines(s, indent: int) -> list:
    pad = "    " * indent
    if isinstance(s, Assign):
        return [f"{pad}{s.target} = {expr_source(s.value)}"]
    if isinstance(s, AugAssign):
        return [f"{pad}{s.target} {s.op}= {expr_source(s.value)}"]
    if isinstance(s, SetItem):
        return [f"{pad}{s.target}[{expr_source(s.index)}] = {expr_source(s.value)}"]
    if isinstance(s, SetAttr):
        return [f"{pad}{s.target}.{s.attr} = {expr_source(s.value)}"]
    if isinstance(s, Append):
        return [f"{pad}{s.target}.append({expr_source(s.value)})"]
    if isinstance(s, Break):
        return [f"{pad}break"]
    if isinstance(s, Continue):
        return [f"{pad}continue"]
    if isinstance(s, Return):
        return [f"{pad}return {', '.join(expr_source(v) for v in s.values)}"]
    if isinstance(s, Print):
        return [f"{pad}print({', '.join(expr_source(a) for a in s.args)})"]
    if isinstance(s, ClosureDef):
        return [f"{pad}def {s.name}({s.param}):", f"{pad}    return {expr_source(s.expr)}"]
    if isinstance(s, NonlocalDef):
        return [
            f"{pad}def {s.name}({s.param}):",
            f"{pad}    nonlocal {s.target}",
            f"{pad}    {s.target} = {expr_source(s.expr)}",
        ]
    if isinstance(s, ExprStmt):
        return [f"{pad}{expr_source(s.value)}"]
    if isinstance(s, AugItem):
        return [f"{pad}{s.target}[{expr_source(s.index)}] {s.op}= {expr_source(s.value)}"]
    if isinstance(s, Raise):
        return [f"{pad}raise {s.cls}({', '.join(expr_source(a) for a in s.args)})"]
    if isinstance(s, Try):
        return _try_lines(s, indent)
    if isinstance(s, If):
        lines = [f"{pad}if {expr_source(s.test)}:"] + block_lines(s.body, indent + 1)
        for test, body in s.elifs:
            lines += [f"{pad}elif {expr_source(test)}:"] + block_lines(body, indent + 1)
        if s.orelse:
            lines += [f"{pad}else:"] + block_lines(s.orelse, indent + 1)
        return lines
    if isinstance(s, While):
        test = f"{s.counter} < {expr_source(s.bound, False)}"
        if s.extra is not None:
            test += f" and {expr_source(s.extra, False)}"
        lines = [f"{pad}{s.counter} = 0", f"{pad}while {test}:", f"{pad}    {s.counter} += 1"]
        lines += block_lines(s.body, indent + 1, allow_empty=True)
        if s.orelse:
            lines += [f"{pad}else:"] + block_lines(s.orelse, indent + 1)
        return lines
    if isinstance(s, For):
        lines = [f"{pad}for {s.target} in {expr_source(s.iter)}:"] + block_lines(s.body, indent + 1)
        if s.orelse:
            lines += [f"{pad}else:"] + block_lines(s.orelse, indent + 1)
        return lines
    raise TypeError(f"not a statement: {s!r}")


def _try_lines(s: Try, indent: int) -> list:
    pad = "    " * indent
    lines = [f"{pad}try:"] + block_lines(s.body, indent + 1)
    for h in s.handlers:
        name = f" as {h.name}" if h.name else ""
        lines += [f"{pad}except {h.exc}{name}:"] + block_lines(h.body, indent + 1)
    if s.orelse and s.handlers:
        lines += [f"{pad}else:"] + block_lines(s.orelse, indent + 1)
    if s.finalbody or not s.handlers:  # a `try` needs one of the two
        lines += [f"{pad}finally:"] + block_lines(s.finalbody, indent + 1)
    return lines


def block_lines(stmts, indent: int, allow_empty=False) -> list:
    lines = []
    for s in stmts:
        lines += stmt_lines(s, indent)
    if not lines and not allow_empty:
        lines = ["    " * indent + "pass"]
    return lines


def func_lines(fn: FuncDef) -> list:
    return [f"def {fn.name}({', '.join(fn.params)}):"] + block_lines(fn.body, 1)


# The program's own exception classes (rendered when the program names them): one a subclass of
# a built-in error, one whose constructor sets an attribute.
EXCEPTION_CLASSES = {
    "FuzzError": ["class FuzzError(ValueError):", "    pass"],
    "FuzzLimit": [
        "class FuzzLimit(ArithmeticError):",
        "    def __init__(self, value):",
        '        super().__init__("limit", value)',
        "        self.value = value",
    ],
}


def render_module(program: Program) -> str:
    lines = [
        '"""A generated program (differential fuzzing)."""',
        "",
        "import collections",
        "import heapq",
        "import math",
        "",
        "import numpy as np",
        "",
        "",
        "class Box:",
        "    pass",
        "",
    ]
    body = []
    for helper in program.helpers:
        body += [""] + func_lines(helper) + [""]
    body += [""] + func_lines(program.main)
    text = "\n".join(body)
    for name, class_lines in EXCEPTION_CLASSES.items():
        if name in text:
            lines += ["", *class_lines, ""]
    return "\n".join(lines + body) + "\n"


# -- what a program uses --------------------------------------------------------------------

# Statements and expressions of constructs that staging may refuse clearly (a try whose clause
# would see a name the body assigned, a helper's nonlocal write, containers and comprehensions
# while their staging is being extended...): a dtype-stable program using one may be REFUSED.
_MAY_BE_REFUSED_NODES = (SetLit, FStr, Comp, NonlocalDef, ExprStmt, AugItem, Raise, Try)
_MAY_BE_REFUSED_CALLS = ("math.", "heapq.", "collections.", "np.zeros", "np.linalg.")
_MAY_BE_REFUSED_CALL_NAMES = {"str", "repr", "sorted", "sum", "round", "divmod", "pow", "int"}
_MAY_BE_REFUSED_CALL_NAMES |= {"float", "any", "all", "min", "max", "list", "set"}
_MAY_BE_REFUSED_METHODS = {"pop", "get", "items", "setdefault", "update", "insert", "extend"}


def nodes(tree):
    """Every node of a program, statement or expression (depth first)."""
    if isinstance(tree, Program):
        for fn in (*tree.helpers, tree.main):
            yield from nodes(fn.body)
        return
    if isinstance(tree, tuple):
        for item in tree:
            yield from nodes(item)
        return
    if not dataclasses.is_dataclass(tree):
        return
    yield tree
    for f in dataclasses.fields(tree):
        yield from nodes(getattr(tree, f.name))


def _tests(node):
    """The expressions `node` takes the truth value of."""
    if isinstance(node, (If, IfExp)):
        return [node.test] + [t for t, _ in getattr(node, "elifs", ())]
    if isinstance(node, While):
        return [node.extra]
    if isinstance(node, BoolOp):
        return [node.left, node.right]
    if isinstance(node, Unary) and node.op == "not":
        return [node.operand]
    if isinstance(node, Comp):
        return [node.cond]
    return []


_CONTAINER_MAKERS = (ListLit, DictLit, SetLit, Comp)


def _containers(program) -> set:
    """Names the program binds to a list, dict, set or deque."""
    out = set()
    for node in nodes(program):
        if isinstance(node, Assign) and (
            isinstance(node.value, _CONTAINER_MAKERS)
            or isinstance(node.value, Call)
            and node.value.func in ("set", "collections.deque")
        ):
            out.add(node.target)
    return out


def may_be_refused(program: Program) -> bool:
    """Whether the program uses a construct of `_MAY_BE_REFUSED_*` (constructs.py's grammar), or
    `in` or the truth value of a container."""
    containers = _containers(program)
    for node in nodes(program):
        if isinstance(node, _MAY_BE_REFUSED_NODES):
            return True
        if isinstance(node, Cmp) and node.op in ("in", "not in"):
            return True
        if any(isinstance(t, Name) and t.id in containers for t in _tests(node)):
            return True
        if isinstance(node, Call) and (
            node.func.startswith(_MAY_BE_REFUSED_CALLS) or node.func in _MAY_BE_REFUSED_CALL_NAMES
        ):
            return True
        if isinstance(node, Method) and node.name in _MAY_BE_REFUSED_METHODS:
            return True
    return False
