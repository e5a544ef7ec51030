"""Output files are complete or not there (issue 29, data loss): writers killed with SIGKILL
at many points, full disks, and output paths that cannot be written.

After every fault the target is byte-equal to the old complete file or to the new complete
one (a reference full run); a killed writer's hidden ``.<name>.tmp-<pid>-<random>`` file
never replaces the target and the next write removes it. Messages are the command's own
stderr: exit code, the path, what happened, what to do, and never a traceback.
"""

from __future__ import annotations

import errno
import importlib.util
import os
import random
import shutil
import sqlite3

import pytest

from fairdesk.cli import main
from fairdesk.core import atomic

from .conftest import dump, predictions_file
from .faults import Forker

IDS = [f"{a}-{s}-{c}" for a in ("north", "south") for s in range(2) for c in range(2)]
KILL_POINTS = 20


def _pdf_available() -> bool:
    if importlib.util.find_spec("weasyprint") is None:
        return False
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError):
        return False
    return True


@pytest.fixture(scope="module")
def runs(_base_template, tmp_path_factory):
    """``(project folder, run id)``: the base project audited with predictions (run 1, the
    new output of the tests) and with perfect predictions (run 2, the old output)."""
    tmp = tmp_path_factory.mktemp("outputs")
    shutil.copytree(_base_template, tmp / "b")
    proj, data = tmp / "b" / "proj", tmp / "b" / "data"
    conn = sqlite3.connect(proj / "project.sqlite")
    with conn:
        conn.execute("UPDATE datasets SET root=?", (str(data.resolve()),))
    conn.close()
    pred = predictions_file(
        tmp / "p.csv", [(i, "play" if i.startswith("s") else f"play song {i[-1]}") for i in IDS]
    )
    args = ["audit", "--project", proj, "--dataset", "base", "--model", f"predictions:{pred}"]
    args += ["--by", "accent", "--n-bootstrap", "200", "--min-items", "1", "--min-speakers", "1"]
    assert main([str(a) for a in args] + ["--quiet"]) == 0
    perfect = predictions_file(tmp / "q.csv", [(i, f"play song {i[-1]}") for i in IDS])
    args[args.index(f"predictions:{pred}")] = f"predictions:{perfect}"
    assert main([str(a) for a in args] + ["--quiet"]) == 0
    return proj, 1


@pytest.fixture(scope="module")
def forker():
    f = Forker()
    yield f
    f.close()


def _temps(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if atomic.TEMP_MARK in n)


def _no_traceback(out):
    assert "Traceback" not in out.stderr + out.stdout, out.stderr


def _spread(total: int, n: int = KILL_POINTS) -> list[int]:
    """``n`` points from the first character to the last, evenly spread."""
    return sorted({max(1, round(1 + i * (total - 1) / (n - 1))) for i in range(n)})


# -- kill -9 while writing ---------------------------------------------------------------------
def _export(proj, run, target, *extra):
    return ["export", "--project", proj, "--run", run, "--items", target, *extra]


def _reference(forker, argv, cwd):
    out = forker.run(argv, cwd=cwd)
    _no_traceback(out)
    assert out.code == 0, out.stderr
    return out


def _old_and_new_export(forker, proj, run, target, cwd):
    """(old, new, the new run's result): the old complete file is an export of another run,
    the new one the export the kill tests interrupt."""
    _reference(forker, _export(proj, run + 1, target), cwd)
    old = target.read_bytes()
    out = _reference(forker, _export(proj, run, target), cwd)
    return old, target.read_bytes(), out


