"""The kernel cache and compiler of runtime/native.py under hostile or broken conditions: libraries
and directories other users could have written are never loaded, kernels are written private,
a hanging compiler blocks nobody, fork() while compiling, a corrupt cache and a full disk. In
every case the staged function gives NumPy's answer (on NumPy's loops when there is no kernel)."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
import time

import numpy as np
import pytest
from _runtime_helpers import assert_bitwise, chain

import staging
from runtime import native

pytestmark = pytest.mark.skipif(not native._find_compiler(), reason="no C compiler on this machine")
REAL_CC = (native._find_compiler() or [""])[0]

NATIVE = dict(native_min_work=1, threads=1, fusion_min_bytes=1)
OTHER_UID = 12345  # a user that is not us
needs_root = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0,
    reason="planting files of another user needs root (chown)",
)

PLANTED = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen("%s", "w");
    if (f) fclose(f);
}
int kernel(void) { return 0; }
"""


@pytest.fixture(autouse=True)
def fresh_state(tmp_path, monkeypatch):
    """A cache of this test's own, a private fallback of its own, no build of an earlier test."""
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(tmp_path / "kernels"))
    fallback = tmp_path / "tmp"
    fallback.mkdir(mode=0o755)
    monkeypatch.setattr(native.tempfile, "gettempdir", lambda: str(fallback))
    monkeypatch.setattr(native, "_built", {})
    monkeypatch.setattr(native, "_compiler", None)
    yield
    native.wait_for_kernels(60)


@pytest.fixture
def calls(monkeypatch):
    """The answers of every native kernel call made (True: its result stood)."""
    made = []
    original = native.Kernel.__call__

    def spy(self, n, *operands):
        made.append(original(self, n, *operands))
        return made[-1]

    monkeypatch.setattr(native.Kernel, "__call__", spy)
    return made


def concrete(x):
    f = staging.function(chain)
    with staging.optimizer_options(**NATIVE):
        return f.get_concrete_function(x)


def library_name(tmp_path, monkeypatch) -> str:
    """The file name of chain's kernel (built once in a scratch cache)."""
    scratch = tmp_path / "scratch-cache"
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(scratch))
    concrete(np.linspace(-3, 3, 300))
    assert native.wait_for_kernels(120)
    (name,) = [p.name for p in scratch.iterdir() if p.name.endswith(".so")]
    monkeypatch.setattr(native, "_built", {})
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(tmp_path / "kernels"))
    return name


def plant(path, marker, owner=None, mode=0o600):
    """A library at `path` whose constructor creates `marker` when it is loaded."""
    source = path.parent / "planted.c"
    source.write_text(PLANTED % marker)
    subprocess.run([REAL_CC, "-shared", "-fPIC", "-o", str(path), str(source)], check=True)
    source.unlink()
    os.chmod(path, mode)
    if owner is not None:
        os.chown(path, owner, owner)


def check_answers(x, calls):
    """chain(x) staged is NumPy's answer now (on NumPy's loops while the kernel compiles) and
    once the kernel is built (on it)."""
    cf = concrete(x)
    assert_bitwise(cf(x), chain(x))
    assert native.wait_for_kernels(120)
    calls.clear()
    assert_bitwise(cf(x), chain(x))
    assert calls == [True]


@needs_root
def test_a_library_of_another_user_is_not_loaded(tmp_path, monkeypatch, calls):
    name = library_name(tmp_path, monkeypatch)
    cache = tmp_path / "kernels"
    cache.mkdir(mode=0o755)  # ours (root), not writable by others: a usable cache
    marker = tmp_path / "constructor-ran"
    plant(cache / name, marker, owner=OTHER_UID)
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()
    assert (cache / name).stat().st_uid == os.getuid()  # replaced by the one compiled here


def test_a_library_others_may_write_is_not_loaded(tmp_path, monkeypatch, calls):
    name = library_name(tmp_path, monkeypatch)
    cache = tmp_path / "kernels"
    cache.mkdir(mode=0o700)
    marker = tmp_path / "constructor-ran"
    plant(cache / name, marker, mode=0o666)
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()
    assert stat.S_IMODE((cache / name).stat().st_mode) == 0o600


