"""Fault injection for the output writers (issue 29): a real ``fairdesk`` command killed with
SIGKILL at chosen points, or meeting a full disk (``OSError(ENOSPC)``) at chosen points.

:class:`Forker` starts one helper process (``python -m tests.hostile.faults``) that imports
fairdesk once and then forks a fresh child per request, so each of the many kill points
costs the command's own work, not an interpreter start. A child runs
``fairdesk.cli.main(argv)`` with its stdout and stderr in files (the command's own output,
returned with the exit code or the signal that ended it) and, if asked:

- ``kill_at``: ``SIGKILL`` itself once ``kill_at`` characters (text) or bytes (binary) have
  gone through the output writers (``fairdesk.core.atomic``), the last write cut at exactly
  that point and flushed, so the temporary file holds a truncated output;
- ``kill_after_replace``: ``SIGKILL`` itself right after the ``os.replace`` of an output
  (before the folder is synced);
- ``enospc_at``: raise ``OSError(ENOSPC)`` from the write that reaches ``enospc_at``, as a
  full disk does (``enospc_in="fsync"``: from ``os.fsync`` instead);
- ``kill_after_s``: the helper kills the child after that many seconds (a kill at a random
  point in time, nothing patched).

Every child reports how much went through the writers (``written``), so a first full run
tells where to put the points. Before the first ``report`` the helper loads matplotlib's
and WeasyPrint's fonts, so each child does not. ``SOURCE_DATE_EPOCH`` is fixed, so fontTools' subset fonts,
and with them WeasyPrint's PDFs, are byte-identical from run to run.

Only the child processes are killed; the helper ends when its stdin closes
(:meth:`Forker.close`).
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {
    "SOURCE_DATE_EPOCH": "1700000000",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "QT_QPA_PLATFORM": "offscreen",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}


@dataclass
class Outcome:
    """How one child ended: ``code`` (exit status) or ``signal``; its stdout and stderr;
    the characters / bytes that went through the output writers; seconds it ran."""

    code: int | None
    signal: int | None
    stdout: str
    stderr: str
    written: int | None
    seconds: float

    @property
    def killed(self) -> bool:
        return self.signal == signal.SIGKILL


class Forker:
    """The helper process; :meth:`run` forks one child per call (see the module doc)."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.hostile.faults"],
            cwd=ROOT,
            env={**os.environ, **ENV, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = self.proc.stdout.readline()
        if ready.strip() != "ready":
            self.close()
            raise RuntimeError(f"the fault-injection helper did not start: {ready!r}")

    def run(self, argv, *, cwd=None, **faults) -> Outcome:
        req = {"argv": [str(a) for a in argv], "cwd": str(cwd or ROOT), **faults}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the fault-injection helper died")
        return Outcome(**json.loads(line))

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()


# -- the helper process ----------------------------------------------------------------------
def disk_full(monkeypatch) -> None:
    """Every file :mod:`fairdesk.core.atomic` opens from now on fails its first write with
    ENOSPC, as a full disk does (no tmpfs or root needed)."""
    from fairdesk.core import atomic

    real = atomic._open_file

    class Full:
        def __init__(self, f):
            self._f = f

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self._f, name)

    monkeypatch.setattr(atomic, "_open_file", lambda *a: Full(real(*a)))


class _Counter:
    def __init__(self, req: dict):
        self.total = 0
        self.limit = req.get("kill_at", req.get("enospc_at"))
        self.kill = "kill_at" in req

    def fire(self):
        if self.kill:
            os.kill(os.getpid(), signal.SIGKILL)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _Counted:
    """A file object of the atomic writer, counted (and cut at the fault point)."""

    def __init__(self, f, counter: _Counter):
        self._f = f
        self._c = counter

    def write(self, data):
        c = self._c
        n = len(data)
        if c.limit is not None and c.total + n >= c.limit:
            keep = c.limit - c.total
            if keep > 0:
                self._f.write(data[:keep])
            self._f.flush()
            c.total += max(keep, 0)
            c.fire()
        c.total += n
        return self._f.write(data)

    def __iter__(self):
        return iter(self._f)

    def __getattr__(self, name):
        return getattr(self._f, name)


def _child(req: dict, out_path: str, err_path: str, report: str) -> None:
    """Runs in the forked child; never returns."""
    import traceback

    from fairdesk.cli import main
    from fairdesk.core import atomic

    code = 1
    try:
        os.chdir(req["cwd"])
        for fd, path in ((1, out_path), (2, err_path)):
            f = os.open(path, os.O_WRONLY | os.O_TRUNC)
            os.dup2(f, fd)
            os.close(f)
        counter = _Counter(req)
        real_open = atomic._open_file
        atomic._open_file = lambda *a: _Counted(real_open(*a), counter)
        if req.get("kill_after_replace"):
            real_replace = os.replace

            def replace_then_die(src, dst):
                real_replace(src, dst)
                os.kill(os.getpid(), signal.SIGKILL)

            atomic.os.replace = replace_then_die
        if req.get("enospc_in") == "fsync":

            def no_space(fd):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            atomic.os.fsync = no_space
        try:
            code = int(main(req["argv"]) or 0)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # what an uncaught exception prints, as python would
            traceback.print_exc()
            code = 1
        with open(report, "w") as f:
            f.write(str(counter.total))
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _warm_up() -> None:
    """Load matplotlib's and WeasyPrint's fonts once, before the forks (each child would
    load them again: seconds per kill point)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0], label="x")
    for fmt in ("svg", "png"):
        fig.savefig(io.BytesIO(), format=fmt)
    try:
        import weasyprint
    except (ImportError, OSError):
        return
    weasyprint.HTML(string="<p>fairdesk <b>x</b> <i>y</i></p>").render().write_pdf()


def _serve() -> None:
    import fairdesk.cli
    import fairdesk.reports.data
    import fairdesk.reports.html
    import fairdesk.reports.tables  # noqa: F401 - imported once, before the forks

    fairdesk.cli.build_parser()
    warm = False
    tmp = tempfile.mkdtemp(prefix="fairdesk-faults-")
    out_path, err_path, report = (os.path.join(tmp, n) for n in ("out", "err", "written"))
    print("ready", flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        if not warm and req["argv"][:1] == ["report"]:
            _warm_up()
            warm = True
        for p in (out_path, err_path, report):
            open(p, "w").close()
        sys.stdout.flush()
        sys.stderr.flush()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            _child(req, out_path, err_path, report)
        if req.get("kill_after_s") is not None:
            time.sleep(float(req["kill_after_s"]))
            os.kill(pid, signal.SIGKILL)  # a child that already ended is a zombie: no effect
        _, status = os.waitpid(pid, 0)
        seconds = time.monotonic() - t0
        written = Path(report).read_text().strip()
        reply = {
            "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "stdout": Path(out_path).read_text(errors="replace"),
            "stderr": Path(err_path).read_text(errors="replace"),
            "written": int(written) if written else None,
            "seconds": seconds,
        }
        print(json.dumps(reply), flush=True)
    for p in (out_path, err_path, report):
        os.unlink(p)
    os.rmdir(tmp)


if __name__ == "__main__":
    _serve()
