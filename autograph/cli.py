"""The `autograph` command line: to-code, graph, demo, lint, save and inspect.

    autograph to-code FILE.py:FUNC
    autograph graph FILE.py:FUNC --spec 'x=float64[None]' --spec 'n=int64[]' [--format text|dot|svg]
    autograph demo [EXAMPLE ...] [--list]
    autograph lint PATH...

to-code and graph import FILE.py (its top-level code runs). Output into a pipe closed early
(`autograph ... | head`) ends the command quietly.

Bad arguments print one `autograph: error: ...` line on stderr and exit non-zero
(2: usage, missing file or function, bad spec; 1: the function cannot be converted
or staged). `--traceback` shows the full Python traceback instead.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import os
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Sequence, TextIO

import numpy as np

USAGE_ERROR = 2
FAILURE = 1
IMPORT_NOTE = (
    "FILE.py is imported to find FUNC: its top-level code runs, as on `import` (code under "
    '`if __name__ == "__main__":` does not). `autograph lint` only reads files.'
)

# Anything numpy.dtype() accepts that makes a numeric or boolean tensor.
_SPEC = re.compile(r"^\s*(?:(?P<name>[A-Za-z_]\w*)\s*=\s*)?(?P<body>.*?)\s*$", re.DOTALL)
_TENSOR = re.compile(r"^(?P<dtype>[A-Za-z_]\w*)\s*(?:\[(?P<dims>[^\]]*)\])?$")
_LITERAL_NAMES = frozenset(("True", "False", "None"))
_DTYPE_ALIASES = {
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "c64": "complex64",
    "c128": "complex128",
    "bool": "bool",
}


class CLIError(Exception):
    """An error the command line reports as one line; `status` is the exit status."""

    def __init__(self, message: str, status: int = USAGE_ERROR):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------
# Argument helpers


def parse_spec(text: str) -> tuple[str | None, Any]:
    """Parses one --spec: `[name=]dtype[dims]` -> (name, TensorSpec), or `[name=]literal`.

    dims are comma separated ints, with `None` or `?` for an unknown dim; `int64[]` (or
    `int64` with no brackets) is a scalar. A Python literal (`n=3`, `flag=True`) is passed as that Python value.
    """
    import staging

    match = _SPEC.match(text)
    name, body = match.group("name"), match.group("body")
    if not body:
        raise CLIError(f"bad --spec {text!r}: expected NAME=DTYPE[DIMS], e.g. 'x=float64[None,3]'")
    tensor = _TENSOR.match(body)
    if tensor is None or body in _LITERAL_NAMES:
        import ast

        try:
            return name, ast.literal_eval(body)
        except (ValueError, SyntaxError):
            raise CLIError(
                f"bad --spec {text!r}: expected NAME=DTYPE[DIMS] such as "
                f"'x=float64[None,3]' or a Python literal such as 'n=3'"
            ) from None
    dtype_name = _DTYPE_ALIASES.get(tensor.group("dtype"), tensor.group("dtype"))
    try:
        dtype = np.dtype(dtype_name)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "biufc":
        raise CLIError(
            f"bad --spec {text!r}: unknown dtype {tensor.group('dtype')!r} "
            f"(use float64, float32, int64, int32, bool, complex128, ...)"
        )
    dims: list[int | None] = []
    dims_text = (tensor.group("dims") or "").strip()
    if dims_text:
        for dim in dims_text.split(","):
            dim = dim.strip()
            if dim in ("None", "?", "none"):
                dims.append(None)
            elif re.fullmatch(r"\d+", dim):
                dims.append(int(dim))
            else:
                raise CLIError(
                    f"bad --spec {text!r}: dimension {dim!r} is not a "
                    f"non-negative integer, None or ?"
                )
    return name, staging.TensorSpec(dims, dtype, name=name)


def parse_specs(texts: Sequence[str]) -> tuple[list, dict]:
    """(positional, keyword) specs from a list of --spec strings."""
    args: list = []
    kwargs: dict = {}
    for text in texts:
        name, spec = parse_spec(text)
        if name is None:
            if kwargs:
                raise CLIError(f"bad --spec {text!r}: unnamed specs must come before named ones")
            args.append(spec)
        elif name in kwargs:
            raise CLIError(f"bad --spec {text!r}: argument {name!r} given twice")
        else:
            kwargs[name] = spec
    return args, kwargs


def load_target(target: str):
    """The function named by `FILE.py:FUNC` (FUNC may be dotted: `Model.call`)."""
    from autograph.golden import load_module, resolve

    file_part, sep, func_part = target.rpartition(":")
    if not sep or not file_part or not func_part:
        raise CLIError(f"expected FILE.py:FUNC, got {target!r}")
    path = Path(file_part)
    if not path.is_file():
        raise CLIError(f"no such file: {file_part}")
    try:
        with contextlib.redirect_stdout(sys.stderr):  # a module's prints must not mix with output
            module = load_module(path)
    except SyntaxError as error:
        raise CLIError(
            f"cannot import {file_part}: SyntaxError: {error.msg} (line {error.lineno})"
        ) from None
    except Exception as error:  # the user's module failed while importing
        raise CLIError(f"cannot import {file_part}: {_describe(error)}") from None
    try:
        func = resolve(module, func_part)
    except LookupError:
        names = sorted(
            n
            for n, v in vars(module).items()
            if callable(v)
            and not n.startswith("_")
            and getattr(v, "__module__", None) == module.__name__
        )
        known = f" (it defines: {', '.join(names)})" if names else ""
        raise CLIError(f"{file_part} has no function {func_part!r}{known}") from None
    if not callable(func):
        raise CLIError(f"{file_part}:{func_part} is a {type(func).__name__}, not a function")
    return func


def _describe(error: BaseException) -> str:
    """One line naming an exception: its type and the first line of its message."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    message = lines[0] if lines else ""
    if len(lines) > 1:
        message += " " + " ".join(lines[1:])
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _python_function(func):
    import staging

    return func.python_function if isinstance(func, staging.Function) else func