def test_export_killed_at_20_points_through_the_write_keeps_old_or_new(forker, runs, tmp_path):
    proj, run = runs
    target = tmp_path / "F.csv"
    old, new, new_run = _old_and_new_export(forker, proj, run, target, tmp_path)
    assert old != new and new.count(b"\n") == len(IDS) + 1
    total = new_run.written
    assert total == len(new.decode())  # every character went through the atomic writer
    points = _spread(total)
    assert len(points) == KILL_POINTS and points[0] == 1 and points[-1] == total
    for i, k in enumerate(points):
        target.write_bytes(old)
        before = set(_temps(tmp_path))
        out = forker.run(_export(proj, run, target), cwd=tmp_path, kill_at=k)
        assert out.killed, (k, out.code, out.stderr)
        assert target.read_bytes() == old, f"kill at character {k} of {total}"
        # what the killed writer left: only its hidden temporary, holding the first k
        (left,) = set(_temps(tmp_path)) - before
        assert left.startswith(".F.csv.tmp-") and len(before) == i
        assert (tmp_path / left).read_bytes() == new.decode()[:k].encode()
        assert sorted(os.listdir(tmp_path)) == sorted(["F.csv", *before, left])
    # killed after the rename: the new complete file
    target.write_bytes(old)
    out = forker.run(_export(proj, run, target), cwd=tmp_path, kill_after_replace=True)
    assert out.killed and target.read_bytes() == new
    # the next complete write removes the temporaries of the dead writers
    assert len(_temps(tmp_path)) == KILL_POINTS
    _reference(forker, _export(proj, run, target), tmp_path)
    assert target.read_bytes() == new and _temps(tmp_path) == []


def _random_kills(forker, argv, cwd, targets, olds, news, seconds, seed):
    """Kill ``argv`` at KILL_POINTS random times over 1.3 × a full run; after each, every
    target is its old or its new complete content. Returns how many of each were seen."""
    rng = random.Random(seed)
    seen = {"old": 0, "new": 0, "mixed": 0}
    for i in range(KILL_POINTS):
        delay = seconds * 1.3 * (i + rng.random()) / KILL_POINTS
        for t, o in zip(targets, olds):
            t.write_bytes(o)
        out = forker.run(argv, cwd=cwd, kill_after_s=delay)
        _no_traceback(out)
        got = [t.read_bytes() for t in targets]
        for t, g, o, n in zip(targets, got, olds, news):
            assert g in (o, n), f"{t.name} after a kill at {delay:.3f} s is neither old nor new"
        state = ["old" if g == o else "new" for g, o in zip(got, olds)]
        seen["old" if set(state) == {"old"} else "new" if set(state) == {"new"} else "mixed"] += 1
        if not out.killed:
            assert out.code == 0 and got == news
        for n in _temps(cwd):  # only the hidden temporaries of the targets
            assert any(n.startswith(f".{t.name}.tmp-") for t in targets), n
    return seen


def test_export_killed_at_20_random_times_keeps_old_or_new(forker, runs, tmp_path):
    proj, run = runs
    target = tmp_path / "F.csv"
    old, new, full = _old_and_new_export(forker, proj, run, target, tmp_path)
    seen = _random_kills(
        forker, _export(proj, run, target), tmp_path, [target], [old], [new], full.seconds, 29
    )
    assert seen["old"] >= 1 and seen["new"] >= 1, seen
    _reference(forker, _export(proj, run, target), tmp_path)
    assert _temps(tmp_path) == []


def _report(proj, run, html, pdf, worst):
    argv = ["report", "--project", proj, "--run", run, "--html", html, "--worst", worst]
    return argv + (["--pdf", pdf] if pdf is not None else [])


@pytest.fixture(scope="module")
def report_refs(forker, runs, tmp_path_factory):
    """Old (the other run's) and new reports, with the PDF when WeasyPrint works:
    ``(folder, targets, olds, news, full run)``."""
    proj, run = runs
    folder = tmp_path_factory.mktemp("report")
    html = folder / "R.html"
    pdf = folder / "R.pdf" if _pdf_available() else None
    targets = [html] + ([pdf] if pdf else [])
    _reference(forker, _report(proj, run + 1, html, pdf, 1), folder)
    olds = [t.read_bytes() for t in targets]
    full = _reference(forker, _report(proj, run, html, pdf, 3), folder)
    news = [t.read_bytes() for t in targets]
    again = _reference(forker, _report(proj, run, html, pdf, 3), folder)
    assert [t.read_bytes() for t in targets] == news  # byte-equal from run to run
    assert again.written == full.written
    assert all(o != n for o, n in zip(olds, news))
    if pdf:
        assert news[1].startswith(b"%PDF") and news[1].rstrip().endswith(b"%%EOF")
    return folder, targets, olds, news, full


