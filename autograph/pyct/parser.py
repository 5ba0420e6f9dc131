"""Finds and parses the source of a function or lambda into an `ast` tree.

The tree's line numbers are the user's: the parsed text is preceded by as many
empty lines as the function is deep in its file, so no line offset needs to be
applied afterwards (and the tree can be compiled as it is).
"""

from __future__ import annotations
import __future__

import ast
import bisect
import copy
import dis
import inspect
import linecache
import types

from autograph.pyct import deep_trees
from staging import errors

# filename -> (the linecache lines list the blocks were cut from, {first line: block}).
# A block is only reused while linecache returns that same list: a file re-read after an
# edit (or a pseudo-file registered again) gives a new list, and its old blocks are dropped.
_BLOCK_CACHE: dict[str, tuple[list[str], dict[int, tuple[str, ...]]]] = {}
_FILES_KEPT = 32  # the per-file caches hold the most recently used files only


def _remember(cache: dict, key, value):
    """cache[key] = value, dropping the least recently stored files beyond _FILES_KEPT."""
    cache.pop(key, None)
    while len(cache) >= _FILES_KEPT:
        del cache[next(iter(cache))]
    cache[key] = value
    return value


class ParsedEntity:
    """A parsed function: its ast node, the file it came from and the line offset."""

    __slots__ = ("node", "filename", "line_offset", "source", "lines")

    def __init__(self, node, filename, line_offset, source, lines=None):
        self.node = node
        self.filename = filename
        self.line_offset = (
            line_offset  # user line = node line + line_offset (0: lines are the user's)
        )
        self.source = source
        self.lines = lines  # all lines of the file as read for this parse (linecache's list)

    def user_line(self, lineno: int) -> int:
        return lineno + self.line_offset


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _scan_block(lines, start):
    """The block starting at lines[start] by indentation alone: decorators, the `def` line,
    then every line indented deeper (blank and comment lines included). A cut inside a
    bracket or string leaves text that does not parse; the caller then falls back to
    inspect.getblock."""
    first = lines[start]
    base = _indent(first)
    end = start + 1
    if first.lstrip().startswith("@"):
        while (
            end < len(lines) and _indent(lines[end]) == base and lines[end].lstrip().startswith("@")
        ):
            end += 1
        if end >= len(lines) or _indent(lines[end]) != base:
            return None
        end += 1  # the def line
    while end < len(lines):
        line = lines[end]
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and _indent(line) <= base:
            break
        end += 1
    while end > start + 1 and (
        not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")
    ):
        end -= 1
    return tuple(lines[start:end])


def _file_lines(code) -> list[str]:
    """The current lines of code's file. Called once per parse (a conversion-cache miss, i.e.
    a new code object): linecache.checkcache drops the file's entry if the file changed on
    disk, so an edited file is re-read; pseudo-files registered in linecache with no mtime
    are left as they are."""
    filename = code.co_filename
    linecache.checkcache(filename)
    all_lines = linecache.getlines(filename)
    if not all_lines:
        raise errors.ConversionError(
            f"cannot convert {code.co_name!r}: source of {filename} is unavailable "
            "(functions defined in the interactive interpreter or with exec cannot be converted)"
        )
    if code.co_firstlineno > len(all_lines):
        raise errors.SourceChangedError(
            f"cannot convert {code.co_name!r}: {filename} has no line {code.co_firstlineno} "
            "(was the file edited since the function was defined?)"
        )
    return all_lines


def _file_blocks(filename, all_lines) -> dict[int, tuple[str, ...]]:
    """The cached blocks of `filename`, valid for exactly this lines list."""
    entry = _BLOCK_CACHE.get(filename)
    if entry is None or entry[0] is not all_lines:
        entry = _remember(_BLOCK_CACHE, filename, (all_lines, {}))
    return entry[1]


def _block_lines(code, all_lines, blocks) -> tuple[str, ...]:
    """The source lines of the block that starts at code.co_firstlineno (cached)."""
    lines = blocks.get(code.co_firstlineno)
    if lines is None:
        lines = blocks[code.co_firstlineno] = _getblock(all_lines, code.co_firstlineno - 1)
    return lines


