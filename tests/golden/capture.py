"""Golden files: what every view prints for a small set of stored runs.

The runs are made without inference or a model: a project of short tones (written here) with
imported predictions files (``--model predictions:FILE``) for the audits, the comparison of
two systems and the regressions (fitted on the stored run), and an incremental run stored
from ``fixtures/incremental_run.json`` (made once by a fake streaming backend, see
:func:`make_incremental_fixture`; its timings are those of that one run).

For each run the capture keeps, normalised (:func:`normalise`):

* the ``--json`` outputs: ``audit``, ``show``, ``regress``, ``plan``, ``runs`` and the stored
  incremental run's JSON (``*.json``, compared as values);
* the console text: ``audit``, ``show``, ``regress``, ``plan``, ``compare``, the console view
  of the stored run (``cli.console.format_groups``) and ``incremental``'s summary of the
  stored incremental run (``*.txt``);
* the HTML report's visible text (tags dropped, one line per block; ``report-*.txt``);
* the GUI's text, read from the widgets offscreen: verdict cards (title and lines), the
  Comparisons and Groups tables, the Items list's cells, the Systems view, the Regression
  tab, the Incremental tab (``gui-*.txt``).

Re-approve (after a change that is meant to change what users read)::

    PYTHONPATH=$PWD QT_QPA_PLATFORM=offscreen python -m tests.golden.capture --approve

then read ``git diff tests/golden`` line by line: every changed line must be one the change
means (list them in the commit message). ``python -m tests.golden.capture --check`` compares
without writing. ``tests/test_golden.py`` does the same check in the test suite.

What legitimately varies from one capture to the next is normalised: the temporary folder
(``<ROOT>``), times and dates (``<TIME>``, ``<DATE>``, ``created_at`` and the like), the
version of fairdesk and of the libraries (``<VERSION>``), durations measured on this machine
(``<SECONDS>``), the machine (``hardware``) and the hashes of files and requests
(``<HASH>``). Run ids are not normalised: the runs are made in a fixed order.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import html
import html.parser
import io
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
INCREMENTAL_FIXTURE = FIXTURES / "incremental_run.json"

SENTENCES = [
    (
        "play bohemian rhapsody by queen",
        "PlayMusic",
        {"artist": "queen", "song": "bohemian rhapsody"},
    ),
    ("play hotel california", "PlayMusic", {"song": "hotel california"}),
    ("turn the volume up", "VolumeUp", {}),
    ("pause the music", "Pause", {}),
    ("go back to the previous song", "Previous", {}),
]
#: Speakers per accent: north and south enough for a verdict, west fewer than 10 (a
#: significant gap is speaker_confounded), east one (excluded by the minimums, or
#: not_estimable when they let it in).
ACCENTS = {"north": 12, "south": 12, "west": 6, "east": 1}
#: The incremental fixture's dataset: per accent the clips' duration (s), 5 speakers x 2.
STREAM_ACCENTS = {"a": 1.8, "b": 2.6}
STREAM_SENTENCE = "play the song by the band"
STATS = ["--n-bootstrap", "200", "--min-items", "10", "--min-speakers", "5"]


# -- the project ------------------------------------------------------------------------------
def _wav(path: Path, seconds: float, freq: float) -> None:
    import soundfile as sf

    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(seconds * 16000)) / 16000
    sf.write(str(path), (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32), 16000)


def _hyp_a(accent: str, s: int, k: int, text: str) -> str:
    """System A: the south accent loses a word in most items, the west in some; the north
    mishears one word of one item."""
    words = text.split()
    if accent == "south" and (s + k) % 3 != 0:
        del words[1]
    elif accent in ("west", "east") and (s + k) % 2 == 0:
        words[-1] = "uh"
    elif accent == "north" and s == 0 and k == 0:
        words[2] = "rap"
    return " ".join(words)


def _hyp_b(accent: str, s: int, k: int, text: str) -> str:
    """System B: the south loses its last word in a quarter of its items, the rest is right."""
    words = text.split()
    if accent == "south" and (4 * s + k) % 4 == 0:
        del words[-1]
    return " ".join(words)


def _write_csv(path: Path, rows: list[dict]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def build_data(root: Path) -> dict[str, Path]:
    """The audio, manifests and predictions files; returns their paths by name."""
    rows, preds_a, preds_b = [], [], []
    n = 0
    for accent, n_speakers in ACCENTS.items():
        for s in range(n_speakers):
            spk = f"{accent}_{s}"
            for k, (text, intent, slots) in enumerate(SENTENCES):
                rel = f"audio/{spk}/{spk}_{k}.wav"
                _wav(root / rel, 0.2, 180.0 + 7.0 * n)
                n += 1
                rows.append(
                    {
                        "path": rel,
                        "text": text,
                        "speaker_id": spk,
                        "content_id": f"c{k}",
                        "accent": accent,
                        "gender": "female" if s % 2 else "male",
                        "age": 20 + 3 * s + len(accent),
                        "intent": intent,
                        "slots": json.dumps(slots),
                    }
                )
                preds_a.append({"path": rel, "text": _hyp_a(accent, s, k, text)})
                preds_b.append({"path": rel, "text": _hyp_b(accent, s, k, text)})
    stream = []
    for accent, secs in STREAM_ACCENTS.items():
        for s in range(5):
            for c in range(2):
                rel = f"stream/{accent}/{s}_{c}.wav"
                _wav(root / rel, secs, 200 + 10 * c + 3 * s)
                stream.append(
                    {
                        "path": rel,
                        "text": STREAM_SENTENCE,
                        "speaker_id": f"{accent}{s}",
                        "content_id": f"c{c}",
                        "accent": accent,
                    }
                )
    return {
        "manifest": _write_csv(root / "manifest.csv", rows),
        "preds_a": _write_csv(root / "predictions_a.csv", preds_a),
        "preds_b": _write_csv(root / "predictions_b.csv", preds_b),
        "stream": _write_csv(root / "stream.csv", stream),
    }


@dataclass
class Capture:
    """The project's folder and what was captured so far, by golden file name."""

    root: Path
    folder: Path
    data: dict[str, Path]
    files: dict[str, str] = field(default_factory=dict)