@pytest.mark.slow
def test_report_killed_at_20_points_through_the_write_keeps_old_or_new(forker, runs, report_refs):
    """``report --pdf`` (the HTML report alone without WeasyPrint): the points are spread
    over everything the command writes, the HTML and then the PDF."""
    proj, run = runs
    folder, targets, olds, news, full = report_refs
    argv = _report(proj, run, *targets[:1], targets[1] if len(targets) > 1 else None, 3)
    html_chars = len(news[0].decode())
    for k in _spread(full.written):
        for t, o in zip(targets, olds):
            t.write_bytes(o)
        out = forker.run(argv, cwd=folder, kill_at=k)
        assert out.killed, (k, out.stderr)
        got = [t.read_bytes() for t in targets]
        # before the end of the HTML: both old; after: the new HTML, the old PDF
        want = olds if k <= html_chars else [news[0], *olds[1:]]
        assert got == want, f"kill at {k} of {full.written} ({html_chars} in the HTML)"
    _reference(forker, argv, folder)
    assert [t.read_bytes() for t in targets] == news and _temps(folder) == []


@pytest.mark.slow
def test_report_killed_at_20_random_times_keeps_old_or_new(forker, runs, report_refs):
    proj, run = runs
    folder, targets, olds, news, full = report_refs
    argv = _report(proj, run, targets[0], targets[1] if len(targets) > 1 else None, 3)
    _random_kills(forker, argv, folder, targets, olds, news, full.seconds, 2929)
    _reference(forker, argv, folder)
    assert _temps(folder) == []


# -- a full disk -------------------------------------------------------------------------------
class _Full:
    """A writer's file object on a disk that fills after ``at`` characters / bytes (or, with
    ``state["exc"]``, that raises that exception there: Ctrl-C)."""

    def __init__(self, f, state):
        self._f, self._s = f, state

    def write(self, data):
        s = self._s
        if s["at"] is not None and s["n"] + len(data) >= s["at"]:
            keep = s["at"] - s["n"]
            if keep > 0:
                self._f.write(data[:keep])
            raise s.get("exc") or OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        s["n"] += len(data)
        return self._f.write(data)

    def __iter__(self):
        return iter(self._f)

    def __getattr__(self, name):
        return getattr(self._f, name)