def _getblock(all_lines, start):
    try:
        return tuple(inspect.getblock(all_lines[start:]))
    except Exception:  # tokenizer trouble: fall back to the single line
        return (all_lines[start],)


def _dedent(lines) -> str:
    """Removes the first line's indentation from every line that starts with it."""
    first = lines[0]
    indent = first[: len(first) - len(first.lstrip())]
    if not indent:
        return "".join(lines)
    n = len(indent)
    return "".join(line[n:] if line.startswith(indent) else line for line in lines)


def _parse_error(code, e):
    return errors.ConversionError(
        f"cannot convert {code.co_name!r} at {code.co_filename}:{code.co_firstlineno}: "
        f"its source does not parse on its own ({e.msg})"
    )


def parse_function(fn) -> ParsedEntity:
    """Parses `fn` (a plain function or lambda); decorators are dropped."""
    code = fn.__code__
    all_lines = _file_lines(code)
    blocks = _file_blocks(code.co_filename, all_lines)
    line_offset = code.co_firstlineno - 1
    if code.co_name == "<lambda>":
        return _parse_lambda_function(fn, all_lines, blocks)
    tree = None
    if code.co_firstlineno not in blocks:
        # Fast path: find the block by indentation; it is right if it parses.
        lines = _scan_block(all_lines, line_offset)
        if lines:
            text = _dedent(lines)
            try:
                tree = deep_trees.parse("\n" * line_offset + text)
                blocks[code.co_firstlineno] = lines
            except SyntaxError:
                tree = None
    if tree is None:
        lines = _block_lines(code, all_lines, blocks)
        text = _dedent(lines)
        try:
            tree = deep_trees.parse("\n" * line_offset + text)
        except SyntaxError as e:
            raise _parse_error(code, e) from None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise errors.SourceChangedError(
            f"cannot convert {code.co_name!r} at {code.co_filename}:{code.co_firstlineno}: "
            "no function definition found at that line (was the file edited since the function "
            "was defined? reload its module)"
        )
    _check_matches(code, node, _enclosing_class(fn.__qualname__))
    _check_same_code(fn, lambda: _as_written(node, lines, line_offset))
    node.decorator_list = []
    return ParsedEntity(node, code.co_filename, 0, text, all_lines)


def _parse_lambda_function(fn, all_lines, blocks) -> ParsedEntity:
    code = fn.__code__
    text = _dedent(_block_lines(code, all_lines, blocks))
    try:
        entity = _parse_lambda(fn, text, code.co_firstlineno - 1)
    except errors.ConversionError:
        # A lambda on a continuation line of a longer statement: find it in the file.
        entity = _lambda_in_file(fn, all_lines)
        if entity is None:
            raise
    if not _spans_lines(entity.node):  # (a string over lines: dedented, not the file's)
        _check_same_code(fn, lambda: entity.node)
    entity.lines = all_lines
    return entity


def _code_arguments(code) -> list:
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return list(code.co_varnames[:n])


def _node_arguments(node, owner: str | None = None) -> list:
    """The parameter names of definition `node`, private ones mangled as in class `owner`."""
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    if owner is not None and owner.lstrip("_"):
        names = [
            f"_{owner.lstrip('_')}{n}" if n.startswith("__") and not n.endswith("__") else n
            for n in names
        ]
    return names


