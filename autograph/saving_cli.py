"""The `autograph save` and `autograph inspect` commands (staging.save / staging.load).

    autograph save FILE.py:FUNC --spec 'x=float64[None]' ... -o OUT.stg
    autograph inspect OUT.stg

save traces FUNC for the specs (as `autograph graph` does) and writes the saved function;
inspect loads a saved file (its checks run; nothing of the user's code is needed) and prints
its format version, Variables, signatures and graphs.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import TextIO


def add_commands(commands, cli) -> None:
    """Adds `save` and `inspect` to the subcommands of the `autograph` parser; `cli` is the
    autograph.cli module (its target loading, spec parsing and errors; passed in, not imported,
    so that the two modules do not import each other)."""
    save = commands.add_parser(
        "save",
        help="save the staged function for input specs to one file",
        epilog=cli.IMPORT_NOTE,
        description="Trace FUNC for the given input specs and save it with staging.save; the file "
        "runs with staging.load, without FILE.py.",
    )
    save.add_argument("target", metavar="FILE.py:FUNC")
    save.add_argument(
        "--spec",
        action="append",
        metavar="NAME=DTYPE[DIMS]",
        help="an input spec as for `autograph graph`; repeat once per argument",
    )
    save.add_argument("-o", "--output", required=True, metavar="OUT", help="the file to write")
    save.add_argument(
        "--no-autograph", action="store_true", help="trace without converting control flow"
    )
    save.set_defaults(run=functools.partial(cmd_save, cli=cli))
    inspect = commands.add_parser(
        "inspect",
        help="print the signatures and graphs of a saved function",
        description="Load a file written by staging.save (checking it) and print its signatures and graphs.",
    )
    inspect.add_argument("file", metavar="FILE")
    inspect.set_defaults(run=functools.partial(cmd_inspect, cli=cli))


def cmd_save(args, out: TextIO, cli) -> int:
    import staging

    FAILURE, CLIError, _describe = cli.FAILURE, cli.CLIError, cli._describe  # noqa: N806
    func = cli.load_target(args.target)
    spec_args, spec_kwargs = cli.parse_specs(args.spec or [])
    function = (
        func
        if isinstance(func, staging.Function)
        else staging.function(func, autograph=not args.no_autograph)
    )
    try:
        cli._check_binding(cli._python_function(func), spec_args, spec_kwargs, args.target)
        with contextlib.redirect_stdout(sys.stderr):  # trace-time prints go to stderr
            cf = function.get_concrete_function(*spec_args, **spec_kwargs)
    except CLIError:
        raise
    except Exception as error:
        raise CLIError(f"cannot stage {args.target}: {_describe(error)}", FAILURE) from error
    try:
        staging.save(cf, args.output)
    except (staging.errors.SaveError, OSError) as error:
        raise CLIError(f"cannot save {args.target}: {_describe(error)}", FAILURE) from None
    out.write(f"saved {cf.pretty_printed_signature(verbose=False)} to {args.output}\n")
    return 0


def cmd_inspect(args, out: TextIO, cli) -> int:
    import staging

    try:
        loaded = staging.load(args.file)
    except staging.errors.LoadError as error:
        raise cli.CLIError(str(error), cli.FAILURE) from None
    out.write(inspect_text(loaded))
    return 0


def inspect_text(loaded) -> str:
    """What `autograph inspect` prints for a loaded function."""
    lines = [
        f"{loaded.name}: saved function, format version {loaded.format_version}, "
        f"{len(loaded.signatures)} signature(s)"
    ]
    for var in loaded.variables:
        lines.append(f"variable {var.name!r}: {var.dtype.name}{list(var.shape)}")
    for cf in loaded.signatures:
        lines += ["", cf.pretty_printed_signature(), "", str(cf.graph).rstrip("\n")]
    return "\n".join(lines) + "\n"