def cli(argv: list[str]) -> tuple[int, str]:
    """``fairdesk ARGV`` in this process: (exit code, stdout); stderr (progress) dropped."""
    from fairdesk.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse's refusal
            rc = exc.code
    if rc != 0:
        raise RuntimeError(f"fairdesk {' '.join(argv)}: exit {rc}\n{err.getvalue()}")
    return rc, out.getvalue()


def _json_file(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def run_cli(cap: Capture, name: str, argv: list[str], json_out: bool = True) -> None:
    """Run a command; keep its console text as ``NAME.txt`` and its ``--json`` as
    ``NAME.json``."""
    out = cap.root / "out" / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    _, text = cli([*argv, "--json", str(out)] if json_out else argv)
    cap.files[f"{name}.txt"] = text
    if json_out:
        cap.files[f"{name}.json"] = _json_file(out)


def build_project(root: Path) -> Capture:
    """The project and its runs, made in this order in the current folder (``root``: paths
    are relative, so the model names and column widths do not depend on where it lies):

    1. an audit by gender (two groups; an inconclusive gap, its recording plan made by
       ``fairdesk plan``);
    2. an audit by accent (north the reference; south disparity_detected, west
       speaker_confounded, east excluded by the minimums), three regressions fitted on it;
    3. and 4. systems A and B by accent, their paired comparison stored with run 3;
    5. the incremental run of the fixture;
    6. an audit by accent with a minimum of one speaker (east not_estimable).

    The console and ``--json`` of each command are captured on the way.
    """
    data = build_data(Path("data"))
    cap = Capture(root, Path("project"), data)
    p = "project"
    for name in ("mini", "stream"):
        manifest = data["manifest" if name == "mini" else "stream"]
        cli(["import", "--project", p, "--name", name, "--format", "manifest", str(manifest)])
    model_a, model_b = f"predictions:{data['preds_a']}", f"predictions:{data['preds_b']}"
    audit = ["audit", "--project", p, "--dataset", "mini"]
    base = [*audit, *STATS]
    run_cli(cap, "audit-1-gender", [*base, "--model", model_a, "--by", "gender"])
    run_cli(
        cap, "audit-2-accent", [*base, "--model", model_a, "--by", "accent", "--reference", "north"]
    )
    run_cli(
        cap,
        "audit-3-systems",
        [
            *base,
            "--model",
            model_a,
            "--model",
            model_b,
            "--by",
            "accent",
            "--reference",
            "north",
            "--nlu",
            "none",
        ],
    )
    store_incremental_fixture(cap.folder)
    run_cli(
        cap,
        "audit-6-one-speaker",
        [
            *audit,
            "--n-bootstrap",
            "200",
            "--min-items",
            "5",
            "--min-speakers",
            "1",
            "--model",
            model_a,
            "--by",
            "accent",
            "--reference",
            "north",
            "--nlu",
            "none",
        ],
    )
    reg = ["regress", "--project", p, "--run", "2"]
    run_cli(cap, "regress-2-logit", [*reg, "--vars", "accent", "gender"])
    run_cli(cap, "regress-2-linear", [*reg, "--family", "linear", "--covariates", "age"])
    run_cli(cap, "regress-2-poisson", [*reg, "--family", "poisson-mixed", "--vars", "accent"])
    run_cli(cap, "plan-1", ["plan", "--project", p, "--run", "1", "--replicates", "200"])
    run_cli(cap, "compare-3-4", ["compare", "--project", p, "--run", "3", "--run", "4"])
    run_cli(cap, "runs", ["runs", "--project", p])
    for run in (1, 2, 3, 6):
        run_cli(cap, f"show-{run}", ["show", "--project", p, "--run", str(run), "--worst", "5"])
    return cap


# -- the incremental run ----------------------------------------------------------------------
def store_incremental_fixture(folder: Path) -> int:
    """Store ``fixtures/incremental_run.json`` in the project as an incremental run of the
    ``stream`` dataset; returns its run id."""
    from fairdesk.core.store import Project
    from fairdesk.incremental.store import store_incremental

    payload = json.loads(INCREMENTAL_FIXTURE.read_text(encoding="utf-8"))
    p = Project(folder)
    try:
        return store_incremental(p, p.dataset("stream").id, payload)
    finally:
        p.close()


class PrefixBackend:
    """The fake streaming backend of the fixture: the words of the sentence (0.25 s each from
    0.1 s) that end within the decoded audio, plus a wrong "uh" when exactly 2.0 s are
    decoded (only group b's 2.6 s clips have such an update: its edit overhead is higher),
    and "son" for "song" in more than 2.5 s (group b's whole clip: its WER is higher)."""

    id = "fake-stream"
    settings = {"beam_size": 1}

    def transcribe(self, audios):
        from fairdesk.models.base import Transcription, Word

        out = []
        for a in audios:
            dur = a.size / 16000
            words = [
                Word(w, 0.1 + 0.25 * i, 0.35 + 0.25 * i, 1.0)
                for i, w in enumerate(STREAM_SENTENCE.split())
                if 0.35 + 0.25 * i <= dur + 1e-9
            ]
            if abs(dur - 2.0) < 1e-6:
                words.append(Word("uh", 1.8, 2.0, 0.5))
            if dur > 2.5:
                words = [w if w.text != "song" else Word("son", w.start, w.end, 0.5) for w in words]
            out.append(Transcription(" ".join(w.text for w in words), tuple(words)))
        return out

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def make_incremental_fixture(root: Path) -> None:
    """Write ``fixtures/incremental_run.json``: the ``stream`` dataset streamed by
    :class:`PrefixBackend` (concatenation and local agreement, groups by accent), as stored.
    Made once; its decode timings are those of the machine that made it, and the golden
    files keep them (a new fixture changes the incremental goldens)."""
    import fairdesk.models
    from fairdesk.core.store import Project
    from fairdesk.incremental.job import run_incremental
    from fairdesk.stats.settings import AuditSettings

    data = build_data(root / "data")
    p = Project(root / "project")
    try:
        cli(
            [
                "import",
                "--project",
                str(p.folder),
                "--name",
                "stream",
                "--format",
                "manifest",
                str(data["stream"]),
            ]
        )
        fairdesk.models.get_backend = lambda *a, **k: PrefixBackend()
        res = run_incremental(
            p,
            "stream",
            ["fake-stream"],
            ["concatenation", "local-agreement"],
            1.0,
            by=["accent"],
            settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2),
            store=False,
        )
    finally:
        p.close()
    FIXTURES.mkdir(exist_ok=True)
    text = json.dumps(res.to_json(timelines=True), ensure_ascii=False, indent=1, sort_keys=True)
    INCREMENTAL_FIXTURE.write_text(text + "\n", encoding="utf-8")