def _check_matches(code, node, owner: str | None = None):
    """The definition found in the file now must be the one that was compiled into `code`:
    same name, same arguments, and every line of the code inside it. A file edited after its
    module was imported may hold another function there; converting that would run code
    other than the one called."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    problem = None
    if node.name != code.co_name:
        problem = f"the source at that line now defines {node.name!r}"
    elif _node_arguments(node, owner) != _code_arguments(code):
        problem = (
            f"its source now takes ({', '.join(_node_arguments(node))}), the running "
            f"function takes ({', '.join(_code_arguments(code))})"
        )
    elif first != code.co_firstlineno:
        problem = f"its source now starts at line {first}"
    else:
        lines = [line for _, _, line in code.co_lines() if line is not None]
        if lines and not first <= min(lines) <= max(lines) <= node.end_lineno:
            problem = (
                f"its source now ends at line {node.end_lineno}, the running function has "
                f"code on line {max(lines)}"
            )
    if problem is not None:
        raise errors.SourceChangedError(
            f"cannot convert {code.co_name!r} at {code.co_filename}:{code.co_firstlineno}: "
            f"{problem} (the file was edited since the function was defined); reload its "
            f"module to convert the new version"
        )


# -- the running code against the code in the file -------------------------------------------

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


def _as_written(node, lines, line_offset: int):
    """The definition `node` was parsed from (its text dedented), parsed as the file has it: the
    strings of an indented definition keep their indentation; None when it does not parse so."""
    if not lines[0][:1].isspace():
        return node
    if line_offset < 1:
        return None
    try:
        tree = deep_trees.parse("\n" * (line_offset - 1) + "if 1:\n" + "".join(lines))
    except (SyntaxError, ValueError, RecursionError):
        return None
    return tree.body[0].body[0]


def _spans_lines(node) -> bool:
    """A string constant of `node` is written over several lines."""
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and n.end_lineno != n.lineno
        for n in ast.walk(node)
    )


def _check_same_code(fn, written) -> None:
    """The definition in the file, `written()` (its node as written there), must compile to the
    code that runs: a file edited after its module was imported can hold another body on the
    same lines (a changed constant), and converting it would compute something else. Source
    registered in linecache (not on disk) cannot change under a function, and code an import
    hook rewrote (pytest's asserts) is not the text's: neither is compiled again."""
    code = fn.__code__
    entry = linecache.cache.get(code.co_filename)
    if (entry is not None and len(entry) == 4 and entry[1] is None) or not _compiled_as_written(fn):
        return
    node = written()
    compiled = (
        _compiled_alone(node, code, fn.__qualname__, fn.__globals__)
        if node is not None
        else _TOO_DEEP
    )
    if compiled is _TOO_DEEP:
        return  # (cannot tell; an expression nested too deeply is reported by the conversion)
    if compiled is None or not _same_code(compiled, code):
        raise errors.SourceChangedError(
            f"cannot convert {code.co_name!r} at {code.co_filename}:{code.co_firstlineno}: "
            f"{code.co_filename} was edited since the function was defined: the definition "
            f"there now compiles to other code than the running function's; reload its module "
            f"to convert the new version"
        )


def _compiled_as_written(fn) -> bool:
    """Whether fn's module was compiled from its file's text as it is (importlib's own source
    loader, or no loader: run or exec'd), not by an import hook that rewrites code (pytest's
    assertion rewriting), whose code the text alone does not give."""
    loader = fn.__globals__.get("__loader__")
    return (
        loader is None
        or type(loader).__name__ == "SourceFileLoader"
        and type(loader).__module__
        in ("_frozen_importlib_external", "importlib._bootstrap_external")
    )


def _enclosing_class(qualname: str) -> str | None:
    """The innermost class a function of this __qualname__ is defined in (`A.m.<locals>.g`: A),
    whose name private names are mangled with."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i + 1] != "<locals>" and parts[i] != "<locals>":
            return parts[i]
    return None


_TOO_DEEP = object()


def _placed(wrapper):
    """A node of the module around a definition, at line 1 (the definition keeps its own)."""
    wrapper.lineno = wrapper.end_lineno = 1
    wrapper.col_offset = wrapper.end_col_offset = 0
    return wrapper


def _imports(code, globals_: dict) -> list:
    """`import name` for each global the code reads that is a module: a method call on a name
    its module imports compiles otherwise (then _instructions tells them apart, more slowly)."""
    names, pending = set(), [code]
    while pending:
        c = pending.pop()
        names.update(c.co_names)
        pending.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return [
        _placed(ast.Import([_placed(ast.alias(name))]))
        for name in sorted(names)
        if isinstance(globals_.get(name), types.ModuleType) and name.isidentifier()
    ]


def _compiled_alone(node, code, qualname: str, globals_: dict):
    """The code object `node` compiles to in a module shaped as its original place: in a class
    of its enclosing class's name (private names, `__class__`), in a function whose parameters
    are its free variables, below the imports of the modules it uses; None when it does not
    compile."""
    body = [_placed(ast.Expr(value=node))] if isinstance(node, ast.Lambda) else [node]
    owner = _enclosing_class(qualname)
    if owner is not None:
        body = [_placed(ast.ClassDef(owner, [], [], body, [], **_TYPE_PARAMS))]
    free = [name for name in code.co_freevars if name != "__class__"]
    if free:
        arguments = ast.arguments(
            [], [_placed(ast.arg(name)) for name in free], None, [], [], None, []
        )
        body = [_placed(ast.FunctionDef("__scope__", arguments, body, [], None, **_TYPE_PARAMS))]
    body = _imports(code, globals_) + body
    module = ast.Module(body, [])
    try:
        module_code = deep_trees.with_room(
            lambda: compile(
                module,
                code.co_filename,
                "exec",
                flags=code.co_flags & _FUTURE_FLAGS,
                dont_inherit=True,
            ),
            module,
        )
    except RecursionError:
        return _TOO_DEEP
    except (SyntaxError, ValueError, TypeError):
        return None
    pending = [module_code]
    while pending:
        candidate = pending.pop(0)
        if candidate.co_name == code.co_name and candidate.co_firstlineno == code.co_firstlineno:
            return candidate
        pending.extend(c for c in candidate.co_consts if isinstance(c, types.CodeType))
    return None


_SAME_FIELDS = (
    "co_names",
    "co_varnames",
    "co_freevars",
    "co_cellvars",
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
)
# A method call on a name its module imports (`np.int64(1)`) is compiled as an attribute load and
# a plain call (PUSH_NULL ... LOAD_ATTR) instead of LOAD_METHOD: the same operation, told apart
# only by the module around the function, which is not compiled again.
_SAME_AS = {"LOAD_METHOD": "LOAD_ATTR"}
_IGNORED = frozenset(("PUSH_NULL", "EXTENDED_ARG", "CACHE"))  # (and how arguments are encoded)
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _instructions(code) -> list[tuple]:
    """(operation, argument, line) per instruction of `code`: jumps by the index of their
    target, constants by their index (compared apart), line numbers as they run."""
    instructions = [i for i in dis.get_instructions(code) if i.opname not in _IGNORED]
    offsets = [ins.offset for ins in instructions]
    out, line = [], None
    for ins in instructions:
        positions = getattr(ins, "positions", None)
        if positions is not None and positions.lineno is not None:
            line = positions.lineno
        elif positions is None and ins.starts_line is not None:  # (Python 3.10)
            line = ins.starts_line
        if ins.opcode in _JUMPS:
            argument = bisect.bisect_left(offsets, ins.argval)  # (the target's first kept one)
        elif ins.opcode in dis.hasconst:
            argument = ins.arg
        else:
            argument = ins.argval
        out.append((_SAME_AS.get(ins.opname, ins.opname), argument, line))
    return out


def _same_code(a, b) -> bool:
    """Code objects `a` (compiled from the file now) and `b` (the running one) do the same:
    instructions, names, constants (nested code too), lines."""
    if any(getattr(a, field) != getattr(b, field) for field in _SAME_FIELDS):
        return False
    if (a.co_flags ^ b.co_flags) & ~(inspect.CO_NESTED | inspect.CO_ITERABLE_COROUTINE):
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    if a.co_code == b.co_code:  # (the common case: no instruction to compare one by one)
        if list(a.co_lines()) != list(b.co_lines()):
            return False
    elif _instructions(a) != _instructions(b):
        return False
    return all(_same_constant(x, y) for x, y in zip(a.co_consts, b.co_consts))


def _same_constant(x, y) -> bool:
    if isinstance(x, types.CodeType) or isinstance(y, types.CodeType):
        return isinstance(x, types.CodeType) and isinstance(y, types.CodeType) and _same_code(x, y)
    if type(x) is not type(y):
        return False
    if type(x) in (tuple, frozenset):
        if type(x) is frozenset:
            x, y = sorted(x, key=repr), sorted(y, key=repr)
        return len(x) == len(y) and all(_same_constant(p, q) for p, q in zip(x, y))
    return repr(x) == repr(y)


def _lambda_args(node) -> list:
    return [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]


def _pick_lambda(code, candidates):
    """The one lambda of `candidates` (all on code's first line, with its arguments) that
    compiled to `code`: told apart by the column of the code's first instruction if needed."""
    if len(candidates) <= 1:
        return candidates
    # The first instruction (RESUME) spans nothing; the others lie inside the lambda's body.
    positions = [
        p
        for p in getattr(code, "co_positions", lambda: ())()
        if p[0] is not None and p[2] is not None and (p[1], p[3]) > (p[0], p[2])
    ]
    if positions:
        line, _, col, _ = min(positions, key=lambda p: (p[0], p[2] or 0))
        inside = [c for c in candidates if _covers(c.body, line, col)]
        if len(inside) == 1:
            return inside
    # Without positions (Python 3.10), or when they do not decide: the lambda whose own code,
    # compiled alone, uses the same constants and names.
    same = [c for c in candidates if _fingerprint(_compiled_lambda(c)) == _fingerprint(code)]
    return same if len(same) == 1 else candidates


def _compiled_lambda(node):
    try:
        code = compile(ast.Expression(node), "<lambda>", "eval")
    except (SyntaxError, ValueError):
        return None
    return next((c for c in code.co_consts if isinstance(c, types.CodeType)), None)


def _fingerprint(code) -> tuple:
    """What a lambda's code reads, whatever its context (a name it closes over compiles to a
    global when the lambda is compiled alone)."""
    if code is None:
        return None
    consts = tuple(repr(c) for c in code.co_consts if not isinstance(c, types.CodeType))
    names = frozenset(code.co_names + code.co_varnames + code.co_freevars + code.co_cellvars)
    return consts, names


def _spans_code(node, code) -> bool:
    """Every line of `code` lies inside `node` (a lambda found on code's first line)."""
    lines = [line for _, _, line in code.co_lines() if line is not None]
    return not lines or node.lineno <= min(lines) <= max(lines) <= node.end_lineno


def _covers(node, line, col) -> bool:
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (line, col or 0) < end


# filename -> (the linecache lines list, the parsed module or None when it does not parse)
_FILE_TREES: dict[str, tuple[list[str], object]] = {}


def _lambda_in_file(fn, all_lines):
    """The lambda of `fn` found by parsing its whole file (a lambda on a continuation line of
    a multi-line statement), or None when the file does not parse."""
    code = fn.__code__
    filename = code.co_filename
    entry = _FILE_TREES.get(filename)
    if entry is None or entry[0] is not all_lines:
        try:
            tree = ast.parse("".join(all_lines))
        except (SyntaxError, ValueError):
            tree = None
        entry = _remember(_FILE_TREES, filename, (all_lines, tree))
    tree = entry[1]
    if tree is None:
        return None
    want = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    found = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Lambda)
        and n.lineno == code.co_firstlineno
        and _lambda_args(n) == want
        and _spans_code(n, code)
    ]
    found = _pick_lambda(code, found)
    if len(found) != 1:
        return None
    node = copy.deepcopy(found[0])
    first, last = node.lineno, node.end_lineno
    return ParsedEntity(node, filename, 0, "".join(all_lines[first - 1 : last]))


def _parse_lambda(fn, text, line_offset):
    code = fn.__code__
    tree = None
    pad = "\n" * line_offset
    candidates = [text, "(" + text.strip() + "\n)"]
    stripped = text.strip()
    if "lambda" in stripped:
        candidates.append("(" + stripped[stripped.index("lambda") :].rstrip(",;\\") + "\n)")
    for candidate in candidates:
        try:
            tree = deep_trees.parse(pad + candidate)
            break
        except SyntaxError:
            continue
    if tree is None:
        raise errors.ConversionError(
            f"cannot convert the lambda at {code.co_filename}:{code.co_firstlineno}: "
            "its source line does not parse on its own"
        )
    want = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Lambda)
        and node.lineno == line_offset + 1
        and _lambda_args(node) == want
        and _spans_code(node, code)
    ]
    if len(found) != 1:
        raise errors.ConversionError(
            f"cannot convert the lambda at {code.co_filename}:{code.co_firstlineno}: "
            f"{'several lambdas' if found else 'no lambda'} with arguments {want} on that line"
        )
    return ParsedEntity(found[0], code.co_filename, 0, text)
