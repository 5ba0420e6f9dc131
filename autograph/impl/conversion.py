"""The converter: parse a function, run the pipeline of converters, compile the result; cached
per code object. The `ag__` namespace converted code calls is given by autograph.impl.api."""

from __future__ import annotations

import ast
import dataclasses
import dis
import inspect
import linecache
import os
import sys
import sysconfig
import types
import weakref

from autograph.converters import (
    asserts,
    break_statements,
    call_trees,
    composite_assignments,
    comprehensions,
    conditional_expressions,
    continue_statements,
    control_flow,
    directives,
    lists,
    logical_expressions,
    raises,
    return_statements,
    strings,
    subscripts,
    try_and_with,
)
from autograph.converters.context import ConversionContext
from autograph.impl import nested_generators
from autograph.pyct import codegen, deep_trees, naming, parser, transformer
from autograph.pyct.static_analysis import cells, liveness
from staging import errors
from staging.core import source_map
from staging.core.conversion_hints import (
    DO_NOT_CONVERT,  # the attribute autograph.do_not_convert sets
)

# The conversion pipeline, in order. A `try` loses its `else:` and `finally:` blocks before the
# jumps are lowered (a jump in its body skips the `else:` block). Jumps are lowered before
# control flow is converted; and/or/not in between (the lowered jumps add tests, and whether only an
# expression's truth value matters is seen on the if/while/assert it is the test of);
# calls are wrapped last so generated ag__ calls are left alone.
PIPELINE = (
    directives,
    lists,
    try_and_with,
    return_statements,
    continue_statements,
    break_statements,
    logical_expressions,
    raises,
    asserts,
    control_flow,
    composite_assignments,
    conditional_expressions,
    strings,
    subscripts,
    call_trees,
)

# id(original code object) -> its _Converted; an entry goes when its code object does, so a
# cache entry keeps neither a module's globals nor anything of a function that is gone.
_BY_CODE: dict = {}


class _Converted:
    """One converted code object: its generated source (lazily), compiled code, and how a
    function of the original code is turned into one of the converted code (`plan`: per free
    variable of the converted code, the index of the original's closure cell, -1 for `ag__`,
    or -2 for the function's own name read from its globals); `code` None: nothing to convert."""

    __slots__ = (
        "node",
        "code",
        "filename",
        "plan",
        "ag_cells",
        "_source",
        "original",
        "__weakref__",
    )

    def __init__(self, node, code, filename, plan=()):
        self.node, self.code, self.filename, self.plan = node, code, filename, plan
        self.ag_cells = None  # (ag namespace, the closure tuple when `ag__` is the only free name)
        self._source = None
        self.original = None  # a weak reference to the original code object

    @property
    def source(self) -> str:
        if self._source is None:
            text = deep_trees.with_room(lambda: codegen.to_source(self.node)[0], self.node)
            self._source = "\n".join(line for line in text.splitlines() if line.strip()) + "\n"
        return self._source


# -- checks -----------------------------------------------------------------

_UNSUPPORTED = {
    ast.Yield: "`yield` (generators)",
    ast.YieldFrom: "`yield from` (generators)",
    ast.Await: "`await`",
    ast.AsyncFor: "`async for`",
    ast.AsyncWith: "`async with`",
    ast.AsyncFunctionDef: "`async def`",
}


def _check_supported(entity, fn, nodes):
    node = entity.node
    if isinstance(node, ast.AsyncFunctionDef):
        raise errors.UnsupportedConstructError(
            f"{entity.filename}:{entity.user_line(node.lineno)}: cannot convert {fn.__name__!r}: "
            f"`async def` functions are not supported"
        )
    for n in nodes:
        what = _UNSUPPORTED.get(type(n))
        if what is not None:
            raise errors.UnsupportedConstructError(
                f"{entity.filename}:{entity.user_line(n.lineno)}: cannot convert {fn.__name__!r}: "
                f"{what} is not supported in converted code; decorate it with "
                f"autograph.do_not_convert to call it as plain Python"
            )


# -- positions ----------------------------------------------------------------

_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
_POSITIONED: dict = {}
_AST = ast.AST


