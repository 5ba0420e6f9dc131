"""Pickling a ConcreteFunction or a loaded function through the saved format (docs/reference.md).

A ConcreteFunction is a traced graph: it pickles as the bytes `staging.save` writes (graphs,
signature and Variable values; no Python source, no compiled code) and unpickles as what
`staging.load` returns: a LoadedConcreteFunction, or a LoadedFunction for a loaded function.
A graph the saved format refuses (a py_function, a staged print, ...) raises
pickle.PicklingError saying why. The reducers are registered with copyreg, which `pickle`,
`multiprocessing` and cloudpickle all consult.
"""

from __future__ import annotations

import copyreg
import os
import pickle
import tempfile

from runtime import CompiledGraph
from staging.errors import SaveError
from staging.functions.concrete import ConcreteFunction
from staging.saving.api import load, save
from staging.saving.loaded import LoadedConcreteFunction, LoadedFunction

_FILE = "function.staged"


def saved_bytes(obj) -> bytes:
    """What staging.save writes for `obj`, as bytes; a refusal is a PicklingError."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, _FILE)
        try:
            save(obj, path)
        except SaveError as exc:
            raise pickle.PicklingError(
                f"cannot pickle {obj!r}: a traced function pickles through the saved format "
                f"(staging.save), which refuses it: {exc}"
            ) from None
        with open(path, "rb") as f:
            return f.read()


def loaded_from_bytes(data: bytes, jit_compile=None) -> LoadedFunction:
    """staging.load of bytes written by saved_bytes."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, _FILE)
        with open(path, "wb") as f:
            f.write(data)
        return load(path, jit_compile)


def concrete_from_bytes(data: bytes, jit_compile=None) -> LoadedConcreteFunction:
    """The one signature of bytes written by saved_bytes for a concrete function."""
    return loaded_from_bytes(data, jit_compile).signatures[0]


def _jit_compile_of(compiled):
    """The jit_compile a graph's runner was made with (None: the NumPy interpreter)."""
    if isinstance(compiled, CompiledGraph):
        return None
    return "device" if getattr(compiled, "keep_on_device", False) else True


def _reduce_concrete(cf):
    return concrete_from_bytes, (saved_bytes(cf), _jit_compile_of(cf._compiled))  # noqa: SLF001


def _reduce_loaded_concrete(cf):
    jit_compile = _jit_compile_of(cf.function._compiled)  # noqa: SLF001
    return concrete_from_bytes, (saved_bytes(cf), jit_compile)


def _reduce_loaded(fn):
    return loaded_from_bytes, (saved_bytes(fn), fn.jit_compile)


copyreg.pickle(ConcreteFunction, _reduce_concrete)
copyreg.pickle(LoadedConcreteFunction, _reduce_loaded_concrete)
copyreg.pickle(LoadedFunction, _reduce_loaded)