# ---------------------------------------------------------------------------
# Commands


def cmd_to_code(args, out: TextIO) -> int:
    import autograph

    func = load_target(args.target)
    try:
        code = autograph.to_code(_python_function(func))
    except Exception as error:
        raise CLIError(f"cannot convert {args.target}: {_describe(error)}", FAILURE) from error
    out.write(code if code.endswith("\n") else code + "\n")
    return 0


def cmd_graph(args, out: TextIO) -> int:
    import staging

    func = load_target(args.target)
    spec_args, spec_kwargs = parse_specs(args.spec or [])
    function = (
        func
        if isinstance(func, staging.Function)
        else staging.function(func, autograph=not args.no_autograph)
    )
    try:
        _check_binding(_python_function(func), spec_args, spec_kwargs, args.target)
        with contextlib.redirect_stdout(sys.stderr):  # trace-time prints go to stderr
            cf = function.get_concrete_function(*spec_args, **spec_kwargs)
    except CLIError:
        raise
    except Exception as error:
        raise CLIError(f"cannot stage {args.target}: {_describe(error)}", FAILURE) from error
    if args.format == "dot":
        out.write(cf.graph.to_dot())
    elif args.format == "svg":
        from runtime.dot import GraphvizNotFoundError, to_svg

        try:
            out.write(to_svg(cf.graph).rstrip("\n") + "\n")
        except GraphvizNotFoundError as error:
            raise CLIError(f"--format svg: {error}", FAILURE) from None
    else:
        out.write(cf.pretty_printed_signature().rstrip("\n") + "\n\n")
        out.write(str(cf.graph).rstrip("\n") + "\n")
    return 0


def _check_binding(func, args, kwargs, target) -> None:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError as error:
        params = ", ".join(signature.parameters)
        raise CLIError(f"specs do not match {target}({params}): {error}") from None


def cmd_lint(args, out: TextIO) -> int:
    from autograph import lint

    return lint.main(list(args.lint_args))


def cmd_demo(args, out: TextIO) -> int:
    examples = discover_examples()
    if not examples:
        raise CLIError(
            "no bundled examples found (expected the examples/ directory of the "
            "autograph source tree)",
            FAILURE,
        )
    if args.list:
        for name, path in examples.items():
            out.write(f"{name:16} {_first_doc_line(path)}\n")
        return 0
    chosen = args.examples or list(examples)
    for name in chosen:
        if name not in examples:
            raise CLIError(f"no example {name!r} (examples: {', '.join(examples)})")
    for i, name in enumerate(chosen):
        if i:
            out.write("\n")
        run_example(name, examples[name], out, budget=args.budget)
    return 0


# ---------------------------------------------------------------------------
# The demo


def examples_directory() -> Path:
    """The repository's examples/ (source checkout or editable install), else the copy a
    regular install puts under <prefix>/share/autograph-numpy/examples."""
    checkout = Path(__file__).resolve().parent.parent / "examples"
    if checkout.is_dir():
        return checkout
    return Path(sys.prefix) / "share" / "autograph-numpy" / "examples"


def discover_examples() -> dict[str, Path]:
    directory = examples_directory()
    if not directory.is_dir():
        return {}
    return {p.stem: p for p in sorted(directory.glob("*.py")) if not p.name.startswith("_")}


