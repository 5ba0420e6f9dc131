"""Cache directories that nobody but this user can have written (compiled code is loaded from
them: docs/security.md).

A cache directory is opened from the root one component at a time, never following a link,
and each component is checked on the descriptor opened: every directory above it belongs to
this user or root and is not writable by others unless it is sticky (as /tmp is); the cache
directory itself belongs to this user and nobody else can write to it. What is checked is what
is used, whoever renames what meanwhile. Files in it are written with mode 0600 whatever the
umask, and a file read back is checked on its descriptor (a regular file of ours, written by
nobody else).

The cache directory is $STAGING_KERNEL_CACHE, else `staging-kernels` in the user's cache
directory; when it fails the checks, a private directory under the temporary directory.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


def cache_dir() -> str:
    """Where compiled kernels are kept: $STAGING_KERNEL_CACHE, else the user's cache directory."""
    explicit = os.environ.get("STAGING_KERNEL_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "staging-kernels")


def directories() -> list[str]:
    """The cache directory, then the private fallback under the temporary directory."""
    return [
        cache_dir(),
        os.path.join(tempfile.gettempdir(), f"staging-kernels-{os.getuid()}"),
    ]


class UnsafeCacheError(OSError):
    """A cache directory or file that another user could have written: not used."""


# (every flag looked up: the module imports on systems without them, where nothing is cached)
FILE_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
DIRECTORY_FLAGS = FILE_FLAGS | getattr(os, "O_DIRECTORY", 0)


def check_ancestor(fd: int, path: str) -> None:
    """A directory above the cache: owned by us or root; others may write to it only when it is
    sticky (/tmp: then they cannot rename or remove what we own in it)."""
    info = os.fstat(fd)
    if info.st_uid not in (os.getuid(), 0):
        raise UnsafeCacheError(f"{path} belongs to user {info.st_uid}")
    if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        raise UnsafeCacheError(f"{path} may be written by other users")


def check_private(fd: int, path: str, kind: str = "directory") -> None:
    """The cache directory or a file in it: ours, and written by nobody else."""
    info = os.fstat(fd)
    if kind != "directory" and not stat.S_ISREG(info.st_mode):
        raise UnsafeCacheError(f"{path} is not a regular file")
    if info.st_uid != os.getuid():
        raise UnsafeCacheError(f"{path} belongs to user {info.st_uid}, not to this user")
    if info.st_mode & 0o022:
        raise UnsafeCacheError(f"{path} may be written by other users")


def open_directory(path: str) -> tuple[int, str]:
    """(descriptor, real path) of cache directory `path`, made (mode 0700) when missing, opened
    and checked component by component (see the module docstring)."""
    real = os.path.realpath(path)
    fd = os.open(os.sep, DIRECTORY_FLAGS)
    try:
        check_ancestor(fd, os.sep)
        parts = [p for p in real.split(os.sep) if p]
        for i, part in enumerate(parts):
            try:
                child = os.open(part, DIRECTORY_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o700, dir_fd=fd)
                child = os.open(part, DIRECTORY_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
            where = os.sep + os.sep.join(parts[: i + 1])
            (check_private if i == len(parts) - 1 else check_ancestor)(fd, where)
        return fd, real
    except BaseException:
        os.close(fd)
        raise


def checked_directory(path: str) -> str | None:
    """The real path of cache directory `path` when it passes the checks (made when missing),
    else None."""
    try:
        fd, real = open_directory(path)
    except OSError:
        return None
    os.close(fd)
    return real


def read_private(fd: int, real: str, name: str) -> bytes | None:
    """The content of file `name` of the checked directory open on `fd`, None when it is
    missing (UnsafeCacheError: not a regular file of ours, or others may write it)."""
    try:
        existing = os.open(name, FILE_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        return None
    try:
        check_private(existing, os.path.join(real, name), "file")
        with os.fdopen(existing, "rb") as handle:
            existing = -1
            return handle.read()
    finally:
        if existing >= 0:
            os.close(existing)


def write_or_check(fd: int, real: str, name: str, text: str) -> bool:
    """Writes `text` to file `name` of the checked directory open on `fd` (mode 0600) when it is
    missing; True when the file then holds `text` (a file there holding anything else, or not
    ours: False, or UnsafeCacheError)."""
    data = text.encode()
    try:
        out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
    except FileExistsError:
        return read_private(fd, real, name) == data
    with os.fdopen(out, "wb") as handle:
        handle.write(data)
    return True


def private_file(subdirectory: str, name: str, text: str) -> str | None:
    """The path of file `name` holding `text` in `subdirectory` of the first cache directory
    that passes the checks, written there when missing (None when no directory passes them or
    the file there holds anything else). A `__pycache__` beside it is made and checked too (for
    numba's cache)."""
    for directory in directories():
        try:
            fd, real = open_directory(os.path.join(directory, subdirectory))
        except OSError:
            continue
        try:
            if write_or_check(fd, real, name, text):
                sub, _ = open_directory(os.path.join(real, "__pycache__"))
                os.close(sub)
                return os.path.join(real, name)
        except OSError:
            continue
        finally:
            os.close(fd)
    return None


__all__ = [
    "DIRECTORY_FLAGS",
    "FILE_FLAGS",
    "UnsafeCacheError",
    "cache_dir",
    "check_ancestor",
    "check_private",
    "checked_directory",
    "directories",
    "open_directory",
    "private_file",
    "read_private",
    "write_or_check",
]
