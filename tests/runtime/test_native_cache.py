"""The kernel cache and the compile process of runtime/native.py under hostile or broken
conditions: kernel sources and directories other users could have written are never loaded (a
kernel's source is executed and numba's cache is unpickled when it is loaded), files are written
private, a hanging compile blocks nobody, fork() while compiling, a corrupt cache. In every case
the staged function gives NumPy's answer (on NumPy's loops when there is no kernel)."""

from __future__ import annotations

import os
import stat
import sys
import threading
import time

import numpy as np
import pytest
from _runtime_helpers import assert_bitwise, chain

import staging
from runtime import cache_dirs, native
from runtime.numba_backend import cache

pytestmark = pytest.mark.skipif(not native._kernels_usable(), reason="numba is not installed")

NATIVE = dict(native_min_work=1, threads=1, fusion_min_bytes=1)
OTHER_UID = 12345  # a user that is not us
needs_root = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0,
    reason="planting files of another user needs root (chown)",
)

PLANTED = """
open({marker!r}, "w").close()


def kernel(*args):
    return 0
"""


@pytest.fixture(autouse=True)
def fresh_state(tmp_path, monkeypatch):
    """A cache of this test's own, a private fallback of its own, no build of an earlier test."""
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(tmp_path / "kernels"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    fallback = tmp_path / "tmp"
    fallback.mkdir(mode=0o755)
    monkeypatch.setattr(cache_dirs.tempfile, "gettempdir", lambda: str(fallback))
    monkeypatch.setattr(native, "_built", {})
    monkeypatch.setattr(native, "_usable", None)
    yield
    native.wait_for_kernels(60)


@pytest.fixture
def calls(monkeypatch):
    """The answers of every kernel call made (True: its result stood)."""
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


def kernel_name(tmp_path, monkeypatch) -> str:
    """The file name of chain's kernel source (built once in a scratch cache)."""
    scratch = tmp_path / "scratch-cache"
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(scratch))
    concrete(np.linspace(-3, 3, 300))
    assert native.wait_for_kernels(120)
    (name,) = [p.name for p in (scratch / "numba").iterdir() if p.name.endswith(".py")]
    monkeypatch.setattr(native, "_built", {})
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(tmp_path / "kernels"))
    return name


