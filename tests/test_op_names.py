"""Passes, code generators and the front end ask an op's OpDef, never its name.

An AST scan of the packages in SCANNED (the runtime, and the front end: staging and autograph)
fails on a string literal naming a registered op that is

- compared with an op name (`node.op == "add"`, `node.op in ("add", "mul")`, `op != "cond"`,
  `op_name in _TABLE` where _TABLE is a module-level table holding such literals, also a union
  of tables: `frozenset(NAMES) | {"pow"}`),
- used to look a table up by an op name (`_TABLE[node.op]`, `_TABLE.get(node.op)`),
- passed to `get_op`, `has_op` or `lowers` (a table of lowerings keyed by op name), or, in the
  runtime, to `Node` (building a node of that op: a pass builds the nodes it needs through the
  registering module, `constant_node`),

outside the modules that register ops (runtime/ops/, runtime/core_ops.py,
runtime/control_ops.py, runtime/registry.py) and, anywhere, outside the module that registers
that op itself: a module of another layer that registers an op (staging/functions/concrete.py:
`register_op("call", ...)`) may name that op, and only it. A fact about an op is a field of its
OpDef (runtime/registry.py) instead.

The front end emits ops by name: `record("add", ...)`, `Node("try_finally", ...)` build a node
of the op they mean, as a registration names it, and are not tests of which op a node is.

To scan another package, add it to SCANNED and list what it still has in ALLOWED, as
(path, op name, why), here too:

Allowed exceptions: none.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import runtime  # noqa: F401  (registers the runtime's ops)
import staging  # noqa: F401  (registers the ops of the staging layer: call)
from runtime.registry import all_ops

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCANNED = ("runtime", "staging", "autograph")
FRONT_END = ("staging", "autograph")  # (packages that emit ops by name: Node(...) builds one)
REGISTERING = (
    "runtime/ops/",
    "runtime/core_ops.py",
    "runtime/control_ops.py",
    "runtime/registry.py",
)
ALLOWED: list[tuple[str, str, str]] = []  # (path, op name, why): keep the docstring's list equal

_OP_NAME_VARIABLES = frozenset(("op", "op_name", "opname"))
_LOOKUPS = frozenset(("get_op", "has_op", "Node", "lowers"))
_FRONT_END_LOOKUPS = _LOOKUPS - {"Node"}
_REGISTRATIONS = frozenset(("register_op", "register_call", "add_op", "expect_op"))


def _is_op_name(node: ast.AST) -> bool:
    """`<x>.op`, or a variable named op / op_name; also such an expression inside a tuple."""
    if isinstance(node, ast.Attribute) and node.attr == "op":
        return True
    if isinstance(node, ast.Name) and node.id in _OP_NAME_VARIABLES:
        return True
    return isinstance(node, ast.Tuple) and any(_is_op_name(e) for e in node.elts)


def _strings(node: ast.AST) -> list[ast.Constant]:
    """The string literals of a literal collection (elements, or keys of a dict; also inside a
    frozenset(...) / set(...) call, and the items of tuple keys)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e)]
    if isinstance(node, ast.Dict):
        return [s for k in node.keys if k is not None for s in _strings(k)]
    if isinstance(node, ast.BinOp):  # (a union of tables: `frozenset(NAMES) | {"pow"}`)
        return _strings(node.left) + _strings(node.right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("frozenset", "set", "tuple", "dict")
        and node.args
    ):
        return _strings(node.args[0])
    return []


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


