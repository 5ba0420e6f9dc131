"""The loader against damaged and hostile files: each is a LoadError with a clear message, never
another exception, a crash or unbounded allocation (peak memory checked with tracemalloc)."""

import io
import json
import random
import tracemalloc
import zipfile

import numpy as np
import pytest

import staging
from staging.errors import LoadError
from staging.saving import archive

MEMORY_CEILING = 64 << 20  # bytes a single load may allocate at its peak


@pytest.fixture(scope="module")
def valid_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("valid") / "f.stg"
    var = staging.Variable(np.arange(4.0), name="v")

    @staging.function
    def f(x, n):
        total = x * np.array([1.0, 2.0, 3.0, 4.0])
        for i in range(n):
            if total.sum() > 10:
                total = total - 1.0
            else:
                total = total + var.read_value()
        var.assign(total)
        return total[1:3], total.max()

    f.get_concrete_function(staging.TensorSpec([4], np.float64), staging.TensorSpec([], np.int64))
    staging.save(f, path)
    return path


def _load_bounded(path, **kwargs):
    """Loads `path`; returns the LoadError or the loaded function; asserts the memory ceiling."""
    tracemalloc.start()
    try:
        try:
            result = staging.load(path, **kwargs)
        except LoadError as exc:
            result = exc
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_CEILING, f"loading took {peak} bytes"
    return result


def _document(path):
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read(archive.JSON_ENTRY)), {n: zf.read(n) for n in zf.namelist()}


def _write(path, document=None, entries=None, raw_json=None):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(archive.JSON_ENTRY, raw_json if raw_json is not None else json.dumps(document))
        for name, data in (entries or {}).items():
            if name != archive.JSON_ENTRY:
                zf.writestr(name, data)
    return path


def test_valid_file_loads_and_runs(valid_file):
    g = _load_bounded(valid_file)
    assert not isinstance(g, LoadError), g
    out = g(np.ones(4), np.int64(2))
    assert out[0].shape == (2,)


def test_random_byte_flips_and_truncations(valid_file, tmp_path):
    data = valid_file.read_bytes()
    rng = random.Random(1234)
    outcomes = {"error": 0, "loaded": 0}
    for trial in range(150):
        damaged = bytearray(data)
        if trial % 3 == 0:
            damaged = damaged[: rng.randrange(len(damaged))]
        else:
            for _ in range(rng.randint(1, 4)):
                damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        path = tmp_path / f"d{trial}.stg"
        path.write_bytes(bytes(damaged))
        result = _load_bounded(path)
        if isinstance(result, LoadError):
            assert str(result).startswith("cannot load ") and len(str(result)) > 20
            outcomes["error"] += 1
        else:  # a flip in a field nothing reads (a timestamp): the file is still valid
            result(np.ones(4), np.int64(2))
            outcomes["loaded"] += 1
    assert outcomes["error"] > 100


def _mutated(valid_file, tmp_path, mutate):
    document, entries = _document(valid_file)
    mutate(document)
    return _write(tmp_path / "h.stg", document, entries)


def _first_node(document):
    return document["functions"][0]["graph"]["nodes"][0]


HOSTILE_DOCUMENTS = {
    "unknown op": (
        lambda d: _first_node(d).update(op="os_system"),
        "no op named 'os_system' is registered",
    ),
    "py_function op": (
        lambda d: _first_node(d).update(op="py_function"),
        "op 'py_function' cannot be loaded",
    ),
    "wrong type of field": (
        lambda d: _first_node(d).update(inputs="x"),
        "inputs must be a list, got a string",
    ),
    "unknown value tag": (
        lambda d: _first_node(d)["attrs"].update(value={"t": "pickle", "data": "..."}),
        "unknown value tag 'pickle'",
    ),
    "unknown dtype": (
        lambda d: d["functions"][0]["graph"]["inputs"][0]["type"].update(dtype="object"),
        "dtype 'object' is not one of",
    ),
    "huge declared shape": (
        lambda d: d["functions"][0]["graph"]["inputs"][0]["type"].update(shape=[1 << 30, 1 << 30]),
        "declares more than",
    ),
    "bad attribute": (
        lambda d: _first_node(d)["attrs"].update(surprise=1),
        "op 'const' has no attribute 'surprise'",
    ),
    "dangling reference": (lambda d: _first_node(d).update(inputs=[999]), "not defined before it"),
    "forward function reference": (
        lambda d: d["signatures"][0].update(function=5),
        "function 5 is not defined",
    ),
    "newer version": (
        lambda d: d.update(version=99),
        "format version 99; this version of staging reads versions 1",
    ),
    "other format": (lambda d: d.update(format="pickle"), "not a saved function"),
    "extra field": (lambda d: d.update(code="import os"), "unknown fields ['code']"),
    "output type lie": (
        lambda d: d["functions"][0]["graph"]["nodes"][0]["outputs"][0].update(dtype="int8"),
        "do not match the op's rule",
    ),
    "error class by name": (
        lambda d: _first_node(d)["attrs"].update(value={"t": "error_class", "name": "SystemExit"}),
        "error class 'SystemExit' is not one of",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_DOCUMENTS))
