"""The inputs NumPy users pass: memory maps and plain ndarray subclasses are staged as their
base arrays; subclasses that compute differently, and object arrays, are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import staging


def scale(x, k=2.0):
    return x * k + 1


class Tagged(np.ndarray):
    """A subclass that only adds an attribute: it computes as an ndarray."""

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", None)


class Clipping(np.ndarray):
    """A subclass that redefines an operator."""

    def __add__(self, other):
        return np.clip(np.asarray(self) + other, 0, 1)


@pytest.mark.stress
def test_memmap_and_np_load_mmap_are_staged_as_arrays(tmp_path):
    f = staging.function(scale)
    data = np.arange(6.0)
    mapped = np.memmap(tmp_path / "data.bin", dtype=np.float64, mode="w+", shape=(6,))
    mapped[:] = data
    np.save(tmp_path / "data.npy", data)
    loaded = np.load(tmp_path / "data.npy", mmap_mode="r")
    for value in (mapped, loaded):
        out = f(value)
        assert type(out) is np.ndarray
        np.testing.assert_array_equal(out, scale(data))
    assert f.tracing_count == 1  # a memory map has the trace key of its base array
    np.testing.assert_array_equal(mapped, data)  # never written


@pytest.mark.stress
def test_plain_subclass_is_its_base_array():
    f = staging.function(scale)
    value = np.arange(3.0).view(Tagged)
    value.tag = "t"
    out = f(value)
    np.testing.assert_array_equal(out, scale(np.arange(3.0)))
    assert type(out) is np.ndarray  # (eagerly a Tagged: staged results are plain arrays)


@pytest.mark.stress
@pytest.mark.parametrize(
    "value, words",
    [
        (np.matrix([[1.0, 2.0]]), "numpy.matrix, whose operators differ"),
        (np.ma.masked_array([1.0, 2.0], [0, 1]), "masked array"),
        (np.array([object(), 1]), "object array (dtype=object)"),
        (
            np.arange(2.0).view(Clipping),
            "Clipping, an ndarray subclass that redefines how it computes",
        ),
    ],
    ids=["matrix", "masked", "object", "operator-subclass"],
)
def test_arrays_that_compute_differently_are_refused_by_name(value, words):
    f = staging.function(scale)
    line = __import__("inspect").currentframe().f_lineno + 2
    with pytest.raises(TypeError) as info:
        f(np.ones(2), k=value)
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line}: scale(): argument 'k' is ")
    assert words in message