def _fix_positions(tree, first):  # noqa: C901, PLR0912
    """Gives every node created by a converter the line of the node it sits in (the parsed
    nodes already carry the user's lines); end positions never precede start positions."""
    stack = [(tree, first)]
    pop, push = stack.pop, stack.append
    positioned = _POSITIONED
    while stack:
        n, line = pop()
        cls = n.__class__
        p = positioned.get(cls)
        if p is None:
            p = positioned[cls] = (
                "lineno" in cls._attributes,
                # the fields that may hold positioned nodes: an Import's aliases too
                transformer.child_fields(cls) + (("names",) if "names" in cls._fields else ()),
            )
        d = n.__dict__
        if p[0]:
            lineno = d.get("lineno")
            if lineno is None:
                d["lineno"] = d["end_lineno"] = line
                d["col_offset"] = d["end_col_offset"] = 0
            else:
                line = lineno
                end = d.get("end_lineno")
                if end is None or end < lineno:
                    d["end_lineno"] = lineno
                    d["end_col_offset"] = d.get("col_offset") or 0
                elif end == lineno and (d.get("end_col_offset") or 0) < (d.get("col_offset") or 0):
                    d["end_col_offset"] = d.get("col_offset") or 0
                if d.get("col_offset") is None:
                    d["col_offset"] = 0
        for f in p[1]:
            v = d.get(f)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, _AST):
                        push((x, line))
            elif isinstance(v, _AST):
                push((v, line))


# -- conversion ---------------------------------------------------------------


def _transform(fn):
    entity = parser.parse_function(fn)
    node = entity.node
    owner = naming.defining_class(fn.__qualname__)
    if owner is not None:
        naming.mangle_private_names(node, owner)
    if not isinstance(node, ast.Lambda):
        cells.analyze(node, fn.__code__)
    facts = naming.scan(node)
    aside = {}
    if ast.Yield in facts.features or ast.YieldFrom in facts.features:
        aside = nested_generators.set_aside(node)
        if aside:  # the stand-ins replaced the generators: learn the facts of what is left
            facts = naming.scan(node)
    _check_supported(entity, fn, facts.nodes)
    ctx = ConversionContext(
        entity=entity,
        namespace=fn.__globals__,
        freevars=frozenset(fn.__code__.co_freevars),
        name_order=types.MappingProxyType(facts.order),
        bound=frozenset(facts.bound),
        features=frozenset(facts.features),
        namer=naming.Namer(facts.used),
    )
    if ctx.features & comprehensions.CONSTRUCTS:
        # Comprehensions become functions with `for` and `if` statements first: the pipeline
        # then converts those as it converts the user's own.
        before = frozenset(ctx.namer.used)
        node = comprehensions.transform(node, ctx)
        ctx = _rescanned(ctx, node, before)
    present = ctx.features
    if present & _JUMPS:
        liveness.analyze_source(node)
    for converter in PIPELINE:
        needs = _NEEDS.get(converter)
        if needs is None or needs & present:
            node = converter.transform(node, ctx)
    return nested_generators.put_back(node, aside), ctx


def _rescanned(ctx, node, before):
    """`ctx` with the facts of the rewritten `node` (the same namer); the functions a converter
    defined (named by the namer, not in `before`) are called directly."""
    facts = naming.scan(node)
    made = frozenset(n.name for n in facts.nodes if isinstance(n, ast.FunctionDef)) - before
    return dataclasses.replace(
        ctx,
        name_order=types.MappingProxyType(facts.order),
        bound=frozenset(facts.bound),
        features=frozenset(facts.features),
        direct_calls=made,
    )


_JUMPS = frozenset((ast.Break, ast.Continue, ast.Return))

# Converters that only matter when some construct occurs; the others always run.
_NEEDS = {
    directives: {"set_loop_options"},
    lists: {"append", "pop"},
    return_statements: {ast.Return},
    continue_statements: {ast.Continue},
    break_statements: {ast.Break, ast.Return, "loop_else"},  # returns in loops become breaks
    try_and_with: {ast.Try, ast.With, getattr(ast, "TryStar", ast.Try)},
    asserts: {ast.Assert},
    composite_assignments: {ast.Subscript, ast.Attribute},
    conditional_expressions: {ast.IfExp},
    subscripts: {ast.Subscript},
    strings: {ast.JoinedStr, "str_percent"},
    # (the calls converters make are ag__ calls, left alone, or made of the user's calls)
    call_trees: {ast.Call},
    # Lowered jumps add `not flag` tests.
    logical_expressions: {ast.BoolOp, ast.Not, "chained", ast.Break, ast.Continue, ast.Return},
}


