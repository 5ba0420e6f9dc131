"""Error types raised by staging and autograph; every one names the user's file:line."""

from __future__ import annotations


class StagingError(Exception):
    """Base of every error this project raises on purpose."""


class ConversionError(StagingError):
    """autograph could not convert a function (source unavailable, syntax it cannot handle)."""


class UnsupportedConstructError(ConversionError):
    """A construct that cannot be staged: generators, `yield`, `async`, `try` around
    symbolic control flow, `global`/`nonlocal` writes from staged branches..."""


class SourceChangedError(ConversionError):
    """The source file of a function was edited after the function was defined (its module was
    not reloaded): the code in the file is not the code that runs, so it is not converted."""


class NestingTooDeepError(UnsupportedConstructError, RecursionError):
    """An expression nested too deeply to convert (tens of thousands of levels), or staged
    functions each traced inside the one calling it nested deeper than tracing allows."""


class UndefinedNameError(StagingError, UnboundLocalError):
    """A name assigned in only one branch of a staged `if` (or only inside a
    staged loop) is used afterwards, or a name is read before it is assigned.
    It is an UnboundLocalError (a NameError), as the same read raises in Python."""


class MissingAttributeError(StagingError, AttributeError):
    """An attribute set on only some paths of staged control flow is read on a path that did
    not set it (an AttributeError, as the same read raises in Python)."""


class UnstagedAttributeError(StagingError, AttributeError):
    """An ndarray attribute or method that symbolic tensors do not stage (`x.tobytes()`): the
    value exists only when the graph runs. Also an AttributeError, so `hasattr` says False."""


class SymbolicValueError(StagingError, TypeError):
    """A symbolic tensor was used where Python needs a concrete value
    (`bool(t)`, `int(t)`, `len(t)` of unknown length, iterating it outside
    converted code)."""


class UnsupportedOpError(StagingError, TypeError):
    """A NumPy function or Python operation that has no registered op."""


class MutationError(StagingError, TypeError):
    """An in-place write into a symbolic array (`x[i] = v`, `x += v`, `x.sort()`, `x.fill(v)`)
    that cannot be staged faithfully: into an argument (eager code would modify the caller's
    array), into a tensor created outside the staged `if` or loop body doing the write, through
    the result of a reshape (NumPy makes a view or a copy depending on memory layout), or into
    an array in a list built by a staged loop. Also raised when a tensor that eagerly would show
    a write does not: a reshape result read after its base was written, or a value that may be
    a written array through a staged `if` or loop."""


class LeakedTensorError(StagingError):
    """A symbolic tensor was used outside the trace that created it."""


class RecursionInTraceError(StagingError, RecursionError):
    """A Function was called from its own trace."""


class LoopVariableError(StagingError, TypeError):
    """A loop variable changed dtype or structure between iterations."""


class BranchMismatchError(StagingError, TypeError):
    """The two branches of a staged `if` produce values that cannot be merged."""


class BranchesRaiseError(StagingError):
    """Kept so that code naming it still imports: nothing is raised as BranchesRaiseError any
    more. When both branches of a staged `if` raise while traced, the graph raises, when it
    runs, the error of the branch taken (staging.control_flow.raising)."""


class ExecutionError(StagingError):
    """Kept so that code naming it still imports: nothing is raised as ExecutionError any more.
    An exception raised while a staged graph runs (by NumPy, an assert, a py_function, ...)
    reaches the caller as itself, its type and attributes unchanged, as it would eagerly, with
    a note (PEP 678, shown in the traceback) naming the failing node and the user's file:line
    that created it."""


class SaveError(StagingError, ValueError):
    """staging.save cannot write a function: the message names what the format cannot hold (a
    py_function node, a Python object in an attribute or a result) and the user's line."""


class LoadError(StagingError, ValueError):
    """staging.load rejects a file: not a saved function, a version it does not read, or content
    that fails a check (corrupted, truncated or hostile). Nothing from the file has run."""


class GradientError(StagingError, TypeError):
    """A gradient that cannot be computed: an op on the path from the sources to the target
    without a gradient rule (named, with the user's line), a target that is not a float scalar,
    or a target that no source reaches."""
