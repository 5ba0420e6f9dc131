"""The container: one zip file holding `saved_function.json` and `arrays/<i>.npy` entries.

Reading is bounded before anything is decompressed: the number of entries, each entry's
declared size and their total are checked against the limits, and each entry is read with a
cap of its declared size (a lying header fails the read, never grows it). `.npy` entries are
parsed by hand: the header's dtype must be a number or bool dtype, its shape must fit the
entry's bytes exactly; arrays never go through pickle.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import tempfile
import zipfile

import numpy as np

from staging.saving.values import DTYPES, MAX_DIMS, FormatError, expect

JSON_ENTRY = "saved_function.json"
MAX_ENTRIES = 10_000
MAX_JSON_BYTES = 64 << 20
MAX_TOTAL_BYTES = 4 << 30  # default cap on the uncompressed size of all entries
MAX_RATIO = 1000  # uncompressed / compressed size beyond this is a zip bomb
_NPY_MAGIC = b"\x93NUMPY"


def write(path, document: dict, arrays: list) -> None:
    """Writes the archive atomically: into a new temporary file of the target's directory
    (created exclusively, with a name nobody can predict, so no planted link redirects the
    write), renamed over `path` when complete; the temporary file is removed on any error."""
    path = os.fspath(path)
    text = json.dumps(document, indent=1, sort_keys=True, allow_nan=False, ensure_ascii=True)
    directory, name = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                _write_entry(zf, JSON_ENTRY, text.encode("ascii"))
                for i, arr in enumerate(arrays):
                    buf = io.BytesIO()
                    np.lib.format.write_array(buf, arr, allow_pickle=False)
                    _write_entry(zf, f"arrays/{i}.npy", buf.getvalue())
            if hasattr(os, "fchmod"):  # (mkstemp makes it 0600: the mode a new file gets)
                os.fchmod(f.fileno(), 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's umask, read without changing it where the system tells (Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # (elsewhere: set and restored at once)
    os.umask(mask)
    return mask


def _write_entry(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # same function, same bytes
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    zf.writestr(info, data)


class Archive:
    """An opened archive whose directory has passed the limits; entries are read on demand."""

    def __init__(self, path, max_bytes: int = MAX_TOTAL_BYTES):
        try:
            self._zip = zipfile.ZipFile(path, "r")
        except (zipfile.BadZipFile, NotImplementedError, EOFError, ValueError) as exc:
            raise FormatError(f"not a saved function (not a zip file: {exc})") from None
        infos = self._zip.infolist()
        expect(
            len(infos) <= MAX_ENTRIES, f"the file has {len(infos)} entries, more than {MAX_ENTRIES}"
        )
        self._entries = {}
        total = 0
        for info in infos:
            expect(info.filename not in self._entries, f"entry {info.filename!r:.80} appears twice")
            expect(
                info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED),
                f"entry {info.filename!r:.80} uses an unsupported compression method",
            )
            expect(
                info.file_size <= max(info.compress_size, 1 << 16) * MAX_RATIO,
                f"entry {info.filename!r:.80} declares {info.file_size} bytes from {info.compress_size} "
                f"compressed (a zip bomb?)",
            )
            total += info.file_size
            expect(
                total <= max_bytes,
                f"the entries declare more than {max_bytes} bytes in all "
                f"(raise max_bytes= to load a larger file)",
            )
            self._entries[info.filename] = info

    def close(self):
        self._zip.close()

    def read(self, name: str, limit: int) -> bytes:
        info = self._entries.get(name)
        expect(info is not None, f"the file has no entry {name!r:.80}")
        expect(
            info.file_size <= limit,
            f"entry {name!r:.80} declares {info.file_size} bytes, more than {limit}",
        )
        try:
            with self._zip.open(info) as f:
                data = f.read(info.file_size + 1)
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            EOFError,
            OSError,
            ValueError,
            NotImplementedError,
        ) as exc:
            raise FormatError(f"entry {name!r:.80} cannot be read: {exc}") from None
        except Exception as exc:  # noqa: BLE001  (zlib.error and friends: a corrupted stream)
            raise FormatError(
                f"entry {name!r:.80} cannot be read: {type(exc).__name__}: {exc}"
            ) from None
        expect(
            len(data) == info.file_size,
            f"entry {name!r:.80} holds {len(data)} bytes, its header says {info.file_size}",
        )
        return data

    def document(self) -> dict:
        data = self.read(JSON_ENTRY, MAX_JSON_BYTES)
        try:
            document = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
        except RecursionError:
            raise FormatError(f"{JSON_ENTRY} is nested too deeply") from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise FormatError(f"{JSON_ENTRY} is not valid JSON: {exc}") from None
        expect(type(document) is dict, f"{JSON_ENTRY} must hold a JSON object")
        return document

    def array(self, name: str) -> np.ndarray:
        expect(
            name.startswith("arrays/") and name.endswith(".npy"),
            f"array entry {name!r:.80} is not arrays/*.npy",
        )
        return parse_npy(self.read(name, MAX_TOTAL_BYTES), name)


def _no_constant(name):
    raise ValueError(f"{name} is not allowed")


def parse_npy(data: bytes, name: str) -> np.ndarray:
    """An array from the bytes of a `.npy` file (format 1.0, 2.0 or 3.0), or FormatError."""
    expect(data[:6] == _NPY_MAGIC and len(data) >= 10, f"{name} is not a .npy file")
    major = data[6]
    if major == 1:
        header_len, start = int.from_bytes(data[8:10], "little"), 10
    else:
        expect(major in (2, 3) and len(data) >= 12, f"{name}: unknown .npy version {major}")
        header_len, start = int.from_bytes(data[8:12], "little"), 12
    expect(
        header_len <= 4096 and start + header_len <= len(data), f"{name}: bad .npy header length"
    )
    try:
        header = ast.literal_eval(data[start : start + header_len].decode("latin1"))
    except (ValueError, SyntaxError, MemoryError, RecursionError, UnicodeDecodeError):
        raise FormatError(f"{name}: the .npy header is not a literal dict") from None
    expect(
        type(header) is dict and header.keys() == {"descr", "fortran_order", "shape"},
        f"{name}: the .npy header must have exactly descr, fortran_order and shape",
    )
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    expect(
        type(descr) is str
        and type(fortran) is bool
        and type(shape) is tuple
        and len(shape) <= MAX_DIMS
        and all(type(d) is int and d >= 0 for d in shape),
        f"{name}: bad .npy header {header!r:.120}",
    )
    try:
        dtype = np.dtype(descr)
    except TypeError:
        raise FormatError(f"{name}: bad dtype {descr!r:.40}") from None
    expect(
        dtype.name in DTYPES and dtype.newbyteorder("=") == DTYPES[dtype.name],
        f"{name}: dtype {descr!r:.40} is not a number or bool dtype",
    )
    body = data[start + header_len :]
    count = 1
    for d in shape:
        count *= d
        expect(
            count * dtype.itemsize <= len(body),
            f"{name}: shape {shape} needs more bytes than the entry holds",
        )
    expect(
        count * dtype.itemsize == len(body),
        f"{name}: shape {shape} does not fit the entry's {len(body)} bytes",
    )
    arr = np.frombuffer(body, dtype=dtype, count=count)
    arr = arr.reshape(shape, order="F" if fortran else "C")
    return np.array(arr, dtype=dtype.newbyteorder("="), order="C")  # a writable, native copy