def test_a_symlink_in_place_of_a_library_is_not_followed(tmp_path, monkeypatch, calls):
    name = library_name(tmp_path, monkeypatch)
    cache = tmp_path / "kernels"
    cache.mkdir(mode=0o700)
    marker = tmp_path / "constructor-ran"
    plant(tmp_path / "elsewhere.so", marker)
    (cache / name).symlink_to(tmp_path / "elsewhere.so")
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()


def test_kernels_are_written_private_whatever_the_umask(tmp_path, calls):
    old = os.umask(0)
    try:
        check_answers(np.linspace(-3, 3, 300), calls)
    finally:
        os.umask(old)
    cache = tmp_path / "kernels"
    (library,) = list(cache.iterdir())  # (the scratch directory is gone)
    assert stat.S_IMODE(library.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


@needs_root
@pytest.mark.parametrize("owner, mode", [(OTHER_UID, 0o755), (0, 0o775), (0, 0o777)])
def test_a_cache_below_a_directory_others_control_is_not_used(
    tmp_path, monkeypatch, calls, owner, mode
):
    name = library_name(tmp_path, monkeypatch)
    parent = tmp_path / "parent"
    cache = parent / "kernels"
    cache.mkdir(parents=True, mode=0o700)
    marker = tmp_path / "constructor-ran"
    plant(cache / name, marker)  # ours and private: only the parent is wrong
    os.chown(parent, owner, owner)
    os.chmod(parent, mode)
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(cache))
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()
    assert (tmp_path / "tmp" / f"staging-kernels-{os.getuid()}" / name).exists()  # the fallback


def test_a_sticky_world_writable_parent_is_fine(tmp_path, monkeypatch, calls):
    parent = tmp_path / "shared"
    parent.mkdir()
    os.chmod(parent, 0o1777)  # as /tmp
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(parent / "kernels"))
    check_answers(np.linspace(-3, 3, 300), calls)
    assert len(list((parent / "kernels").iterdir())) == 1


def test_libraries_are_loaded_through_the_checked_descriptor(tmp_path, monkeypatch, calls):
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd on this system")
    loaded = []
    real = native.ctypes.CDLL
    monkeypatch.setattr(native.ctypes, "CDLL", lambda path: loaded.append(path) or real(path))
    x, y = np.linspace(-3, 3, 300), np.linspace(-3, 3, 300, dtype=np.float32)
    check_answers(x, calls)
    check_answers(y, calls)  # another library: never taken for the first by its name
    monkeypatch.setattr(native, "_built", {})
    check_answers(x, calls)  # both from the cache now
    check_answers(y, calls)
    assert len(loaded) == 4 and all(p.startswith("/proc/self/fd/") for p in loaded)
    assert len(set(loaded)) == 4


def fake_compiler(tmp_path, body: str) -> str:
    """A compiler script: `--version` is the real compiler's, anything else runs `body` (sh),
    with $REAL the real compiler."""
    script = tmp_path / "fake-cc"
    script.write_text(
        "#!/bin/sh\n"
        f"REAL={REAL_CC}\n"
        'if [ "$1" = --version ]; then exec "$REAL" --version; fi\n' + body
    )
    script.chmod(0o755)
    return str(script)


