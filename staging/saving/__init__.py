"""Saving staged functions to one file and loading them without their Python source.

`save(obj, path, signatures=None)` writes a versioned zip: JSON graphs and signatures
(staging.saving.api, .graphs, .values) plus `.npy` arrays (staging.saving.archive). `load(path)`
checks everything against the op registry before anything runs and returns a LoadedFunction
(staging.saving.loaded). The format and its guarantees: docs/saving.md.
"""

from staging.saving import pickling  # noqa: F401  (registers the reducers of traced functions)
from staging.saving.api import FORMAT, SUPPORTED_VERSIONS, VERSION, load, save
from staging.saving.loaded import LoadedConcreteFunction, LoadedFunction

__all__ = [
    "FORMAT",
    "SUPPORTED_VERSIONS",
    "VERSION",
    "LoadedConcreteFunction",
    "LoadedFunction",
    "load",
    "save",
]