def _first_doc_line(path: Path) -> str:
    import ast

    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except SyntaxError:
        return ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (
            isinstance(a, (list, tuple))
            and isinstance(b, (list, tuple))
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b))
        )
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, equal_nan=True))


def _fmt(value) -> str:
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_fmt(v) for v in value)
        return (
            f"[{inner}]"
            if isinstance(value, list)
            else f"({inner}{',' if len(value) == 1 else ''})"
        )
    if isinstance(value, np.ndarray) and value.ndim:
        return np.array2string(value, separator=", ", threshold=8)
    return repr(value.item()) if isinstance(value, (np.ndarray, np.generic)) else repr(value)


def _time_per_call(call, inputs, budget: float) -> float:
    """Seconds per call of `call` over `inputs`, measured for about `budget` seconds."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        calls, start = 0, time.perf_counter()
        while True:
            for args in inputs:
                call(*args)
            calls += len(inputs)
            now = time.perf_counter()
            if now >= start + budget and calls >= 3 * len(inputs):
                return (now - start) / calls


def _fmt_time(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds * 1e6:8.1f} us"


def run_example(name: str, path: Path, out: TextIO, budget: float = 0.25) -> None:
    """Shows one example end to end: source, converted code, graph, staged vs eager."""
    import autograph
    import staging
    from autograph.golden import load_module, split_specs

    module = load_module(path, f"autograph_example_{name}")
    func = module.DEMO_FUNCTION
    specs = getattr(module, "SPECS", None)
    inputs = [tuple(args) if isinstance(args, (list, tuple)) else (args,) for args in module.INPUTS]
    title = _first_doc_line(path)
    out.write(f"=== {name}: {title}\n")
    out.write(f"--- source ({path.name})\n")
    out.write(inspect.getsource(func).rstrip("\n") + "\n")
    out.write("--- converted code: autograph.to_code(" + func.__name__ + ")\n")
    out.write(autograph.to_code(func).rstrip("\n") + "\n")

    staged = staging.function(func)
    spec_args, spec_kwargs = split_specs(specs)
    shown_specs = ", ".join(
        [_fmt_spec(v) for v in spec_args] + [f"{k}={_fmt_spec(v)}" for k, v in spec_kwargs.items()]
    )
    out.write(f"--- tracing for the specs {shown_specs} (Python side effects run now, once)\n")
    cf, printed = _capture(lambda: staged.get_concrete_function(*spec_args, **spec_kwargs))
    _write_printed(out, printed, "  ")
    out.write("--- concrete function and its graph\n")
    out.write(cf.pretty_printed_signature().rstrip("\n") + "\n\n")
    out.write(str(cf.graph).rstrip("\n") + "\n")

    out.write("--- staged vs eager on the same inputs\n")
    for args in inputs:
        shown = ", ".join(_fmt(a) for a in args)
        out.write(f"{func.__name__}({shown})\n")
        staged_result, staged_printed = _capture(lambda: staged(*args))
        out.write(f"  staged -> {_fmt(staged_result)}\n")
        _write_printed(out, staged_printed, "    ")
        eager_result, eager_printed = _capture(lambda: func(*args))
        out.write(f"  eager  -> {_fmt(eager_result)}\n")
        _write_printed(out, eager_printed, "    ")
        if not _same(staged_result, eager_result):
            raise CLIError(
                f"example {name}: staged result {_fmt(staged_result)} differs from "
                f"eager result {_fmt(eager_result)} for inputs ({shown})",
                FAILURE,
            )
    out.write(f"agree: yes ({len(inputs)} inputs)\n")
    out.write(f"traces: {staged.tracing_count}\n")
    # (warmed up above) interleaved rounds, the best of each, as benchmarks/run.py does
    rounds = [
        (_time_per_call(staged, inputs, budget / 16), _time_per_call(func, inputs, budget / 16))
        for _ in range(8)
    ]
    staged_time, eager_time = min(r[0] for r in rounds), min(r[1] for r in rounds)
    ratio = staged_time / eager_time if eager_time > 0 else float("inf")
    out.write("--- time per call (timings vary from run to run)\n")
    out.write(f"  {'staged':8} {_fmt_time(staged_time)}\n")
    out.write(f"  {'eager':8} {_fmt_time(eager_time)}\n")
    out.write(
        f"  {'ratio':8} {ratio:8.2f}x  (staged time / eager time; below 1.00x staging is faster)\n"
    )


def _capture(call):
    """(result of call(), what it printed to stdout)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = call()
    return result, buffer.getvalue()


def _write_printed(out: TextIO, printed: str, indent: str) -> None:
    for line in printed.splitlines():
        out.write(f"{indent}| {line}\n")


