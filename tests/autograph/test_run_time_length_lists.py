"""list() of a staged iterable whose number of items is known only when the graph runs (a
tensor of unknown first dim, zip() or enumerate() of such, a range with a symbolic bound): a
staged list built by a staged loop, compared with eager."""

import numpy as np
import pytest

import staging


def burning_cells(grid):
    cells = list(zip(*np.nonzero(grid == 2)))
    codes = []
    for r, c in cells:
        codes.append(int(r) * 10 + int(c))
    if not cells:
        return [], codes, 0
    return cells, codes, len(cells)


def listed(x):
    kept = x[x > 0]
    return list(kept), list(enumerate(kept)), list(range(len(kept))), list(zip(kept, kept * 2))


def rows_of(m):
    return list(m[m[:, 0] > 0])


CASES = [
    (
        burning_cells,
        [
            np.array([[2, 1, 0], [0, 2, 2]]),
            np.array([[0, 1], [1, 0]]),
            np.array([[2]]),
            np.zeros((0, 3), dtype=np.int64),
        ],
    ),
    (
        listed,
        [
            np.array([1.0, -2.0, 3.0]),
            np.array([-1.0]),
            np.array([], dtype=np.float64),
            np.array([5, 0, 7], dtype=np.int32),
        ],
    ),
    (rows_of, [np.array([[1.0, 2.0], [-1.0, 0.0], [3.0, 4.0]]), np.zeros((0, 2))]),
]


@pytest.mark.parametrize("f, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_lists_of_run_time_length_are_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_items_keep_eagers_types():
    staged = staging.function(listed)(np.array([1.0, 2.0]))
    eager = listed(np.array([1.0, 2.0]))
    for got, want in zip(staged, eager):
        assert type(got) is list and len(got) == len(want)
        for a, b in zip(got, want):
            assert type(a) is type(b)
            if isinstance(a, tuple):
                assert [type(v) for v in a] == [type(v) for v in b]


def fields(codes, sep=44):
    out = []
    current = []
    for c in codes:
        if c == sep:
            out.append(bytes(current).decode())
            current = []
        else:
            current.append(int(c))
    out.append(bytes(current).decode("ascii", "replace"))
    return out


def test_bytes_of_a_staged_list_decodes_as_eagerly(same_as_eager):
    same_as_eager(
        fields,
        np.array([97, 44, 98, 99], dtype=np.uint8),
        np.array([], dtype=np.int64),
        np.array([44, 44]),
        np.array([200, 44, 97]),  # (not utf-8: UnicodeDecodeError, as eagerly)
        np.array([300, 44]),  # (out of range: ValueError, as eagerly)
    )
    assert staging.function(fields)(np.array([104, 105])) == ["hi"]


def test_other_uses_of_bytes_of_a_staged_list_are_refused_naming_the_line():
    def f(codes):
        current = []
        for c in codes:
            current.append(int(c))
        return len(bytes(current))

    with pytest.raises(staging.errors.SymbolicValueError) as info:
        staging.function(f)(np.array([1, 2]))
    assert str(info.value).startswith(f"{__file__}:{f.__code__.co_firstlineno + 4}:")
    assert "only bytes(lst).decode() is" in str(info.value)

    def g(codes):
        current = []
        for c in codes:
            current.append(c / 2)
        return bytes(current).decode()

    with pytest.raises(staging.errors.SymbolicValueError) as info:
        staging.function(g)(np.array([1, 2]))
    assert str(info.value).startswith(f"{__file__}:{g.__code__.co_firstlineno + 4}:")
