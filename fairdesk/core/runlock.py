"""Run locks: a job holds an OS lock (``fcntl.flock``) on its run's lock file while it runs.

The operating system releases the lock when the process dies, whatever the cause (``kill
-9`` included), so a run whose status is ``running`` but whose lock is free was interrupted:
:func:`release_interrupted` marks it ``interrupted`` when a project is opened. A process id
would not do: ids are reused. An interrupted run is resumable: its finished predictions are
in the cache and the same request re-runs only the rest.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import ModuleType

fcntl: ModuleType | None
try:  # POSIX; on other systems runs are never marked interrupted automatically
    import fcntl as _fcntl

    fcntl = _fcntl
except ImportError:  # pragma: no cover
    fcntl = None

LOCK_DIR = "locks"

__all__ = ["RunLock", "lock_path", "release_interrupted", "run_is_live"]


def lock_path(project, run_id: int) -> Path:
    """The lock file of run ``run_id``."""
    return Path(project.folder) / LOCK_DIR / f"run-{int(run_id)}.lock"


class RunLock:
    """Hold the lock of one run (a context manager; ``release()`` is idempotent)."""

    def __init__(self, project, run_id: int):
        self.path = lock_path(project, run_id)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = -1
            self.path.unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def run_is_live(project, run_id: int) -> bool:
    """Whether some process holds run ``run_id``'s lock."""
    if fcntl is None:  # pragma: no cover
        return True
    p = lock_path(project, run_id)
    try:
        fd = os.open(p, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also drops the lock if we just took it
    return False


def release_interrupted(project) -> list[int]:
    """Mark ``interrupted`` every ``running`` run whose lock no process holds; returns their
    ids. Their cached predictions stay: the same request resumes them."""
    if fcntl is None:  # pragma: no cover
        return []
    conn = project.conn
    try:
        ids = [int(r[0]) for r in conn.execute("SELECT id FROM runs WHERE status='running'")]
    except Exception:  # noqa: BLE001 - a store being created has no runs table yet
        return []
    dead = [i for i in ids if not run_is_live(project, i)]
    if dead:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "UPDATE runs SET status='interrupted', finished_at=? WHERE id=? "
                "AND status='running'",
                [(time.time(), i) for i in dead],
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        for i in dead:
            lock_path(project, i).unlink(missing_ok=True)
    return dead
