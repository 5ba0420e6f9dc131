"""staging.save writes its file safely: a link planted where a temporary file could be expected
is never written through, a failed save leaves nothing behind, and the file gets the mode a new
file gets (the umask's)."""

import os
import stat

import numpy as np
import pytest

import staging
from staging.saving import archive


@pytest.fixture
def add_one():
    @staging.function
    def add_one(x):
        return x + np.array([1.0, 1.0, 1.0])  # (an array: the file has two entries)

    add_one(np.ones(3))
    return add_one


def test_a_link_at_the_old_temporary_name_is_not_written_through(add_one, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    path = tmp_path / "out.stg"
    for name in (f"out.stg.tmp{os.getpid()}", "out.stg.tmp", ".out.stg.tmp"):
        (tmp_path / name).symlink_to(victim)
    staging.save(add_one, path)
    assert victim.read_text() == "precious\n"
    assert not path.is_symlink()
    np.testing.assert_array_equal(staging.load(path)(np.ones(3)), [2.0, 2.0, 2.0])


def test_saving_over_a_link_replaces_the_link_not_its_target(add_one, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    path = tmp_path / "out.stg"
    path.symlink_to(victim)
    staging.save(add_one, path)
    assert victim.read_text() == "precious\n" and not path.is_symlink()


def test_a_failed_save_leaves_no_file(add_one, tmp_path, monkeypatch):
    def full_disk(zf, name, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(archive, "_write_entry", full_disk)
    with pytest.raises(OSError, match="No space left"):
        staging.save(add_one, tmp_path / "out.stg")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_kept_when_the_save_fails(add_one, tmp_path, monkeypatch):
    path = tmp_path / "out.stg"
    staging.save(add_one, path)
    before = path.read_bytes()
    written = []

    def fails_after_one_entry(zf, name, data):
        if written:
            raise ZeroDivisionError("fails half way")
        written.append(name)
        zf.writestr(name, data)

    monkeypatch.setattr(archive, "_write_entry", fails_after_one_entry)
    with pytest.raises(ZeroDivisionError):
        staging.save(add_one, path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["out.stg"]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_the_file_has_the_mode_of_a_new_file(add_one, tmp_path, umask):
    old = os.umask(umask)
    try:
        staging.save(add_one, tmp_path / "out.stg")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out.stg").stat().st_mode) == 0o666 & ~umask


def test_the_same_function_gives_the_same_bytes(add_one, tmp_path):
    staging.save(add_one, tmp_path / "a.stg")
    staging.save(add_one, tmp_path / "b.stg")
    assert (tmp_path / "a.stg").read_bytes() == (tmp_path / "b.stg").read_bytes()
