"""The symbolic random generator: a graph value that is an np.random.Generator, RandomState,
random.Random or bit generator, whose methods record draws made when the graph runs.

A leaf of the tracing core, like staging.core.tensor: staging.effects.random_ops installs how a method call
is recorded (`SymbolicGenerator._stage_method`).
"""

from __future__ import annotations

from staging import errors
from staging.core.source_map import where
from staging.core.tensor import Tensor


class SymbolicGenerator(Tensor):
    """A generator known only when the graph runs: an argument of the staged function (a graph
    input, so every generator of the same class shares one trace), or one the staged code made
    (`np.random.default_rng(seed)`). `g.normal(...)` records a draw from it."""

    __slots__ = ()
    _stage_method = (
        None  # (generator, method name, args, kwargs) -> result; see staging.effects.random_ops
    )

    @property
    def generator_class(self) -> type:
        return self._value.type.cls

    def _describe(self) -> str:
        return f"<{self._value.type}>"

    def __repr__(self):
        return f"<staging symbolic {self._value.type} in trace of {self._graph.function_name!r}>"

    __str__ = __repr__

    def __getattr__(self, name):
        cls = self._value.type.cls
        attr = getattr(cls, name, None)
        if name.startswith("_") or attr is None:
            raise AttributeError(f"{where()}{cls.__name__!r} object has no attribute {name!r}")
        if not callable(attr):
            raise errors.UnsupportedOpError(
                f"{where()}`.{name}` of a {cls.__name__} that is a staged value (an argument of the "
                f"staged function, or made in it) is not known while tracing; only its methods can "
                f"be called"
            )
        stage = type(self)._stage_method

        def method(*args, **kwargs):
            return stage(self, name, args, kwargs)

        method.__name__ = name
        method.__qualname__ = f"{cls.__name__}.{name}"
        return method