# -- views of the stored runs -----------------------------------------------------------------
def stored_views(cap: Capture) -> None:
    """The console view of each stored audit run (``cli.console.format_groups``, as
    ``fairdesk audit`` prints it), the incremental run as ``fairdesk incremental`` prints it,
    and each run's HTML report as text."""
    from fairdesk.cli.console import format_groups
    from fairdesk.cli.incremental import print_summary
    from fairdesk.core.runs import run_payload
    from fairdesk.core.store import Project
    from fairdesk.incremental.store import load_incremental
    from fairdesk.jobs.result import as_audit_run
    from fairdesk.reports.html import write_report

    p = Project(cap.folder)
    try:
        for run in AUDIT_RUNS:
            cap.files[f"console-{run}.txt"] = format_groups(as_audit_run(run_payload(p, run)))
        out = io.StringIO()
        print_summary(load_incremental(p, INCREMENTAL_RUN), file=out)
        cap.files[f"incremental-{INCREMENTAL_RUN}.txt"] = out.getvalue()
        cap.files[f"incremental-{INCREMENTAL_RUN}.json"] = json.dumps(
            load_incremental(p, INCREMENTAL_RUN).to_json(timelines=False)
        )
        for run in (*AUDIT_RUNS, INCREMENTAL_RUN):
            path = cap.root / "out" / f"report-{run}.html"
            write_report(p, run, path)
            cap.files[f"report-{run}.txt"] = visible_text(path.read_text(encoding="utf-8"))
    finally:
        p.close()