def test_hostile_documents(name, valid_file, tmp_path):
    mutate, message = HOSTILE_DOCUMENTS[name]
    result = _load_bounded(_mutated(valid_file, tmp_path, mutate))
    assert isinstance(result, LoadError), result
    assert message in str(result)


def test_deep_nesting(tmp_path):
    raw = (
        '{"format": "staging.saved_function", "version": 1, "name": '
        + "[" * 100000
        + "]" * 100000
        + "}"
    )
    result = _load_bounded(_write(tmp_path / "deep.stg", raw_json=raw))
    assert isinstance(result, LoadError) and "nested too deeply" in str(result)


def test_deeply_nested_values(valid_file, tmp_path):
    value = 1
    for _ in range(200):
        value = {"t": "tuple", "items": [value]}
    result = _load_bounded(
        _mutated(valid_file, tmp_path, lambda d: _first_node(d)["attrs"].update(value=value))
    )
    assert isinstance(result, LoadError) and "nested more than 64 levels" in str(result)


def _npy(header: str, body: bytes = b"") -> bytes:
    header = header.ljust(118) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1") + body


@pytest.mark.parametrize(
    "header, message",
    [
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000), }",
            "needs more bytes",
        ),
        (
            "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
            "is not a number or bool dtype",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': __import__('os')}",
            "not a literal dict",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
            "does not fit the entry's 16 bytes",
        ),
    ],
)
def test_hostile_arrays(header, message, valid_file, tmp_path):
    document, entries = _document(valid_file)
    arrays = sorted(n for n in entries if n.startswith("arrays/"))
    entries[arrays[0]] = _npy(header, b"\0" * 16)
    result = _load_bounded(_write(tmp_path / "a.stg", document, entries))
    assert isinstance(result, LoadError) and message in str(result)


def test_zip_bomb_is_refused_before_decompressing(valid_file, tmp_path):
    document, entries = _document(valid_file)
    path = _write(tmp_path / "bomb.stg", document, entries)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("arrays/bomb.npy", "w", force_zip64=True) as f:
            chunk = bytes(1 << 20)
            for _ in range(300):
                f.write(chunk)
    result = _load_bounded(path)
    assert isinstance(result, LoadError) and "a zip bomb?" in str(result)
    result = _load_bounded(valid_file, max_bytes=100)
    assert isinstance(result, LoadError) and "raise max_bytes=" in str(result)


def test_too_many_entries(tmp_path):
    path = tmp_path / "many.stg"
    with zipfile.ZipFile(path, "w") as zf:
        for i in range(archive.MAX_ENTRIES + 1):
            zf.writestr(f"arrays/{i}.npy", b"")
    result = _load_bounded(path)
    assert isinstance(result, LoadError) and "more than 10000" in str(result)


def test_lying_size_header(valid_file, tmp_path):
    """An entry whose header declares fewer bytes than its stream holds is read up to the
    declared size and refused."""
    buffer = io.BytesIO(valid_file.read_bytes())
    with zipfile.ZipFile(buffer) as zf:
        info = zf.getinfo(archive.JSON_ENTRY)
        offset, size = info.header_offset, info.file_size
    data = bytearray(buffer.getvalue())
    # the local header's uncompressed-size field is at offset 22; the central directory has another
    data[offset + 22 : offset + 26] = (size // 2).to_bytes(4, "little")
    central = data.rfind(b"PK\x01\x02" + data[offset + 4 : offset + 6])
    index = data.find(archive.JSON_ENTRY.encode(), central) - 46
    data[index + 24 : index + 28] = (size // 2).to_bytes(4, "little")
    path = tmp_path / "lie.stg"
    path.write_bytes(bytes(data))
    result = _load_bounded(path)
    assert isinstance(result, LoadError), result
