"""Deterministic fresh names: `base`, then `base_1`, `base_2` ... avoiding the function's own names."""

from __future__ import annotations

import ast


class Namer:
    def __init__(self, used=()):
        self.used = set(used)

    @classmethod
    def for_tree(cls, node):
        return cls(scan(node).used)

    def new(self, base: str) -> str:
        if base not in self.used:
            self.used.add(base)
            return base
        stem = base.rstrip("_")
        k = 1
        while f"{stem}_{k}" in self.used:
            k += 1
        name = f"{stem}_{k}"
        self.used.add(name)
        return name

    def new_group(self, bases) -> tuple:
        """Fresh names sharing one suffix, e.g. ('if_true_2', 'if_false_2')."""
        k = 0
        while True:
            names = tuple(b if k == 0 else f"{b}_{k}" for b in bases)
            if not any(n in self.used for n in names):
                self.used.update(names)
                return names
            k += 1


_Name, _arg, _arguments, _alias = ast.Name, ast.arg, ast.arguments, ast.alias
_Load, _Compare, _Attribute = ast.Load, ast.Compare, ast.Attribute
_BinOp, _Mod, _Constant = ast.BinOp, ast.Mod, ast.Constant
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LOOPS = (ast.For, ast.While)
_AST = ast.AST
# Fields that hold no names: contexts, operators (skipped by the walk).
_SKIP = frozenset({"ctx", "op", "ops"})
_FIELDS: dict = {}


def _fields(cls):
    fields = _FIELDS.get(cls)
    if fields is None:
        if cls is _arguments:
            # Parameters in the order gast gives them (args before posonlyargs): name order
            # decides the order of state tuples in converted code.
            fields = (
                "args",
                "posonlyargs",
                "vararg",
                "kwonlyargs",
                "kw_defaults",
                "kwarg",
                "defaults",
            )
        else:
            fields = tuple(f for f in cls._fields if f not in _SKIP)
        _FIELDS[cls] = fields
    return fields


class Facts:
    """What one walk over a function learns (see scan)."""

    __slots__ = ("order", "used", "bound", "features", "nodes")

    def __init__(self):
        self.order = {}  # name -> index of its first occurrence in source order
        self.used = (
            set()
        )  # every name (variables, parameters, defs, imports): fresh names avoid them
        self.bound = set()  # names assigned, deleted or bound as parameters / except targets
        self.features = set()  # node classes, attribute names, Name ids, "chained", "loop_else",
        #                       "str_percent"
        self.nodes = []  # the nodes in source order (pre-order)


def scan(node) -> Facts:  # noqa: C901, PLR0912
    """One walk over the tree, in source order."""
    facts = Facts()
    order, used, bound, features, nodes = (
        facts.order,
        facts.used,
        facts.bound,
        facts.features,
        facts.nodes,
    )
    stack = [node]
    pop, push = stack.pop, stack.extend
    add = features.add
    while stack:
        n = pop()
        cls = n.__class__
        nodes.append(n)
        add(cls)
        if cls is _Name:
            name = n.id
            order.setdefault(name, len(order))
            add(name)
            if n.ctx.__class__ is not _Load:
                bound.add(name)
            continue
        if cls is _arg:
            order.setdefault(n.arg, len(order))
            bound.add(n.arg)
            continue
        if cls is _alias:
            used.add((n.asname or n.name).split(".")[0])
            continue
        if cls is _Attribute:
            add(n.attr)
        elif cls is _Compare:
            if len(n.ops) > 1:
                add("chained")
        elif cls is _BinOp:
            if n.op.__class__ is _Mod and n.left.__class__ is _Constant:
                if n.left.value.__class__ is str:
                    add("str_percent")
        elif isinstance(n, _DEFS):
            used.add(n.name)
        elif isinstance(n, _LOOPS) and n.orelse:
            add("loop_else")
        children = []
        for f in _fields(cls):
            v = getattr(n, f, None)
            if v.__class__ is list:
                children.extend(x for x in v if isinstance(x, _AST))
            elif isinstance(v, _AST):
                children.append(v)
            elif f == "name" and v.__class__ is str and cls is ast.ExceptHandler:
                bound.add(v)
                children.append(_Name(id=v, ctx=ast.Store()))  # a Name in gast's order
        children.reverse()
        push(children)
    used.update(order)
    return facts


def source_order(node) -> dict:
    """name -> index of its first occurrence in source order."""
    return scan(node).order


def defining_class(qualname: str) -> str | None:
    """The name of the class whose body defines a function of this __qualname__, if any."""
    parts = qualname.split(".")
    if len(parts) >= 2 and parts[-2] != "<locals>":
        return parts[-2]
    return None


def mangle_private_names(node, class_name: str) -> None:  # noqa: C901
    """Applies Python's private name mangling (`__x` -> `_Class__x`) to the identifiers of a
    method's tree, as compiling it inside its class did: converted code is compiled outside."""
    prefix = "_" + class_name.lstrip("_")
    if prefix == "_":
        return

    def mangled(name):
        if name and name.startswith("__") and not name.endswith("__") and "." not in name:
            return prefix + name
        return name

    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            n.id = mangled(n.id)
        elif isinstance(n, ast.Attribute):
            n.attr = mangled(n.attr)
        elif isinstance(n, ast.arg):
            n.arg = mangled(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
            n.name = mangled(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            n.names = [mangled(x) for x in n.names]
        elif isinstance(n, ast.keyword) and n.arg is not None:
            n.arg = mangled(n.arg)
