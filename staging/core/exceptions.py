"""The symbolic caught exception: `e` in `except E as e:` of a staged `try`, an exception that
is known only when the graph runs.

A leaf of the tracing core, like staging.core.tensor. Staged code can raise it again (`raise`,
`raise e`), chain it (`raise Other(...) from e`), pass it to the constructor of the exception it
raises, print it and test its class (`isinstance(e, C)`); each happens when the graph runs, on
the exception the `try` caught. What it holds (`e.args`, its attributes, its text) is known only
then, so reading it while tracing is refused.
"""

from __future__ import annotations

from staging import errors
from staging.core.source_map import where
from staging.core.tensor import Tensor

# what the tracing code itself reads of any value (the others are the user's reads of `e`)
_OWN = frozenset(("type", "graph", "static_shape", "static_dtype", "static_ndim", "item"))


class SymbolicException(Tensor):
    """An exception a staged `try` catches when the graph runs (its graph type is a
    runtime.types.ExceptionType: the classes of the `except` clause)."""

    __slots__ = ()

    @property
    def classes(self) -> tuple:
        return self._value.type.classes

    def _describe(self) -> str:
        return f"<{self._value.type}>"

    def __repr__(self):
        return f"<staging caught {self._value.type} in trace of {self._graph.function_name!r}>"

    def _unknown(self, what: str) -> errors.SymbolicValueError:
        names = " or ".join(c.__name__ for c in self.classes)
        return errors.SymbolicValueError(
            f"{where()}{what} of the {names} this `except` clause catches when the staged graph "
            f"runs: the exception is known only then. Staged code can raise it again (`raise`), "
            f"chain it (`raise ... from e`), pass it to the exception it raises, print it and "
            f"test its class (isinstance); read what it holds outside the staged function"
        )

    def __getattribute__(self, name):
        if name.startswith("_") or name in _OWN or name == "classes":
            return object.__getattribute__(self, name)
        raise self._unknown(f"`.{name}`")

    def __str__(self):
        raise self._unknown("str()")

    def __format__(self, spec):
        raise self._unknown("formatting (an f-string, format())")

    def __bool__(self):
        return True  # an exception object is true, whatever it is


def is_caught_exception(x) -> bool:
    return isinstance(x, SymbolicException)