def _fill_disk(patch, at=None, in_fsync=False) -> dict:
    """From now on the output writers meet a full disk after ``at`` characters / bytes (None:
    never; ``in_fsync``: at the final sync); returns the count of what was written."""
    state = {"at": at, "n": 0}
    real = atomic._open_file
    patch.setattr(atomic, "_open_file", lambda *a: _Full(real(*a), state))
    if in_fsync:

        def no_space(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        patch.setattr(atomic.os, "fsync", no_space)
    return state


#: command and options -> the file the disk fills on (the last one the command writes)
WRITERS = {
    "export --items": (["export", "--items", "F.csv"], "F.csv"),
    "export --groups": (["export", "--groups", "G.tsv"], "G.tsv"),
    "export --json": (["export", "--items", "F.csv", "--json", "w.json"], "w.json"),
    "show --json": (["show", "--json", "s.json"], "s.json"),
    "report": (["report", "--html", "R.html"], "R.html"),
    "report --pdf": (["report", "--html", "R.html", "--pdf", "R.pdf"], "R.pdf"),
}
_SLOW = {"report", "report --pdf"}  # seconds per run: the charts, the PDF


@pytest.mark.parametrize(
    "writer",
    [pytest.param(w, marks=[pytest.mark.slow] if w in _SLOW else []) for w in WRITERS],
)
def test_full_disk_while_writing_says_so_and_keeps_the_old_file(
    cli, runs, tmp_path, monkeypatch, writer
):
    if writer == "report --pdf" and not _pdf_available():
        pytest.skip("WeasyPrint is not usable here (fairdesk[pdf] and Pango)")
    proj, run = runs
    opts, name = WRITERS[writer]
    opts = [tmp_path / o if "." in o else o for o in opts]
    argv = [opts[0], "--project", proj, "--run", run, *opts[1:]]
    target = tmp_path / name
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the same PDF bytes every time
    with monkeypatch.context() as m:
        count = _fill_disk(m)
        code, _, err = cli(*argv)
    assert code == 0, err
    new = target.read_bytes()
    written = count["n"]
    # the point where the disk fills: the first character of the target, its middle, its last
    # (counted over everything the command writes), and the final sync
    start = written - (len(new) if target.suffix == ".pdf" else len(new.decode()))
    for at, in_fsync in ((start + 1, False), ((start + written) // 2, False), (written, False)):
        _check_full_disk(cli, monkeypatch, argv, target, at, in_fsync, tmp_path)
    _check_full_disk(cli, monkeypatch, argv, target, None, True, tmp_path)
    code, _, _ = cli(*argv)
    assert code == 0 and target.read_bytes() == new


def _check_full_disk(cli, monkeypatch, argv, target, at, in_fsync, folder):
    old = b"old complete file\n"
    target.write_bytes(old)
    with monkeypatch.context() as m:
        _fill_disk(m, at, in_fsync)
        code, out, err = cli(*argv)
    assert code == 2, (at, err)
    line = [x for x in err.splitlines() if "the disk is full" in x]
    assert len(line) == 1, err
    assert "Free some space there, or write the file to another disk" in line[0]
    if at is not None:  # the disk filled while writing the target, which keeps its old content
        assert line[0].endswith(
            f"{target}: the disk is full (no space left on the device holding {folder}); the "
            "earlier file is unchanged. Free some space there, or write the file to another disk"
        ), line
    assert target.read_bytes() == old, (at, in_fsync)
    assert _temps(folder) == []


def test_ctrl_c_while_writing_keeps_the_old_file(cli, runs, tmp_path, monkeypatch):
    proj, run = runs
    target = tmp_path / "F.csv"
    target.write_text("old complete file\n")
    state = _fill_disk(monkeypatch, at=100)
    state["exc"] = KeyboardInterrupt()
    code, out, err = cli(*_export(proj, run, target))
    assert code == 130 and err == "fairdesk: interrupted\n"
    assert target.read_text() == "old complete file\n" and _temps(tmp_path) == []


def test_full_disk_in_a_separate_process_prints_one_message(forker, runs, tmp_path):
    proj, run = runs
    target = tmp_path / "F.csv"
    target.write_text("old complete file\n")
    out = forker.run(_export(proj, run, target), cwd=tmp_path, enospc_at=200)
    _no_traceback(out)
    assert out.code == 2
    assert out.stderr == (
        f"fairdesk export: {target}: the disk is full (no space left on the device holding "
        f"{tmp_path}); the earlier file is unchanged. Free some space there, or write the file "
        "to another disk\n"
    )
    assert target.read_text() == "old complete file\n" and _temps(tmp_path) == []
    out = forker.run(_export(proj, run, target), cwd=tmp_path, enospc_in="fsync")
    _no_traceback(out)
    assert out.code == 2 and "the disk is full" in out.stderr
    assert target.read_text() == "old complete file\n" and _temps(tmp_path) == []


# -- output paths that cannot be written --------------------------------------------------------
@pytest.mark.parametrize("cmd", ["audit", "show"])
def test_json_into_a_folder_or_a_missing_folder_is_refused_before_any_work(
    cli, runs, tmp_path, cmd
):
    proj, run = runs
    pred = predictions_file(tmp_path / "p.csv", [(i, "play") for i in IDS])
    base = (
        ["audit", "--project", proj, "--dataset", "base", "--model", f"predictions:{pred}"]
        + ["--by", "accent", "--n-bootstrap", "200", "--min-items", "1", "--min-speakers", "1"]
        if cmd == "audit"
        else ["show", "--project", proj, "--run", run]
    )
    before = dump(proj)
    folder = tmp_path / "out"
    folder.mkdir()
    code, out, err = cli(*base, "--json", folder)
    assert code == 2 and out == ""
    assert err == (
        f"fairdesk {cmd}: {folder}: this is a folder, not a file; give a file name (inside "
        "that folder or elsewhere)\n"
    )
    missing = tmp_path / "nope" / "r.json"
    code, out, err = cli(*base, "--json", missing)
    assert code == 2 and out == ""
    assert err == (
        f"fairdesk {cmd}: {missing}: the folder {tmp_path / 'nope'} does not exist; create it "
        f"first (mkdir -p {tmp_path / 'nope'}) or choose another path\n"
    )
    assert dump(proj) == before  # no run was started
    assert sorted(os.listdir(tmp_path)) == ["out", "p.csv"] and os.listdir(folder) == []


def test_textgrid_folder_that_is_a_file_is_refused_before_any_work(cli, runs, tmp_path):
    proj, run = runs
    f = tmp_path / "grids.txt"
    f.write_text("mine\n")
    table = tmp_path / "F.csv"
    for opt in ("--textgrid", "--eaf"):
        code, out, err = cli("export", "--project", proj, "--run", run, "--items", table, opt, f)
        what = "the TextGrids" if opt == "--textgrid" else "the ELAN files"
        assert code == 2 and out == ""
        assert err == (
            f"fairdesk export: {f}: this is a file, not a folder; give a folder for {what} "
            "(it is created if needed), e.g. a new name beside the file\n"
        )
    assert f.read_text() == "mine\n" and not table.exists()  # nothing was written


def test_export_beside_a_file_where_a_folder_should_be(cli, runs, tmp_path):
    proj, run = runs
    f = tmp_path / "plain"
    f.write_text("x")
    code, _, err = cli("export", "--project", proj, "--run", run, "--items", f / "sub" / "F.csv")
    assert code == 2 and f"{f} is a file, not a folder; choose another path" in err


def test_report_figures_into_a_file_is_refused(cli, runs, tmp_path):
    proj, run = runs
    f = tmp_path / "figs"
    f.write_text("x")
    html = tmp_path / "R.html"
    code, _, err = cli("report", "--project", proj, "--run", run, "--html", html, "--figures", f)
    assert code == 2 and "give a folder for the figures" in err and not html.exists()


def test_output_folder_without_write_permission(cli, runs, tmp_path, monkeypatch):
    """A folder one may not write in (as root, which writes anyway, the refusal is
    simulated: ``os.access`` says no, and creating the temporary file fails with EACCES)."""
    proj, run = runs
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "F.csv").write_text("old\n")
    if os.geteuid() == 0:
        real = os.access
        monkeypatch.setattr(
            atomic.os, "access", lambda p, m: False if str(p) == str(ro) else real(p, m)
        )
    else:
        ro.chmod(0o555)
    try:
        code, out, err = cli("export", "--project", proj, "--run", run, "--items", ro / "F.csv")
        assert code == 2
        assert err == (
            f"fairdesk export: {ro / 'F.csv'}: no permission to write in {ro}; the earlier file "
            "is unchanged. Choose a folder you can write to (or ask for write permission on "
            "this one)\n"
        )
        code, _, err = cli("show", "--project", proj, "--run", run, "--json", ro / "s.json")
        assert code == 2 and "no permission to write in" in err
    finally:
        ro.chmod(0o755)
    assert (ro / "F.csv").read_text() == "old\n" and sorted(os.listdir(ro)) == ["F.csv"]


def test_exports_replace_earlier_files_and_leave_nothing_beside_them(cli, runs, tmp_path):
    """TextGrids, EAFs and tables over an earlier export, and figures: replaced whole, no
    temporary files, and no ``.bak`` copies (pympi's own writer made ``<stem>.bak``)."""
    proj, run = runs
    tg, eaf, figs = tmp_path / "tg", tmp_path / "eaf", tmp_path / "figs"
    args = ["export", "--project", proj, "--run", run, "--aligner", "even"]
    args += ["--textgrid", tg, "--eaf", eaf, "--items", tmp_path / "F.csv"]
    for _ in range(2):
        code, _, err = cli(*args)
        assert code == 0, err
    report = ["report", "--project", proj, "--run", run, "--html", tmp_path / "R.html"]
    code, _, err = cli(*report, "--figures", figs)
    assert code == 0, err
    names = {p.name for p in tmp_path.rglob("*")}
    assert not [n for n in names if atomic.TEMP_MARK in n or n.endswith(".bak")], names
    assert len(list(tg.glob("*.TextGrid"))) == len(IDS) == len(list(eaf.glob("*.eaf")))
    assert all(
        p.read_text(encoding="utf-8").startswith('File type = "ooTextFile"') for p in tg.iterdir()
    )
    assert all(p.read_bytes().startswith(b"<?xml") for p in eaf.iterdir())
    assert list(figs.glob("*.png")) and all(
        p.read_bytes().startswith(b"\x89PNG") for p in figs.glob("*.png")
    )


def test_regress_table_out_that_cannot_be_written_is_refused_before_the_fit(cli, runs, tmp_path):
    proj, run = runs
    f = tmp_path / "plain"
    f.write_text("x")
    reg = ["regress", "--project", proj, "--run", run, "--outcome", "correct", "--vars", "accent"]
    code, out, err = cli(*reg, "--table-out", f / "or.csv")
    assert code == 2 and out == ""
    assert (
        err
        == f"fairdesk regress: {f / 'or.csv'}: {f} is a file, not a folder; choose another path\n"
    )
    code, out, err = cli(*reg, "--table-out", tmp_path / "or.xlsx")
    assert code == 2 and out == "" and "name the file .csv, .tsv or .parquet" in err
    code, out, err = cli(*reg, "--table-out", tmp_path / "new" / "or.csv")
    assert code == 0, err
    assert (tmp_path / "new" / "or.csv").read_text().startswith("variable,level,")


@pytest.mark.parametrize("opt", ["--textgrid", "--eaf", "--figures"])
@pytest.mark.parametrize("existing", [False, True])
def test_a_folder_export_that_runs_out_of_room_midway_writes_no_file(
    cli, runs, tmp_path, monkeypatch, opt, existing
):
    """The disk fills after a few files of a folder export: the message names the folder
    and says none was written, and the folder is as it was (absent, or holding only what
    the user had in it); the temporary folder is gone."""
    proj, run = runs
    out = tmp_path / "out"
    if existing:
        out.mkdir()
        (out / "mine.txt").write_text("mine\n")
    real = atomic._create_temp
    opened = []

    def fill_after_three(target):
        opened.append(target)
        if len(opened) > 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(target)

    monkeypatch.setattr(atomic, "_create_temp", fill_after_three)
    if opt == "--figures":
        args = ["report", "--project", proj, "--run", run, "--html", tmp_path / "R.html"]
    else:
        args = ["export", "--project", proj, "--run", run, "--aligner", "even"]
    code, _, err = cli(*args, opt, out)
    assert code == 2 and len(opened) > 3, err
    what = {"--textgrid": "the TextGrids", "--eaf": "the ELAN files", "--figures": "the figures"}
    assert f"{out}: the disk is full" in err and f"none of {what[opt]} was written" in err, err
    if existing:
        assert sorted(os.listdir(out)) == ["mine.txt"]
    else:
        assert not out.exists()
    assert not [p for p in tmp_path.rglob("*") if atomic.TEMP_MARK in p.name]