def _compile(node, ctx, fn):
    """Compiles the converted function inside a factory whose parameters are its free names."""
    code = fn.__code__
    filename = f"<autograph converted {code.co_name} at {ctx.filename}:{code.co_firstlineno}>"
    factory_params = ["ag__"] + [n for n in code.co_freevars if n != "ag__"]
    if isinstance(node, ast.Lambda):
        inner = [ast.Return(value=node)]
    else:
        inner = [node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))]
    factory = ast.FunctionDef(
        name="ag__factory",
        args=ast.arguments(
            args=[ast.arg(arg=p) for p in factory_params],
            posonlyargs=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=inner,
        decorator_list=[],
        returns=None,
        type_comment=None,
        **_TYPE_PARAMS,
    )
    module = ast.Module(body=[factory], type_ignores=[])
    _fix_positions(module, code.co_firstlineno)
    try:
        module_code = deep_trees.with_room(
            lambda: compile(module, filename, "exec", dont_inherit=True), module
        )
    except SyntaxError as e:
        raise errors.ConversionError(
            f"{ctx.filename}:{e.lineno}: converted code of {code.co_name!r} does not compile: {e.msg}"
        ) from None
    factory_code = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType))
    inner_code = (
        inner_code.replace(co_qualname=fn.__qualname__)
        if hasattr(inner_code, "co_qualname")
        else inner_code
    )
    # Tracebacks through converted code show the user's source lines (the very lines that
    # were parsed, not a re-read); staging maps them to the user file. Only the function's
    # own lines are kept, for as long as the converted code object lives.
    lines = ctx.entity.lines
    if lines is None:
        lines = linecache.getlines(ctx.filename)
    first = min(code.co_firstlineno, getattr(ctx.entity.node, "lineno", code.co_firstlineno))
    last = max(first, getattr(ctx.entity.node, "end_lineno", None) or first)
    record = source_map.register(filename, ctx.filename, first, lines[first - 1 : last])
    weakref.finalize(inner_code, source_map.unregister, filename, record)
    return inner_code, filename


def converted_source(fn) -> str:
    """The converted source of plain function `fn` (what to_code shows)."""
    try:
        return _converted_entry(fn, for_source=True).source
    except RecursionError as error:
        raise _nesting_error(fn, error) from None


def _converted_entry(fn, for_source=False) -> _Converted:
    """The cache entry of fn's code object, converted (with `for_source`, also when there is
    nothing to convert: to_code shows it; calls still run `fn` itself)."""
    code = fn.__code__
    # Keyed by identity (a code object's hash and == read its whole bytecode; equal code in
    # another file or module is another function), held weakly.
    key = id(code)
    entry = _BY_CODE.get(key)
    if (
        entry is not None
        and entry.original() is code
        and (entry.node is not None or not for_source)
    ):
        return entry
    plain = nothing_to_convert(code)
    if plain and not for_source:
        entry = _Converted(None, None, None)
    else:
        try:
            # (parsed afresh each time: a conversion that ran out of stack can run again)
            node, ctx = _room_for(_transform, fn)
            inner_code, filename = _compile(node, ctx, fn)
        except RecursionError as error:
            raise _nesting_error(fn, error) from None
        entry = _Converted(
            node, None if plain else inner_code, filename, _closure_plan(code, inner_code)
        )
    entry.original = weakref.ref(code, lambda _, key=key: _forget(key))
    _BY_CODE[key] = entry
    return entry


def _room_for(transform, fn):
    """`transform(fn)`; when it runs out of stack (the visit_ methods of converters recurse into
    the nested calls, `not`s or conditional expressions they rewrite), again on a large stack with
    room for the function's depth (autograph.pyct.deep_trees)."""
    try:
        return transform(fn)
    except RecursionError as error:
        depth = deep_trees.nesting_depth(parser.parse_function(fn).node)
        return deep_trees.again_with_room(lambda: transform(fn), depth, error)


_DEEP = 100  # expressions nested deeper than this can exhaust the stack of the recursive passes