#: The audit runs viewed (4 is system B's own run, seen through the comparison of run 3).
AUDIT_RUNS = (1, 2, 3, 6)
INCREMENTAL_RUN = 5


class _Text(html.parser.HTMLParser):
    """The text a browser shows: one line per block, nothing of scripts, styles, SVG or
    embedded data."""

    SKIP = {"script", "style", "svg", "head"}
    BLOCK = {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "ul",
        "ol",
        "section",
        "header",
        "footer",
        "details",
        "summary",
        "figure",
        "figcaption",
        "caption",
        "blockquote",
        "pre",
        "dt",
        "dd",
        "hr",
    }
    CELL = {"td", "th"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        elif tag in self.BLOCK:
            self.parts.append("\n")
        elif tag in self.CELL:
            self.parts.append(" | ")

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def visible_text(page: str) -> str:
    """An HTML page's visible text (:class:`_Text`), blank runs collapsed, one block a line."""
    parser = _Text()
    parser.feed(page)
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line and line != "|") + "\n"


# -- the GUI ----------------------------------------------------------------------------------
def _plain(text: str) -> str:
    """A label's rich text as it reads (line breaks kept, tags dropped, entities decoded)."""
    text = re.sub(r"<br\s*/?>", "\n", text)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def _widget_table(t) -> list[str]:
    """A QTableWidget's header and rows, cells joined by `` | ``."""
    heads = [t.horizontalHeaderItem(j) for j in range(t.columnCount())]
    lines = [" | ".join(h.text() if h is not None else "" for h in heads)]
    for i in range(t.rowCount()):
        v = t.verticalHeaderItem(i)
        row = [v.text()] if v is not None and v.text() else []
        row += [t.item(i, j).text() if t.item(i, j) else "" for j in range(t.columnCount())]
        lines.append(" | ".join(row))
    return lines


def _model_table(m, rows: int | None = None) -> list[str]:
    """A Qt item model's header and (the first ``rows``) rows as displayed."""
    from PySide6.QtCore import Qt

    cols = range(m.columnCount())
    lines = [" | ".join(str(m.headerData(c, Qt.Horizontal, Qt.DisplayRole)) for c in cols)]
    n = m.rowCount() if rows is None else min(rows, m.rowCount())
    for r in range(n):
        lines.append(" | ".join(str(m.data(m.index(r, c), Qt.DisplayRole)) for c in cols))
    return lines


def _settle(app, rounds: int = 20) -> None:
    import time

    for _ in range(rounds):
        app.processEvents()
        time.sleep(0.01)


#: Rows of the Items list kept (the worst first, as the list ranks them).
ITEM_ROWS = 25


