"""The one atomic writer (fairdesk.core.atomic): complete or not at all, the old file kept on
any exception, permissions as ``open`` gives them, text and bytes, unicode folders, stale
temporary files of killed writers removed, clear errors."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys

import pytest

from fairdesk.core import atomic
from fairdesk.core.atomic import (
    OutputError,
    atomic_path,
    atomic_write,
    check_output_file,
    check_output_folder,
    stale_temps,
    write_bytes,
    write_text,
)


def _leftovers(folder):
    return sorted(n for n in os.listdir(folder) if atomic.TEMP_MARK in n)


def test_text_and_bytes_round_trip_in_a_unicode_folder(tmp_path):
    folder = tmp_path / "Ọ̀nị́chà café ñ 東京"
    folder.mkdir()
    t = folder / "résumé.csv"
    write_text(t, "Ìgbò,ọjà\r\nline 2\n", newline="")
    assert t.read_bytes() == "Ìgbò,ọjà\r\nline 2\n".encode()
    b = folder / "blob.bin"
    data = bytes(range(256)) * 10
    write_bytes(b, data)
    assert b.read_bytes() == data
    with atomic_write(folder / "x.txt", "w", encoding="latin-1") as f:
        f.write("é")
    assert (folder / "x.txt").read_bytes() == b"\xe9"
    assert _leftovers(folder) == []


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyboardInterrupt(), SystemExit(3)])
@pytest.mark.parametrize("mode", ["w", "wb"])
def test_an_exception_keeps_the_old_file_and_removes_the_temporary(tmp_path, exc, mode):
    t = tmp_path / "F.csv"
    t.write_text("old complete\n")
    with pytest.raises(type(exc)):
        with atomic_write(t, mode) as f:
            f.write("half of the new" if mode == "w" else b"half of the new")
            # the partial data are in a hidden file beside the target, not in it
            assert t.read_text() == "old complete\n"
            (tmp,) = _leftovers(tmp_path)
            assert tmp.startswith(".F.csv.tmp-") and f"-{os.getpid()}-" in f"-{tmp[11:]}"
            raise exc
    assert t.read_text() == "old complete\n"
    assert _leftovers(tmp_path) == []


def test_an_exception_without_an_old_file_leaves_no_file(tmp_path):
    t = tmp_path / "new.json"
    with pytest.raises(ValueError):
        with atomic_write(t) as f:
            f.write("{")
            raise ValueError("no")
    assert os.listdir(tmp_path) == []


def test_the_file_appears_only_when_complete(tmp_path):
    t = tmp_path / "F.txt"
    with atomic_write(t) as f:
        f.write("a" * 100_000)
        f.flush()
        assert not t.exists()
    assert t.read_text() == "a" * 100_000


def test_a_new_file_respects_the_umask_like_open(tmp_path):
    old = os.umask(0o027)
    try:
        write_text(tmp_path / "a.txt", "x")
        with open(tmp_path / "b.txt", "w") as f:
            f.write("x")
    finally:
        os.umask(old)
    mode_a = stat.S_IMODE(os.stat(tmp_path / "a.txt").st_mode)
    assert mode_a == stat.S_IMODE(os.stat(tmp_path / "b.txt").st_mode) == 0o640


def test_a_replaced_file_keeps_its_permissions_like_an_in_place_write(tmp_path):
    t = tmp_path / "shared.csv"
    t.write_text("old")
    os.chmod(t, 0o664)
    old = os.umask(0o077)
    try:
        write_text(t, "new")
    finally:
        os.umask(old)
    assert t.read_text() == "new" and stat.S_IMODE(os.stat(t).st_mode) == 0o664


def test_a_symlink_is_followed_as_open_does(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_device_is_written_directly(tmp_path):
    write_text(os.devnull, "nothing")  # no temporary file beside /dev/null, no rename
    assert os.path.exists(os.devnull) and not stat.S_ISREG(os.stat(os.devnull).st_mode)


def test_atomic_path_for_writers_that_open_by_name(tmp_path):
    t = tmp_path / "g.TextGrid"
    t.write_text("old")
    with atomic_path(t) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".g.TextGrid.tmp-")
        assert tmp.exists() and tmp.stat().st_size == 0
        tmp.write_text("new")  # the writer's own open("w")
        assert t.read_text() == "old"
    assert t.read_text() == "new" and _leftovers(tmp_path) == []
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(t) as tmp:
            tmp.write_text("half")
            raise KeyboardInterrupt
    assert t.read_text() == "new" and _leftovers(tmp_path) == []


def test_stale_temporaries_of_dead_writers_are_removed_by_the_next_write(tmp_path):
    t = tmp_path / "F.csv"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    pid = int(dead.stdout)
    stale = tmp_path / f".F.csv.tmp-{pid}-abcd1234"
    stale.write_text("half")
    live = tmp_path / f".F.csv.tmp-{os.getppid()}-abcd1234"  # a writer that still runs
    live.write_text("half")
    other = tmp_path / f".G.csv.tmp-{pid}-abcd1234"  # another target's
    other.write_text("half")
    assert stale_temps(t) == [stale]
    write_text(t, "complete")
    assert t.read_text() == "complete"
    assert not stale.exists() and live.exists() and other.exists()


def test_a_long_name_gets_a_temporary_name_the_file_system_accepts(tmp_path):
    t = tmp_path / ("é" * 120 + ".csv")  # 244 bytes: the temp name would exceed 255
    write_text(t, "x")
    assert t.read_text() == "x" and _leftovers(tmp_path) == []


def test_only_whole_file_modes(tmp_path):
    with pytest.raises(ValueError, match="mode"):
        with atomic_write(tmp_path / "a", "a"):
            pass


# -- errors ----------------------------------------------------------------------------------
def test_a_folder_as_target_is_a_clear_error(tmp_path):
    with pytest.raises(OutputError, match="is a folder, not a file") as e:
        write_text(tmp_path, "x")
    assert e.value.path == str(tmp_path)
    with pytest.raises(OutputError, match="folder, not a file"):
        check_output_file(tmp_path)


def test_a_missing_folder_is_named(tmp_path):
    t = tmp_path / "nope" / "deeper" / "a.json"
    with pytest.raises(OutputError) as e:
        write_text(t, "x")
    msg = str(e.value)
    assert msg.startswith(f"{t}: the folder {tmp_path / 'nope'} does not exist")
    assert "mkdir -p" in msg
    with pytest.raises(OutputError, match="does not exist"):
        check_output_file(t)
    assert check_output_file(t, make_parents=True) == t  # created when writing
    write_text(t, "x", make_parents=True)
    assert t.read_text() == "x"


def test_a_file_in_the_way_of_the_folder_is_named(tmp_path):
    f = tmp_path / "plain.txt"
    f.write_text("x")
    with pytest.raises(OutputError, match=f"{f} is a file, not a folder"):
        write_text(f / "a.json", "y")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        check_output_folder(f, "the TextGrids")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        check_output_file(f / "a" / "b.csv", make_parents=True)
    assert f.read_text() == "x"


@pytest.mark.parametrize(
    "code, says",
    [
        (errno.ENOSPC, "the disk is full"),
        (errno.EROFS, "read-only disk"),
        (errno.EDQUOT, "the disk is full"),
        (errno.EFBIG, "too large"),
        (errno.EIO, "could not be written"),
    ],
)
def test_a_failing_write_keeps_the_old_file_and_says_why(tmp_path, monkeypatch, code, says):
    t = tmp_path / "F.csv"
    t.write_text("old complete\n")
    real = atomic._open_file

    class Failing:
        def __init__(self, f):
            self.f = f

        def write(self, s):
            raise OSError(code, os.strerror(code))

        def __getattr__(self, name):
            return getattr(self.f, name)

    monkeypatch.setattr(atomic, "_open_file", lambda *a: Failing(real(*a)))
    with pytest.raises(OutputError) as e:
        write_text(t, "new")
    assert says in str(e.value) and str(t) in str(e.value) and e.value.errno == code
    if code != errno.EIO:
        assert "the earlier file is unchanged" in str(e.value)
    assert t.read_text() == "old complete\n" and _leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["fsync", "replace"])
def test_a_failing_commit_keeps_the_old_file(tmp_path, monkeypatch, where):
    t = tmp_path / "F.csv"
    t.write_text("old")

    def fail(*a):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, where, fail)
    with pytest.raises(OutputError, match="the disk is full"):
        write_text(t, "new")
    monkeypatch.undo()
    assert t.read_text() == "old" and _leftovers(tmp_path) == []


def test_an_unrelated_error_in_the_body_is_not_relabelled(tmp_path):
    with pytest.raises(FileNotFoundError):
        with atomic_write(tmp_path / "out.txt") as f:
            f.write("x")
            open(tmp_path / "missing-input.txt").read()
    assert os.listdir(tmp_path) == []


def test_no_permission_to_create_the_temporary_file(tmp_path, monkeypatch):
    t = tmp_path / "F.csv"
    t.write_text("old")

    def refuse(target):
        raise PermissionError(errno.EACCES, "Permission denied", str(target))

    monkeypatch.setattr(
        atomic, "_create_temp", refuse
    )  # what a read-only folder does (not as root)
    with pytest.raises(OutputError) as e:
        write_text(t, "new")
    assert str(e.value) == (
        f"{t}: no permission to write in {tmp_path}; the earlier file is unchanged. Choose a "
        "folder you can write to (or ask for write permission on this one)"
    )
    assert t.read_text() == "old"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_a_folder_without_write_permission(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "F.csv").write_text("old")
    ro.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="no permission to write"):
            check_output_file(ro / "F.csv")
        with pytest.raises(OutputError, match="no permission to write"):
            write_text(ro / "F.csv", "new")
        assert (ro / "F.csv").read_text() == "old"
    finally:
        ro.chmod(0o755)