def _nesting_error(fn, error):
    """The error for a function whose conversion ran out of stack: a NestingTooDeepError
    naming the line of its most deeply nested expression, or `error` itself when no
    expression is deep (the stack was already deep: recursion in the user's program)."""
    code = fn.__code__
    try:
        node = parser.parse_function(fn).node
    except RecursionError:
        node = None
    depth, line = (
        _deepest_expression(node) if node is not None else (_DEEP + 1, code.co_firstlineno)
    )
    if depth <= _DEEP:
        return error
    return errors.NestingTooDeepError(
        f"{code.co_filename}:{line}: cannot convert {fn.__name__!r}: an expression on this line is "
        f"nested too deeply ({depth} levels; at most {deep_trees.MAX_DEPTH} convert). "
        f"Split it into several statements (for a long sum, add the terms up in a loop)"
    )


def _deepest_expression(tree) -> tuple[int, int]:
    """(depth, line) of the most deeply nested expression node of `tree`, without recursion."""
    best, line = 0, getattr(tree, "lineno", 1)
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            depth += 1
            if depth > best:
                best, line = depth, getattr(node, "lineno", line)
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth))
    return best, line


def _forget(key):
    entry = _BY_CODE.get(key)
    if entry is not None and entry.original() is None:
        del _BY_CODE[key]


def _closure_plan(code, inner_code) -> tuple:
    own = {name: i for i, name in enumerate(code.co_freevars)}
    return tuple(-1 if name == "ag__" else own.get(name, -2) for name in inner_code.co_freevars)


# Instructions of code that conversion leaves as it is: no jumps (control flow, and/or, `if`
# expressions, comprehensions), no calls (builtins such as print and len act differently on
# symbolic values), no writes into items or attributes, no nested functions, no exceptions.
_PLAIN_INSTRUCTIONS = (
    "BINARY_",
    "UNARY_NEGATIVE",
    "UNARY_POSITIVE",
    "UNARY_INVERT",
    "INPLACE_",
    "LOAD_FAST",
    "LOAD_CONST",
    "LOAD_GLOBAL",
    "LOAD_DEREF",
    "LOAD_ATTR",
    "LOAD_NAME",
    "STORE_FAST",
    "STORE_DEREF",
    "BUILD_",
    "UNPACK_SEQUENCE",
    "COMPARE_OP",
    "IS_OP",
    "RETURN_",
    "POP_TOP",
    "COPY",
    "SWAP",
    "NOP",
    "RESUME",
    "CACHE",
    "EXTENDED_ARG",
    "PUSH_NULL",
    "MAKE_CELL",
    "LIST_EXTEND",
    "DELETE_FAST",
)


_PLAIN_OPCODES = frozenset(
    op for op, name in enumerate(dis.opname) if name.startswith(_PLAIN_INSTRUCTIONS)
)


def nothing_to_convert(code) -> bool:
    """True when converting `code` would give back the same code: straight-line arithmetic
    (such a function is traced as it is, without reading, parsing or compiling its source)."""
    if getattr(code, "co_exceptiontable", b""):
        return False
    opcodes = set(code.co_code[::2])  # (wordcode: an opcode every 2 bytes)
    if not opcodes <= _PLAIN_OPCODES:
        return False
    # `a == b` / `a != b` become ag__.eq / ag__.not_eq (the operand order decides the result
    # type where a Python complex meets a NumPy float64), unless an operand is a literal; `"%d"
    # % n` becomes ag__.percent (f-strings, FORMAT_VALUE, are never plain).
    if _BINARY_SUBSCR in opcodes and _computed_key(code):
        return False
    if _COMPARE_OP not in opcodes and not _percent_template(code):
        return True
    return not any(
        ins.opname == "COMPARE_OP" and "=" in str(ins.argval) and ins.argval not in ("<=", ">=")
        for ins in dis.get_instructions(code)
    ) and not _percent_template(code)


def _percent_template(code) -> bool:
    """Whether `code` may apply `%` to a literal str (printf-style formatting)."""
    return any(type(c) is str and "%" in c for c in code.co_consts) and any(
        ins.opname.startswith("BINARY_") and ins.argrepr in ("%", "%=")
        for ins in dis.get_instructions(code)
    )


_COMPARE_OP = dis.opmap["COMPARE_OP"]
_BINARY_SUBSCR = dis.opmap["BINARY_SUBSCR"]
# what is pushed just before `x[key]` reads a key the subscripts converter leaves as written (a
# constant, a slice of constants, a tuple: converters/subscripts.py)
_WRITTEN_KEYS = frozenset(("LOAD_CONST", "BUILD_SLICE", "BUILD_TUPLE"))