def gui_views(cap: Capture) -> None:
    """The GUI's text of each run, read from the widgets offscreen (QSettings in the capture's
    folder, no background saliency)."""
    from PySide6.QtCore import QSettings

    from fairdesk.gui.items import item_saliency
    from fairdesk.gui.qapp import application

    QSettings.setDefaultFormat(QSettings.IniFormat)
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(cap.root / "settings"))
    precompute, item_saliency.PRECOMPUTE = item_saliency.PRECOMPUTE, False
    app = application()
    from fairdesk.gui.context import Context

    ctx = Context(cap.folder)
    try:
        for run in AUDIT_RUNS:
            cap.files[f"gui-results-{run}.txt"] = _results_text(ctx, app, run)
            cap.files[f"gui-items-{run}.txt"] = _items_text(ctx, app, run)
        cap.files[f"gui-incremental-{INCREMENTAL_RUN}.txt"] = _incremental_text(ctx, app)
    finally:
        ctx.close(10000)
        item_saliency.PRECOMPUTE = precompute


def _results_text(ctx, app, run: int) -> str:
    from fairdesk.gui.results.results_panel import ResultsPanel

    w = ResultsPanel(ctx)
    w.resize(1300, 900)
    try:
        ctx.select_run(run)
        _settle(app)
        w.show_result(ctx.audit_run(run))
        _settle(app)
        out = [f"header: {_plain(w.header.text())}", "", "== verdict cards"]
        for card in w.cards.cards:
            out.append(f"-- {card.title.text()}")
            out += [f"   {_plain(lab.text())}" for lab in card.labels]
            if card.plan_button is not None:
                out.append(f"   [{card.plan_button.text()}]")
            w.cards.show_reading(card.comparison, reveal=False)
            out += [f"   > {line}" for line in _plain(w.cards.reading.text()).split("\n")]
        out += ["", "== groups", *_widget_table(w.groups)]
        out += ["", "== comparisons", *_model_table(w.comparisons_model)]
        reg = w.regression
        reg.set_run(run, ctx.audit_run(run))
        for i in range(reg.history.count()):
            reg.history.setCurrentIndex(i)
            _settle(app, 2)
            out += ["", f"== regression: {reg.history.itemText(i)}", reg.status.text()]
            out += [*_widget_table(reg.table), reg.conclusions.toPlainText()]
        view = w.systems
        view.set_comparison(_comparison(ctx, run))
        if view.comparison is not None:
            out += ["", "== systems", _plain(view.head.text())]
            for k in range(view.metric_box.count()):
                view.metric_box.setCurrentIndex(k)
                _settle(app, 2)
                out += [f"-- {view.metric_box.itemText(k)}", *_widget_table(view.table)]
                out += [_plain(c.head.text()) + "\n" + c.sentence.text() for c in view.cards]
                out += [_plain(view.differences.text()), _plain(view.classical.text())]
        return "\n".join(out) + "\n"
    finally:
        w.deleteLater()


def _comparison(ctx, run: int):
    from fairdesk.jobs.system_run import stored_comparisons

    cmps = stored_comparisons(ctx.project, run)
    return cmps[-1] if cmps else None


def _items_text(ctx, app, run: int) -> str:
    from fairdesk.gui.items.item_panel import ItemPanel

    w = ItemPanel(ctx)
    try:
        w.only_failing.setChecked(False)
        w.load_run(run)
        _settle(app)
        out = [_plain(w.run_label.text()), *_model_table(w.model, ITEM_ROWS)]
        return "\n".join(out) + "\n"
    finally:
        w.deleteLater()


def _incremental_text(ctx, app) -> str:
    from fairdesk.gui.incremental.incremental_panel import IncrementalPanel

    w = IncrementalPanel(ctx)
    try:
        w.reload()
        w.select_run(INCREMENTAL_RUN)
        _settle(app)
        out = [f"run: {w.runs.currentText()}", *_widget_table(w.table), _plain(w.legend.text())]
        out += [f"stream: {w.stream.itemText(k)}" for k in range(w.stream.count())]
        return "\n".join(out) + "\n"
    finally:
        w.deleteLater()