def _fmt_spec(spec) -> str:
    import staging

    if isinstance(spec, staging.TensorSpec):
        dims = ",".join("None" if d is None else str(d) for d in spec.shape)
        return f"{spec.dtype.name}[{dims}]"
    return repr(spec)


# ---------------------------------------------------------------------------
# Parser and entry point


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and raise CLIError instead of exiting."""

    def error(self, message):
        raise CLIError(f"{message} (see `{self.prog} --help`)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="autograph",
        epilog=IMPORT_NOTE,
        description=(
            "Inspect converted code and staged graphs, run the demo, lint for tracing pitfalls."
        ),
    )
    parser.add_argument(
        "--traceback", action="store_true", help="show the full Python traceback on errors"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    to_code = commands.add_parser(
        "to-code",
        help="print the converted source of a function",
        epilog=IMPORT_NOTE,
        description="Print autograph.to_code(FUNC) for a function in FILE.py.",
    )
    to_code.add_argument("target", metavar="FILE.py:FUNC")
    to_code.set_defaults(run=cmd_to_code)

    graph = commands.add_parser(
        "graph",
        help="print the staged graph of a function for input specs",
        epilog=IMPORT_NOTE,
        description="Trace FUNC for the given input specs and print its concrete signature and graph.",
    )
    graph.add_argument("target", metavar="FILE.py:FUNC")
    graph.add_argument(
        "--spec",
        action="append",
        metavar="NAME=DTYPE[DIMS]",
        help="an input spec, e.g. 'x=float64[None]', 'm=float32[3,?]', 'n=int64[]' "
        "(scalar) or a Python value 'k=3'; repeat once per argument",
    )
    graph.add_argument(
        "--no-autograph", action="store_true", help="trace without converting control flow"
    )
    graph.add_argument(
        "--format",
        choices=("text", "dot", "svg"),
        default="text",
        help="text: the signature and the graph's text form (default); dot: the graph "
        "in Graphviz's DOT language, subgraphs as nested clusters; svg: a picture "
        "(needs Graphviz's `dot` program on PATH)",
    )
    graph.set_defaults(run=cmd_graph)

    demo = commands.add_parser(
        "demo",
        help="run the bundled examples end to end",
        description="Show source, converted code and graph of the bundled "
        "examples; run each staged and eager and compare.",
    )
    demo.add_argument(
        "examples", nargs="*", metavar="EXAMPLE", help="examples to run (default: all)"
    )
    demo.add_argument("--list", action="store_true", help="list the examples")
    demo.add_argument("--budget", type=float, default=0.25, help=argparse.SUPPRESS)
    demo.set_defaults(run=cmd_demo)

    lint = commands.add_parser(
        "lint", help="check files for tracing pitfalls (autograph lint --help)", add_help=False
    )
    lint.add_argument("lint_args", nargs=argparse.REMAINDER)
    lint.set_defaults(run=cmd_lint)
    from autograph import saving_cli  # save and inspect

    saving_cli.add_commands(commands, sys.modules[__name__])
    return parser


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Runs the command line with `argv` (default sys.argv[1:]); returns the exit status."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    leading = 0
    while leading < len(argv) and argv[leading] == "--traceback":
        leading += 1
    show_traceback = leading > 0
    try:
        if leading < len(argv) and argv[leading] == "lint":
            # Everything after `lint` belongs to autograph lint (its own options and --help).
            status = cmd_lint(argparse.Namespace(lint_args=argv[leading + 1 :]), out)
        else:
            show_traceback = show_traceback or "--traceback" in argv
            args = build_parser().parse_args(argv)
            if args.command is None:
                build_parser().print_help(out)
                status = USAGE_ERROR
            else:
                status = args.run(args, out)
        out.flush()  # a closed pipe shows here, not when Python flushes at exit
        return status
    except BrokenPipeError:
        # The reader went away (`autograph ... | head`): stop quietly, like any Unix filter.
        _silence_stdout(out)
        return FAILURE
    except CLIError as error:
        if show_traceback and error.__cause__ is not None:
            traceback.print_exception(error.__cause__, file=err)
        print(f"autograph: error: {error}", file=err)
        return error.status
    except KeyboardInterrupt:
        print("autograph: interrupted", file=err)
        return 130
    except Exception as error:  # a bug in a user's function or in autograph: still one line
        if show_traceback:
            traceback.print_exc(file=err)
        print(f"autograph: error: {_describe(error)} (run with --traceback for details)", file=err)
        return FAILURE


def _silence_stdout(out) -> None:
    """After a broken pipe: stdout goes to the null device, so Python's flush at exit is quiet."""
    if out is not sys.stdout:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a replaced stdout)
        pass


def run() -> None:
    """Console-script wrapper: exits with main()'s status."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