def test_a_hanging_compiler_blocks_no_call_and_is_given_up(tmp_path, monkeypatch, calls):
    pids = tmp_path / "pids"
    monkeypatch.setenv(
        "CC", fake_compiler(tmp_path, f'sleep 60 &\necho $$ $! > {pids}\nwait\n"$REAL" "$@"\n')
    )
    monkeypatch.setenv("STAGING_KERNEL_COMPILE_TIMEOUT", "1")
    x = np.linspace(-3, 3, 300)
    start = time.monotonic()
    cf = concrete(x)
    assert_bitwise(cf(x), chain(x))  # on NumPy's loops, at once
    assert time.monotonic() - start < 30 and calls == [False]
    assert native.wait_for_kernels(30)
    assert native._compiler == []  # given up for the process
    assert_bitwise(cf(x), chain(x))
    assert calls == [False, False]
    for pid in map(int, pids.read_text().split()):  # the script and its child were killed
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"compiler process {pid} is still running")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_while_the_compile_lock_is_held(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", fake_compiler(tmp_path, 'sleep 1\nexec "$REAL" "$@"\n'))
    x = np.linspace(-3, 3, 300)
    cf = concrete(x)  # compiling (slowly) in the background
    holding, release = threading.Event(), threading.Event()

    def hold():
        with native._lock:
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(10)
    pid = os.fork()
    if pid == 0:  # the child: a new trace and the pending kernel both work
        code = 1
        try:
            y = np.linspace(-3, 3, 301)
            ok = np.array_equal(concrete(y)(y), chain(y)) and np.array_equal(cf(x), chain(x))
            code = 0 if ok and native.wait_for_kernels(60) else 1
        finally:
            os._exit(code)
    release.set()
    thread.join()
    for _ in range(1200):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the child process hung")
    assert os.waitstatus_to_exitcode(status) == 0
    assert_bitwise(cf(x), chain(x))


@pytest.mark.parametrize("content", ["garbage", "no kernel symbol"])
def test_a_corrupt_cached_library_is_built_again(tmp_path, monkeypatch, calls, content):
    name = library_name(tmp_path, monkeypatch)
    cache = tmp_path / "kernels"
    cache.mkdir(mode=0o700)
    if content == "garbage":
        (cache / name).write_bytes(b"\x7fELF" + os.urandom(200))
    else:
        source = tmp_path / "other.c"
        source.write_text("int other(void) { return 0; }\n")
        subprocess.run(
            [REAL_CC, "-shared", "-fPIC", "-o", str(cache / name), str(source)],
            check=True,
        )
    os.chmod(cache / name, 0o600)
    check_answers(np.linspace(-3, 3, 300), calls)
    assert native._compiler  # not given up


def test_a_full_cache_disk_falls_back_to_the_private_directory(tmp_path, monkeypatch, calls):
    cache = tmp_path / "kernels"
    monkeypatch.setenv(
        "CC",
        fake_compiler(
            tmp_path,
            f'case "$*" in *{cache}*) echo "k.so: No space left on device" >&2; exit 1;; esac\n'
            'exec "$REAL" "$@"\n',
        ),
    )
    check_answers(np.linspace(-3, 3, 300), calls)
    assert native._compiler  # the compiler is fine: not given up
    assert len(list((tmp_path / "tmp" / f"staging-kernels-{os.getuid()}").iterdir())) == 1


def test_a_compiler_failing_everywhere_is_given_up(tmp_path, monkeypatch, calls):
    monkeypatch.setenv(
        "CC", fake_compiler(tmp_path, "echo 'internal compiler error' >&2\nexit 1\n")
    )
    x = np.linspace(-3, 3, 300)
    cf = concrete(x)
    assert_bitwise(cf(x), chain(x))
    assert native.wait_for_kernels(60) and native._compiler == []
    assert_bitwise(cf(x), chain(x))
    assert calls in ([False, False], [False])  # (NumPy's loops: the kernel never loads)


def test_the_compile_timeout_setting(monkeypatch):
    monkeypatch.setenv("STAGING_KERNEL_COMPILE_TIMEOUT", "2.5")
    assert native.compile_timeout() == 2.5
    for bad in ("0", "-1", "soon", "nan", "inf"):
        monkeypatch.setenv("STAGING_KERNEL_COMPILE_TIMEOUT", bad)
        assert native.compile_timeout() == native.COMPILE_TIMEOUT


def test_no_compile_runs_on_the_calling_thread(tmp_path, monkeypatch):
    """The first call with a new kernel returns without waiting for the compiler."""
    seen = []
    real = native._run_compiler

    def spy(command, timeout):
        seen.append(threading.current_thread() is threading.main_thread())
        return real(command, timeout)

    native._find_compiler()
    monkeypatch.setattr(native, "_run_compiler", spy)
    x = np.linspace(-3, 3, 300)
    assert_bitwise(concrete(x)(x), chain(x))
    assert native.wait_for_kernels(120)
    assert seen == [False]
