"""One way to write an output file: complete or not at all.

Every file fairdesk writes for the user (tables, reports, PDFs, figures, TextGrids, EAFs,
``--json``, screenshots, recording sidecars) goes through :func:`atomic_write` (a file
object) or :func:`atomic_path` (a path, for writers that open the file by name):

1. the data go to a hidden temporary file beside the target, ``.<name>.tmp-<pid>-<random>``
   (same folder, so the rename below stays on one file system and is atomic);
2. when the writer is done: flush, ``fsync``, ``os.replace`` onto the target, ``fsync`` of
   the folder (so the rename itself survives a power cut);
3. on any exception (``KeyboardInterrupt`` too) the temporary file is removed and the
   target is left as it was: the earlier complete file, or no file.

A process killed with ``kill -9`` cannot remove its temporary file: it stays as a hidden
``.tmp-`` file that never replaces the target, and the next write of the same target removes
the temporary files whose writer is no longer running (:func:`stale_temps`).

Errors of the file system become :class:`OutputError`, whose message names the file, says
what went wrong (disk full, read-only disk, no permission, a folder where a file is
expected, a missing folder) and what to do; :func:`check_output_file` and
:func:`check_output_folder` give the same messages before a long computation starts.

A target that exists and is not a regular file (``/dev/stdout``, a named pipe) is written
directly: there is no earlier file to keep. A symbolic link is followed, as ``open`` does.
The new file gets the permissions ``open`` would give it: those of the file it replaces,
else ``0o666`` less the umask.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .errors import FairdeskError

#: Marks a temporary file of this module: ``.<name>.tmp-<pid>-<random>``.
TEMP_MARK = ".tmp-"
#: Longest target name kept whole in a temporary name (bytes; NAME_MAX is 255).
_NAME_KEEP = 200
#: errno values that are about the disk, wherever in a write they happen.
DISK_ERRNOS = frozenset(
    e
    for e in (
        errno.ENOSPC,
        getattr(errno, "EDQUOT", None),
        errno.EFBIG,
        errno.EROFS,
        errno.EIO,
    )
    if e is not None
)


class OutputError(FairdeskError):
    """An output file could not be written (the message names it and says what to do).

    Attributes
    ----------
    path : the target.
    reason : what went wrong and what to do.
    errno : the file system's error number, when there was one.
    """

    def __init__(self, path, reason: str, errno_: int | None = None):
        self.path = str(path)
        self.reason = reason
        self.errno = errno_
        super().__init__(f"{self.path}: {reason}")


def output_error(path, exc: OSError, existed: bool | None = None) -> OutputError:
    """The :class:`OutputError` for an ``OSError`` met while writing ``path``.

    ``existed``: whether an earlier file is there (kept unchanged); None: look.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if existed is None:
        existed = path.is_file()
    kept = "the earlier file is unchanged" if existed else "nothing was written"
    e = exc.errno
    if e in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        why = (
            f"the disk is full (no space left on the device holding {folder}); {kept}. "
            "Free some space there, or write the file to another disk"
        )
    elif e == errno.EFBIG:
        why = (
            f"the file is too large for the disk holding {folder} or for this session's "
            f"file-size limit (ulimit -f); {kept}. Write it to another disk"
        )
    elif e == errno.EROFS:
        why = f"{folder} is on a read-only disk; {kept}. Write the file to another folder"
    elif e in (errno.EACCES, errno.EPERM):
        why = (
            f"no permission to write in {folder}; {kept}. Choose a folder you can write to "
            "(or ask for write permission on this one)"
        )
    elif e == errno.EISDIR:
        why = "this is a folder, not a file; give a file name (inside that folder or elsewhere)"
    elif e == errno.ENOENT:
        missing = _missing_folder(folder)
        why = (
            f"the folder {missing} does not exist; create it first (mkdir -p {folder}) or "
            "choose another path"
        )
    elif e == errno.ENOTDIR:
        blocker = _file_in_the_way(folder)
        why = f"{blocker} is a file, not a folder; choose another path"
    elif e == errno.ENAMETOOLONG:
        why = "the file name or path is too long for the file system; choose a shorter one"
    else:
        why = f"could not be written ({exc.strerror or exc}); {kept}"
    return OutputError(path, why, e)