def _computed_key(code) -> bool:
    """Whether `code` reads an item with a computed key (`table[i]`, `left[i:]`: converted to
    ag__.item)."""
    seen: list = []
    for ins in dis.get_instructions(code):
        if ins.opname == "BINARY_SUBSCR" and not _written_key(seen):
            return True
        seen.append(ins)
    return False


def _written_key(seen: list) -> bool:
    """Whether the instructions before a BINARY_SUBSCR push a key written as a literal."""
    last = seen[-1].opname if seen else None
    if last != "BUILD_SLICE":
        return last in _WRITTEN_KEYS
    bounds = seen[-1 - seen[-1].arg : -1]
    return all(ins.opname == "LOAD_CONST" for ins in bounds)


def converted_raw(fn, ag_namespace):
    """The converted version of plain function `fn`, its `ag__` name bound to `ag_namespace`
    (converted once per code object; the function object is made on each call, so no cache
    holds `fn`, its globals or its closure); `fn` itself when there is nothing to convert."""
    entry = _converted_entry(fn)
    code = entry.code
    if code is None:
        return fn
    cells = entry.ag_cells
    if cells is None or cells[0] is not ag_namespace:
        cell = types.CellType(ag_namespace)
        cells = entry.ag_cells = (ag_namespace, cell, (cell,) if entry.plan == (-1,) else None)
    closure = cells[2]
    if closure is None:
        # A free variable the original does not close over is the function's own name (the
        # generated wrapper binds it): the original reads it as a global, so capture that value.
        original = fn.__closure__ or ()
        closure = tuple(
            original[i]
            if i >= 0
            else cells[1]
            if i == -1
            else types.CellType(fn.__globals__.get(name, fn))
            for i, name in zip(entry.plan, code.co_freevars)
        )
    converted = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    if fn.__kwdefaults__ is not None:
        converted.__kwdefaults__ = fn.__kwdefaults__
    if fn.__qualname__ != getattr(code, "co_qualname", None):  # (Python 3.10 has no co_qualname)
        converted.__qualname__ = fn.__qualname__
    converted.__doc__ = fn.__doc__
    converted.__module__ = fn.__module__
    return converted


def is_user_code(func) -> bool:
    """Whether converted code should convert `func` (a plain function) before calling it: user
    code, not marked do_not_convert, not a generator, not itself generated. Library code (the
    standard library, installed packages, this project) runs as it is; see is_library_file."""
    if getattr(func, DO_NOT_CONVERT, False):
        return False
    code = func.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return False
    filename = code.co_filename
    if source_map.is_generated(filename):
        return False
    return not is_library_file(filename)


def _library_dirs() -> tuple:
    dirs = {os.path.dirname(os.__file__)}
    for key in ("stdlib", "platstdlib"):
        for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
            try:
                dirs.add(
                    sysconfig.get_path(
                        key,
                        vars={
                            "installed_base": prefix,
                            "base": prefix,
                            "installed_platbase": prefix,
                            "platbase": prefix,
                        },
                    )
                )
            except KeyError:  # pragma: no cover - a scheme without that path
                pass
    return tuple(os.path.normpath(d) + os.sep for d in dirs if d)


_LIBRARY_DIRS = _library_dirs()
_PACKAGE_DIRS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)
_LIBRARY_FILES: dict = {}


def is_library_file(filename: str) -> bool:
    """A module of the standard library (under the interpreter's stdlib directories), of an
    installed package (any site-packages or dist-packages directory), frozen or built in, or
    of this project (autograph, staging, runtime). Everything else is user code."""
    hit = _LIBRARY_FILES.get(filename)
    if hit is None:
        path = (
            os.path.normpath(os.path.abspath(filename))
            if not filename.startswith("<")
            else filename
        )
        hit = (
            filename.startswith("<frozen")
            or filename.startswith(_LIBRARY_DIRS)
            or path.startswith(_LIBRARY_DIRS)
            or any(d in path for d in _PACKAGE_DIRS)
            or source_map.is_own_file(path)
        )
        if len(_LIBRARY_FILES) >= 4096:  # bounded: generated and temporary files come and go
            _LIBRARY_FILES.clear()
        _LIBRARY_FILES[filename] = hit
    return hit