# -- normalising ------------------------------------------------------------------------------
#: JSON keys whose values vary from one capture to the next: times, the version of fairdesk
#: and its libraries, the machine and the durations measured on it (``timings``). The
#: schema and metrics-code versions are kept: they are part of what a run says.
VARYING_KEYS = re.compile(r"(^|_)at$|^(fairdesk_version|versions|hardware|timings)$")
_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
_TEXT_RULES = (
    (
        re.compile(r"\b\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?"),
        "<TIME>",
    ),
    (re.compile(rf"\b\d{{2}}:\d{{2}} \d{{2}} ({_MONTHS})\b"), "<TIME>"),
    (re.compile(r"\bfairdesk (v(ersion)? ?)?\d+\.\d+(\.\d+)?\S*"), "fairdesk <VERSION>"),
    (re.compile(r"\b[0-9a-f]{16,64}\b"), "<HASH>"),
)


def _json_value(v, key: str = ""):
    if key and VARYING_KEYS.search(key):
        return f"<{key}>"
    if isinstance(v, dict):
        return {k: _json_value(x, str(k)) for k, x in v.items()}
    if isinstance(v, list):
        return [_json_value(x) for x in v]
    if isinstance(v, str):
        return normalise_text(v)
    return v


def normalise_text(text: str, root: Path | None = None) -> str:
    """A text with what varies replaced: the capture's folder, times, versions, hashes."""
    from fairdesk._meta import __version__

    if root is not None:
        text = text.replace(str(root), "<ROOT>")
    text = re.sub(rf"(?<![\d.]){re.escape(__version__)}(?![\d.])", "<VERSION>", text)
    for pattern, repl in _TEXT_RULES:
        text = pattern.sub(repl, text)
    return text


def normalise(name: str, text: str, root: Path) -> str:
    """A captured file as stored: JSON parsed, its varying values replaced, written with
    sorted keys (so that only values count); text normalised line by line."""
    text = text.replace(str(root), "<ROOT>")
    if name.endswith(".json"):
        value = _json_value(json.loads(text))
        return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    return normalise_text(text)


# -- capture, compare, approve ----------------------------------------------------------------
def capture(root: Path) -> dict[str, str]:
    """Build the project under ``root`` and capture every view; returns the golden files'
    text by name, normalised."""
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    here, cache = os.getcwd(), os.environ.get("FAIRDESK_CACHE")
    os.environ["FAIRDESK_CACHE"] = str(root / "cache")  # decoded audio: nothing from before
    os.chdir(root)  # relative paths: model names and widths independent of ``root``
    try:
        cap = build_project(root)
        stored_views(cap)
        gui_views(cap)
    finally:
        os.chdir(here)
        if cache is None:
            os.environ.pop("FAIRDESK_CACHE", None)
        else:
            os.environ["FAIRDESK_CACHE"] = cache
    return {name: normalise(name, text, root) for name, text in sorted(cap.files.items())}


def golden_names() -> list[str]:
    """The golden files stored beside this script."""
    return sorted(p.name for p in HERE.iterdir() if p.suffix in (".txt", ".json") and p.is_file())


def differences(got: dict[str, str]) -> list[str]:
    """What differs between ``got`` and the stored golden files (empty: identical)."""
    import difflib

    out = []
    for name in sorted(set(got) | set(golden_names())):
        path = HERE / name
        want = path.read_text(encoding="utf-8") if path.exists() else None
        if want is None:
            out.append(f"{name}: not stored (new view?)")
        elif name not in got:
            out.append(f"{name}: stored but no longer captured")
        elif want != got[name]:
            diff = difflib.unified_diff(
                want.splitlines(), got[name].splitlines(), "golden", "now", lineterm="", n=1
            )
            out.append(f"{name} differs:\n" + "\n".join(list(diff)[:60]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--approve", action="store_true", help="write the golden files")
    what.add_argument("--check", action="store_true", help="compare, write nothing")
    what.add_argument(
        "--make-incremental-fixture",
        action="store_true",
        help="write fixtures/incremental_run.json again (its timings change)",
    )
    a = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="fairdesk-golden-") as tmp:
        if a.make_incremental_fixture:
            make_incremental_fixture(Path(tmp))
            return 0
        got = capture(Path(tmp) / "capture")
    if a.check:
        diffs = differences(got)
        print("\n".join(diffs) or f"{len(got)} golden files identical")
        return 1 if diffs else 0
    for name in golden_names():
        if name not in got:
            (HERE / name).unlink()
    for name, text in got.items():
        (HERE / name).write_text(text, encoding="utf-8")
    print(f"{len(got)} golden files written to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