def _missing_folder(folder: Path) -> Path:
    """The outermost folder of ``folder`` that does not exist."""
    missing = folder
    for p in [folder, *folder.parents]:
        if p.exists():
            break
        missing = p
    return missing


def _file_in_the_way(folder: Path) -> Path:
    for p in [folder, *folder.parents]:
        if p.exists() and not p.is_dir():
            return p
    return folder


def _nearest_existing(folder: Path) -> Path:
    for p in [folder, *folder.parents]:
        if os.path.lexists(p):
            return p
    return Path(".")


# -- checks before the work ------------------------------------------------------------------
def check_output_file(path, *, make_parents: bool = False) -> Path:
    """Raise :class:`OutputError` when ``path`` cannot be written as a file: it is a folder,
    its folder does not exist (unless ``make_parents``: then the first existing folder above
    must be a folder one can write in), is a file, or is not writable. Returns the path."""
    p = Path(path)
    if p.is_dir():
        raise output_error(p, OSError(errno.EISDIR, "Is a directory"))
    if p.exists() and not p.is_file():
        return p  # a pipe or a device: written directly
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        if not make_parents:
            e = errno.ENOTDIR if _nearest_existing(folder).is_file() else errno.ENOENT
            raise output_error(p, OSError(e, os.strerror(e)), False)
        base = _nearest_existing(folder)
        if not base.is_dir():
            raise output_error(p, OSError(errno.ENOTDIR, "Not a directory"), False)
        folder = base
    if not os.access(folder, os.W_OK | os.X_OK):
        raise output_error(p, OSError(errno.EACCES, "Permission denied"))
    return p


