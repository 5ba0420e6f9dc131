"""Static value types of the graph IR: a dtype plus a shape whose dims may be unknown."""

from __future__ import annotations

import numpy as np

_SHORT_NAMES = {
    "bool": "bool",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "c64",
    "complex128": "c128",
}
_LONG_NAMES = {short: long for long, short in _SHORT_NAMES.items()}


def dtype_short_name(dtype) -> str:
    """`float64` -> `f64`; dtypes without a short name keep NumPy's name."""
    dtype = np.dtype(dtype)
    return _SHORT_NAMES.get(dtype.name, dtype.str if dtype.kind in "SUV" else dtype.name)


def dtype_from_name(name: str) -> np.dtype:
    """Accepts short (`f64`) and NumPy (`float64`) names."""
    return np.dtype(_LONG_NAMES.get(name, name))


def normalize_shape(shape) -> tuple:
    if shape is None:
        raise TypeError(
            "a shape of unknown rank is not supported; give every dim (None for unknown)"
        )
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    dims = []
    for d in shape:
        if d is None:
            dims.append(None)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
            dims.append(int(d))
        else:
            raise TypeError(
                f"invalid dimension {d!r} in shape {tuple(shape)!r}: use a non-negative int or None"
            )
    return tuple(dims)


# The types of Python numbers, with the dtype NumPy gives each on its own.
PYTHON_SCALAR_DTYPES = {
    bool: np.dtype(np.bool_),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}
_PYTHON_TYPE_OF = {dtype: t for t, dtype in PYTHON_SCALAR_DTYPES.items()}


class TensorType:
    """(dtype, shape) of a graph value; `None` dims are unknown until run time.

    A weak type (`weak=True`) is the type of a Python number whose value is known only when
    the graph runs (a loop counter that starts as `0`, `len()` of a staged list): at run time
    the value is a Python bool, int, float or complex, combined with NumPy values by NEP 50
    (it takes the dtype of the array it meets) and with other Python numbers by Python's own
    arithmetic. Its dtype is the one NumPy gives that Python type; its shape is ().
    """

    __slots__ = ("dtype", "shape", "weak", "_hash")

    def __init__(self, dtype, shape=(), weak: bool = False):
        object.__setattr__(self, "dtype", np.dtype(dtype))
        object.__setattr__(self, "shape", normalize_shape(shape))
        weak = bool(weak)
        if weak and (self.shape != () or self.dtype not in _PYTHON_TYPE_OF):
            raise TypeError(
                f"a weak type is a Python number's: shape () and dtype bool, int64, float64 "
                f"or complex128, not {self.dtype.name}{list(self.shape)}"
            )
        object.__setattr__(self, "weak", weak)
        object.__setattr__(self, "_hash", hash((self.dtype, self.shape, weak)))

    def __setattr__(self, name, value):
        raise AttributeError("TensorType is immutable")

    @classmethod
    def of(cls, value) -> "TensorType":
        """The exact type of a concrete NumPy value, or the weak type of a Python number."""
        python_type = type(value)
        if python_type in PYTHON_SCALAR_DTYPES:
            return cls(PYTHON_SCALAR_DTYPES[python_type], (), weak=True)
        value = np.asarray(value)
        return cls(value.dtype, value.shape)

    @classmethod
    def python_scalar(cls, python_type) -> "TensorType":
        """The weak type of values of `python_type` (bool, int, float or complex)."""
        return cls(PYTHON_SCALAR_DTYPES[python_type], (), weak=True)

    @property
    def python_type(self):
        """bool, int, float or complex for a weak type; None for a NumPy type."""
        return _PYTHON_TYPE_OF[self.dtype] if self.weak else None

    def strong(self) -> "TensorType":
        """The NumPy type a value of this type becomes in NumPy (np.asarray(x))."""
        return TensorType(self.dtype, self.shape) if self.weak else self

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_fully_defined(self) -> bool:
        return None not in self.shape

    def __eq__(self, other):
        return (
            isinstance(other, TensorType)
            and self.dtype == other.dtype
            and self.shape == other.shape
            and self.weak == other.weak
        )

    def __hash__(self):
        return self._hash

    def __repr__(self):
        weak = ", weak=True" if self.weak else ""
        return f"TensorType({self.dtype.name}, {self.shape}{weak})"

    def __str__(self):
        if self.weak:
            return self.python_type.__name__
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"{dtype_short_name(self.dtype)}[{dims}]"

    def is_supertype_of(self, other: "TensorType") -> bool:
        """True when every value of `other` is also a value of `self` (`[None]` >= `[3]`)."""
        if (
            self.dtype != other.dtype
            or len(self.shape) != len(other.shape)
            or self.weak != other.weak
        ):
            return False
        return all(a is None or a == b for a, b in zip(self.shape, other.shape))

    def accepts_shape(self, shape: tuple) -> bool:
        if len(shape) != len(self.shape):
            return False
        return all(a is None or a == b for a, b in zip(self.shape, shape))

    def most_specific_common_supertype(self, other: "TensorType"):
        """The narrowest type accepting both, or None when dtype, rank or weakness differ."""
        if self == other:
            return self
        if (
            self.dtype != other.dtype
            or len(self.shape) != len(other.shape)
            or self.weak != other.weak
        ):
            return None
        return TensorType(
            self.dtype, tuple(a if a == b else None for a, b in zip(self.shape, other.shape))
        )


def accepts(declared, actual) -> bool:
    """Whether a value of type `actual` may stand where type `declared` is expected: the same
    kind of type, and `declared` is `actual` or less specific (`f64[?]` accepts `f64[3]`)."""
    return type(declared) is type(actual) and declared.is_supertype_of(actual)


def broadcast_shapes(*shapes):
    """NumPy broadcasting over shapes with unknown (`None`) dims.

    Raises ValueError when two known dims cannot broadcast.
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(ndim):
        dims = [s[len(s) - ndim + axis] for s in shapes if len(s) - ndim + axis >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(
                f"shapes {' and '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together"
            )
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)