def plant(path, marker, owner=None, mode=0o600):
    """A kernel source at `path` that creates `marker` when it is executed."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(PLANTED.format(marker=str(marker)))
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


def fallback_kernels(tmp_path):
    return tmp_path / "tmp" / f"staging-kernels-{os.getuid()}" / "numba"


@needs_root
def test_a_kernel_of_another_user_is_not_loaded(tmp_path, monkeypatch, calls):
    name = kernel_name(tmp_path, monkeypatch)
    marker = tmp_path / "planted-code-ran"
    plant(tmp_path / "kernels" / "numba" / name, marker, owner=OTHER_UID)
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()
    assert (fallback_kernels(tmp_path) / name).exists()  # built in the private fallback


def test_a_kernel_others_may_write_is_not_loaded(tmp_path, monkeypatch, calls):
    name = kernel_name(tmp_path, monkeypatch)
    marker = tmp_path / "planted-code-ran"
    plant(tmp_path / "kernels" / "numba" / name, marker, mode=0o666)
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()
    assert (fallback_kernels(tmp_path) / name).exists()


def test_a_kernel_of_other_text_is_not_loaded(tmp_path, monkeypatch, calls):
    name = kernel_name(tmp_path, monkeypatch)
    marker = tmp_path / "planted-code-ran"
    plant(tmp_path / "kernels" / "numba" / name, marker)  # ours and private, not the kernel
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()


def test_a_symlink_in_place_of_a_kernel_is_not_followed(tmp_path, monkeypatch, calls):
    name = kernel_name(tmp_path, monkeypatch)
    marker = tmp_path / "planted-code-ran"
    plant(tmp_path / "elsewhere.py", marker)
    (tmp_path / "kernels" / "numba").mkdir(parents=True, mode=0o700)
    (tmp_path / "kernels" / "numba" / name).symlink_to(tmp_path / "elsewhere.py")
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()


def test_kernels_are_written_private_whatever_the_umask(tmp_path, calls):
    old = os.umask(0)
    try:
        check_answers(np.linspace(-3, 3, 300), calls)
    finally:
        os.umask(old)
    kernels = tmp_path / "kernels" / "numba"
    for path in (tmp_path / "kernels", kernels, kernels / "__pycache__"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    ours = [p for p in kernels.iterdir() if p.is_file()]
    assert len(ours) == 2 and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in ours)


@needs_root
@pytest.mark.parametrize("owner, mode", [(OTHER_UID, 0o755), (0, 0o775), (0, 0o777)])
def test_a_cache_below_a_directory_others_control_is_not_used(
    tmp_path, monkeypatch, calls, owner, mode
):
    name = kernel_name(tmp_path, monkeypatch)
    parent = tmp_path / "parent"
    marker = tmp_path / "planted-code-ran"
    plant(parent / "kernels" / "numba" / name, marker)  # ours and private: only the parent is wrong
    os.chown(parent, owner, owner)
    os.chmod(parent, mode)
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(parent / "kernels"))
    check_answers(np.linspace(-3, 3, 300), calls)
    assert not marker.exists()
    assert (fallback_kernels(tmp_path) / name).exists()


def test_a_sticky_world_writable_parent_is_fine(tmp_path, monkeypatch, calls):
    parent = tmp_path / "shared"
    parent.mkdir()
    os.chmod(parent, 0o1777)  # as /tmp
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(parent / "kernels"))
    check_answers(np.linspace(-3, 3, 300), calls)
    assert len([p for p in (parent / "kernels" / "numba").iterdir() if p.is_file()]) == 2


def test_a_numba_cache_directory_others_may_write_is_not_used(tmp_path, monkeypatch, calls):
    shared = tmp_path / "numba-cache"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(shared))
    x = np.linspace(-3, 3, 300)
    cf = concrete(x)
    assert_bitwise(cf(x), chain(x))
    assert native.wait_for_kernels(120)
    assert_bitwise(cf(x), chain(x))
    assert calls == [False, False] and list(shared.iterdir()) == []  # no kernel: NumPy's loops


def slow_compiler(tmp_path, monkeypatch, script: str):
    """The compile process replaced by `script` (Python), in a compile process of its own."""
    path = tmp_path / "compiler.py"
    path.write_text(script)
    monkeypatch.setattr(cache, "compiler_command", lambda: ([sys.executable, str(path)], None))
    monkeypatch.setattr(native, "_compiler", native._Compiler())


def test_a_hanging_compile_blocks_no_call_and_is_given_up(tmp_path, monkeypatch, calls):
    pids = tmp_path / "pids"
    slow_compiler(
        tmp_path,
        monkeypatch,
        "import os, subprocess, time\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(60)\n",
    )
    monkeypatch.setenv("STAGING_KERNEL_COMPILE_TIMEOUT", "2")
    x = np.linspace(-3, 3, 300)
    start = time.monotonic()
    cf = concrete(x)
    assert_bitwise(cf(x), chain(x))  # on NumPy's loops, at once
    assert time.monotonic() - start < 30 and calls == [False]
    assert native.wait_for_kernels(30)
    assert native._usable is False  # given up for the process
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
            pytest.fail(f"compile process {pid} is still running")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("held", ["_lock", "_load_lock"])
def test_fork_while_a_kernel_compiles_or_a_lock_is_held(tmp_path, monkeypatch, held):
    real, _ = cache.compiler_command()
    slow_compiler(
        tmp_path,
        monkeypatch,
        f"import os, sys, time\ntime.sleep(1)\nos.execv({sys.executable!r}, {real!r})\n",
    )
    x = np.linspace(-3, 3, 300)
    cf = concrete(x)  # compiling (slowly) in the background
    holding, release = threading.Event(), threading.Event()

    def hold():
        with getattr(native, held):
            holding.set()
            release.wait(2)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(10)
    pid = os.fork()  # (waits for _load_lock: a load in progress ends first)
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
    assert native.wait_for_kernels(60)
    assert_bitwise(cf(x), chain(x))


def test_a_corrupt_numba_cache_gives_numpys_answers(tmp_path, monkeypatch, calls):
    x = np.linspace(-3, 3, 300)
    check_answers(x, calls)
    pycache = tmp_path / "kernels" / "numba" / "__pycache__"
    files = list(pycache.iterdir())
    assert files
    for path in files:
        path.write_bytes(os.urandom(200))
    monkeypatch.setattr(native, "_built", {})
    check_answers(x, calls)  # (compiled again)


def test_a_compile_failing_is_given_up(tmp_path, monkeypatch, calls):
    slow_compiler(tmp_path, monkeypatch, "import sys\nsys.exit('internal compiler error')\n")
    x = np.linspace(-3, 3, 300)
    cf = concrete(x)
    assert_bitwise(cf(x), chain(x))
    assert native.wait_for_kernels(60) and native._usable is False
    assert_bitwise(cf(x), chain(x))
    assert calls in ([False, False], [False])  # (NumPy's loops: the kernel never loads)


def test_the_compile_timeout_setting(monkeypatch):
    monkeypatch.setenv("STAGING_KERNEL_COMPILE_TIMEOUT", "2.5")
    assert native.compile_timeout() == 2.5
    for bad in ("0", "-1", "soon", "nan", "inf"):
        monkeypatch.setenv("STAGING_KERNEL_COMPILE_TIMEOUT", bad)
        assert native.compile_timeout() == native.COMPILE_TIMEOUT


def test_no_compile_or_load_runs_on_the_calling_thread(tmp_path, monkeypatch):
    """The first call with a new kernel returns without waiting for the compile or the load."""
    seen = []
    real_compile, real_load = native._Compiler.compile, cache.kernel_dispatcher

    def spy_compile(self, *args):
        seen.append(threading.current_thread() is threading.main_thread())
        return real_compile(self, *args)

    def spy_load(*args):
        seen.append(threading.current_thread() is threading.main_thread())
        return real_load(*args)

    monkeypatch.setattr(native._Compiler, "compile", spy_compile)
    monkeypatch.setattr(cache, "kernel_dispatcher", spy_load)
    x = np.linspace(-3, 3, 300)
    assert_bitwise(concrete(x)(x), chain(x))
    assert native.wait_for_kernels(120)
    assert seen == [False, False]