def check_output_folder(path, purpose: str = "the files") -> Path:
    """Raise :class:`OutputError` when ``path`` cannot be (made into) a folder for output
    files: it is a file, a file is in the way above it, or the first existing folder above it
    is not writable. Returns the path."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(
            p,
            f"this is a file, not a folder; give a folder for {purpose} (it is created "
            "if needed), e.g. a new name beside the file",
            errno.ENOTDIR,
        )
    base = _nearest_existing(p)
    if not base.is_dir():
        raise output_error(p / "x", OSError(errno.ENOTDIR, "Not a directory"), False)
    if not os.access(base, os.W_OK | os.X_OK):
        raise OutputError(
            p,
            f"no permission to write in {base}; choose a folder you can write to",
            errno.EACCES,
        )
    return p


def make_folder(path, purpose: str = "the files") -> Path:
    """``mkdir -p`` for an output folder, with :class:`OutputError` instead of ``OSError``
    (an existing folder is used as it is: whether it can be written shows when writing)."""
    p = Path(path)
    if p.is_dir():
        return p
    check_output_folder(p, purpose)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(p, exc, False) from None
    return p


# -- temporary files -------------------------------------------------------------------------
def _temp_prefix(target: Path) -> str:
    name = target.name
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) > _NAME_KEEP:
        name = raw[:_NAME_KEEP].decode("utf-8", "ignore")
    return f".{name}{TEMP_MARK}"


def temp_path(target) -> Path:
    """A fresh temporary name beside ``target``: ``.<name>.tmp-<pid>-<random>``."""
    target = Path(target)
    return target.with_name(f"{_temp_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def stale_temps(target) -> list[Path]:
    """Temporary files of ``target`` left by writers that are no longer running (a writer
    killed with ``kill -9``); those of live writers are not listed."""
    target = Path(target)
    prefix = _temp_prefix(target)
    folder = target.parent if str(target.parent) else Path(".")
    out: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return out
    for n in names:
        if not n.startswith(prefix):
            continue
        pid, _, rand = n[len(prefix) :].partition("-")
        if pid.isdigit() and rand and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            out.append(folder / n)
    return out


def _remove_stale(target: Path) -> None:
    for p in stale_temps(target):
        try:
            p.unlink()
        except OSError:
            pass


def _resolve(path) -> Path:
    """The file a write of ``path`` lands in (a symbolic link is followed, as ``open``
    does); raises :class:`OutputError` for a folder."""
    p = Path(os.fspath(path))
    if p.is_symlink():
        p = Path(os.path.realpath(p))
    if p.is_dir():
        raise output_error(p, OSError(errno.EISDIR, "Is a directory"))
    return p


def _is_special(p: Path) -> bool:
    """An existing target that is not a regular file (a pipe, a terminal, /dev/null)."""
    try:
        st = os.stat(p)
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode)


#: The temporary files of this process not yet renamed or removed (a process that exits
#: without finishing its writers removes them: :func:`discard_live_temps`).
_LIVE_TEMPS: set[Path] = set()


def discard_live_temps() -> list[Path]:
    """Remove the temporary files and folders of writers that have not finished (for a
    process that exits at once, abandoning a job mid-write); the targets are left as they
    were."""
    gone = sorted(_LIVE_TEMPS)
    for tmp in gone:
        if tmp.is_dir():
            _discard_folder(tmp)
        else:
            _discard(tmp)
    return gone


def _discard_folder(tmp: Path) -> None:
    import shutil

    _LIVE_TEMPS.discard(tmp)
    shutil.rmtree(tmp, ignore_errors=True)


def _create_temp(target: Path) -> tuple[int, Path]:
    fd, tmp = _new_temp(target)
    _LIVE_TEMPS.add(tmp)
    return fd, tmp


def _new_temp(target: Path) -> tuple[int, Path]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = temp_path(target)
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask applies, as for open()
        except FileExistsError:
            continue
        try:
            st = os.stat(target)
        except OSError:
            return fd, tmp
        try:  # keep the permissions of the file it replaces, as an in-place write would
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
        except (OSError, AttributeError):
            pass
        return fd, tmp
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target))


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename is still atomic
    finally:
        os.close(fd)


def _open_file(fd: int, mode: str, encoding, newline) -> IO:
    """The file object over the temporary file (a seam for the fault-injection tests)."""
    if "b" in mode:
        return open(fd, "wb", closefd=True)
    return open(fd, "w", encoding=encoding, newline=newline, closefd=True)


def _is_ours(exc: OSError, names: tuple[str, ...]) -> bool:
    return exc.errno in DISK_ERRNOS or exc.filename in names


def _discard(tmp: Path) -> None:
    _LIVE_TEMPS.discard(tmp)
    try:
        os.unlink(tmp)
    except OSError:
        pass


def _replace(tmp: Path, target: Path) -> None:
    os.replace(tmp, target)
    _LIVE_TEMPS.discard(tmp)


# -- the writers -----------------------------------------------------------------------------
@contextmanager
def atomic_write(
    path,
    mode: str = "w",
    *,
    encoding: str | None = None,
    newline: str | None = None,
    make_parents: bool = False,
) -> Iterator[IO]:
    """``with atomic_write(path, "w", encoding="utf-8") as f: f.write(...)``: the file is
    replaced when the block ends without an exception, else left as it was (module doc).

    Parameters
    ----------
    path : the target file.
    mode : ``"w"`` (text; ``encoding`` and ``newline`` as for ``open``) or ``"wb"``.
    make_parents : create missing folders above the target first.

    Raises
    ------
    OutputError
        The file system refused (full disk, no permission, a folder in the way ...).
    """
    if mode not in ("w", "wt", "wb"):
        raise ValueError(f"atomic_write writes whole files: mode 'w' or 'wb', not {mode!r}")
    target = _resolve(path)
    if _is_special(target):
        try:
            f = _open_file(os.open(target, os.O_WRONLY), mode, encoding, newline)
        except OSError as exc:
            raise output_error(target, exc) from None
        with f:
            yield f
        return
    existed = target.is_file()
    folder = target.parent if str(target.parent) else Path(".")
    names: tuple[str, ...] = (str(target), str(folder))
    try:
        if make_parents:
            make_folder(folder)
        fd, tmp = _create_temp(target)
    except OSError as exc:
        raise output_error(target, exc, existed) from None
    names += (str(tmp),)
    try:
        f = _open_file(fd, mode, encoding, newline)
    except BaseException:
        os.close(fd)
        _discard(tmp)
        raise
    stage = "body"
    try:
        yield f
        stage = "commit"
        f.flush()
        os.fsync(f.fileno())
        f.close()
        _replace(tmp, target)
        stage = "done"
    except OSError as exc:
        _close_quietly(f)
        _discard(tmp)
        if stage == "commit" or _is_ours(exc, names):
            raise output_error(target, exc, existed) from None
        raise
    except BaseException:
        _close_quietly(f)
        _discard(tmp)
        raise
    _fsync_folder(folder)
    _remove_stale(target)


def _close_quietly(f) -> None:
    try:
        f.close()
    except Exception:  # noqa: BLE001 - closing a file that already failed
        pass


@contextmanager
def atomic_path(path, *, make_parents: bool = False) -> Iterator[Path]:
    """``with atomic_path(path) as tmp: writer.save(tmp)``: for writers that open the file
    by name. ``tmp`` exists (empty, with the permissions of :func:`atomic_write`) in the
    target's folder; when the block ends without an exception it is synced and replaces the
    target, else it is removed. Its name does not end like the target's: tell the writer the
    format rather than letting it guess from the extension."""
    target = _resolve(path)
    if _is_special(target):
        yield target
        return
    existed = target.is_file()
    folder = target.parent if str(target.parent) else Path(".")
    try:
        if make_parents:
            make_folder(folder)
        fd, tmp = _create_temp(target)
        os.close(fd)
    except OSError as exc:
        raise output_error(target, exc, existed) from None
    names = (str(target), str(folder), str(tmp))
    stage = "body"
    try:
        yield tmp
        stage = "commit"
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        _replace(tmp, target)
    except OSError as exc:
        _discard(tmp)
        if stage == "commit" or _is_ours(exc, names):
            raise output_error(target, exc, existed) from None
        raise
    except BaseException:
        _discard(tmp)
        raise
    _fsync_folder(folder)
    _remove_stale(target)


@contextmanager
def atomic_folder(path, purpose: str = "the files") -> Iterator[Path]:
    """``with atomic_folder(folder, "the TextGrids") as tmp: ...write files into tmp...``:
    a folder of output files, all or none.

    The files are written into a hidden temporary folder beside the target
    (``.<name>.tmp-<pid>-<random>``), where a full disk or any other failure shows. When the
    block ends without an exception, a target that does not exist yet is the temporary folder
    renamed (atomic); into an existing folder (the user's, which may hold other files) each
    file is moved with ``os.replace``, a rename on the same disk that needs no space. On any
    exception the temporary folder is removed and the target is left as it was.

    Raises
    ------
    OutputError
        The file system refused; the message names the target folder and says that none of
        ``purpose`` was written.
    """
    target = Path(os.fspath(path))
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    check_output_folder(target, purpose)
    folder = target.parent if str(target.parent) else Path(".")
    make_folder(folder, purpose)
    try:
        tmp = temp_path(target)
        os.mkdir(tmp)
    except OSError as exc:
        raise output_error(target, exc, False) from None
    _LIVE_TEMPS.add(tmp)
    try:
        yield tmp
        if not target.exists():
            os.rename(tmp, target)
            _LIVE_TEMPS.discard(tmp)
        else:
            for src in sorted(tmp.rglob("*")):
                dest = target / src.relative_to(tmp)
                if src.is_dir():
                    dest.mkdir(exist_ok=True)
                else:
                    os.replace(src, dest)
            _discard_folder(tmp)
        _fsync_folder(folder)
    except OutputError as exc:
        _discard_folder(tmp)
        if exc.errno is not None:
            raise OutputError(
                target,
                _none_written(output_error(target, OSError(exc.errno, ""), False).reason, purpose),
                exc.errno,
            ) from None
        raise
    except OSError as exc:
        _discard_folder(tmp)
        raise OutputError(
            target, _none_written(output_error(target, exc, False).reason, purpose), exc.errno
        ) from None
    except BaseException:
        _discard_folder(tmp)
        raise


def _none_written(reason: str, purpose: str) -> str:
    return reason.replace("nothing was written", f"none of {purpose} was written", 1)


def write_text(path, text: str, encoding: str = "utf-8", newline: str | None = None, **kw) -> Path:
    """Write ``text`` to ``path`` atomically (:func:`atomic_write`); returns the path."""
    with atomic_write(path, "w", encoding=encoding, newline=newline, **kw) as f:
        f.write(text)
    return Path(path)


def write_bytes(path, data: bytes, **kw) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`atomic_write`); returns the path."""
    with atomic_write(path, "wb", **kw) as f:
        f.write(data)
    return Path(path)