class _Scan(ast.NodeVisitor):
    def __init__(self, path: str, tree: ast.Module, ops: set[str], lookups=_LOOKUPS):
        self.path, self.found, self.lookups = path, [], lookups
        own = {
            s.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and _callee(n) in _REGISTRATIONS and n.args
            for s in _strings(n.args[0])
        }
        self.ops = ops - own  # a module names the ops it registers itself
        # module-level tables: name -> the string literals they hold
        self.tables = {
            target.id: _strings(statement.value)
            for statement in tree.body
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None
            for target in (
                statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            )
            if isinstance(target, ast.Name)
        }

    def flag(self, literals, how: str) -> None:
        for s in literals:
            if s.value in self.ops:
                self.found.append((self.path, s.lineno, s.value, how))

    def literals_of(self, node: ast.AST) -> list[ast.Constant]:
        if isinstance(node, ast.Name) and node.id in self.tables:
            return self.tables[node.id]
        if isinstance(node, ast.Attribute) and node.attr in self.tables:
            return self.tables[node.attr]
        return _strings(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        sides = [node.left, *node.comparators]
        if any(_is_op_name(side) for side in sides):
            for side in sides:
                if not _is_op_name(side):
                    self.flag(self.literals_of(side), "compared with an op name")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if _is_op_name(node.slice):
            self.flag(self.literals_of(node.value), "a table looked up by op name")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        callee = _callee(node)
        if callee in self.lookups and node.args:
            self.flag(_strings(node.args[0]), f"passed to {callee}()")
        if (
            callee == "get"
            and isinstance(node.func, ast.Attribute)
            and node.args
            and _is_op_name(node.args[0])
        ):
            self.flag(self.literals_of(node.func.value), "a table looked up by op name")
        self.generic_visit(node)


def op_name_tests(package: str) -> list[tuple[str, int, str, str]]:
    """(path, line, op name, how) of every op-name test in `package` (see the module doc)."""
    ops = set(all_ops())
    lookups = _FRONT_END_LOOKUPS if package in FRONT_END else _LOOKUPS
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(REGISTERING):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scan = _Scan(relative, tree, ops, lookups)
        scan.visit(tree)
        found += scan.found
    first = {}
    for path, line, name, how in found:  # (a table read in several places: once)
        first.setdefault((path, line, name), how)
    return [(path, line, name, how) for (path, line, name), how in first.items()]


@pytest.mark.parametrize("package", SCANNED)
def test_no_op_is_tested_by_name_outside_its_registration(package):
    allowed = {(path, name) for path, name, _ in ALLOWED}
    found = [f for f in op_name_tests(package) if (f[0], f[2]) not in allowed]
    assert not found, "ask the OpDef (runtime/registry.py), not the op's name:\n" + "\n".join(
        f"{path}:{line}: {name!r} {how}" for path, line, name, how in found
    )


def test_the_allowed_exceptions_are_the_documented_ones():
    documented = __doc__.split("Allowed exceptions:")[1].strip()
    if not ALLOWED:
        assert documented == "none."
    for path, name, why in ALLOWED:
        assert f"{path}: {name} ({why})" in " ".join(documented.split())


def test_the_scan_finds_what_it_looks_for(tmp_path, monkeypatch):
    source = """
_TABLE = frozenset(("add", "subtract"))
_FORMS = {"multiply": "*"}
_UNION = frozenset(NAMES) | {"negative"}
def f(node, op):
    a = node.op == "const"
    b = node.op in ("cond", "while_loop")
    c = op not in _TABLE
    d = _FORMS[node.op] + _FORMS.get(op)
    e = get_op("print")
    g = node.subgraphs["cond"]  # (a subgraph's label, not an op)
    h = Node("assert", [], {}, [])
    i = node.op in _UNION
    register_op("sqrt", infer=None)(None)
    j = node.op == "sqrt"  # (the module registers it)
    return mode == "all"  # (an option's value)
"""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(source)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    found = {(name, how) for _, _, name, how in op_name_tests("pkg")}
    assert found == {
        ("const", "compared with an op name"),
        ("cond", "compared with an op name"),
        ("while_loop", "compared with an op name"),
        ("add", "compared with an op name"),
        ("subtract", "compared with an op name"),
        ("multiply", "a table looked up by op name"),
        ("negative", "compared with an op name"),
        ("print", "passed to get_op()"),
        ("assert", "passed to Node()"),
    }


def test_the_front_end_builds_nodes_by_name_but_tests_none(tmp_path, monkeypatch):
    source = """
def emit(node, graph):
    graph.nodes.append(Node("try_finally", [], {}, []))  # (emitting the op it means)
    record("add", [1, 2])
    return node.op == "getitem"
"""
    (tmp_path / "staging").mkdir()
    (tmp_path / "staging" / "m.py").write_text(source)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    found = {(name, how) for _, _, name, how in op_name_tests("staging")}
    assert found == {("getitem", "compared with an op name")}
