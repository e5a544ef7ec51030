"""Issue 45: the journeys a user makes, clicked on the real main window (buttons, keys, menu
actions; never a slot), on the GUI conftest's small project with two prediction sets, at
1366×768 and 1024×700.

Every journey fails on an exception reaching the event loop (pytest-qt's default), on a job's
error signal it did not expect, and on a status-bar message saying something "failed"."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QLabel

from tests.gui.conftest import ACCENTS, SENTENCES, SPEAKERS, second_predictions

SIZES = [(1366, 768), (1024, 700)]


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def size(request) -> tuple[int, int]:
    return request.param


@pytest.fixture
def preds_b(mini, tmp_path):
    """The second system's predictions of the mini items (a file of its own)."""
    folder = tmp_path / "second"
    folder.mkdir()
    shutil.copy(mini.data / "manifest.csv", folder / "manifest.csv")
    return second_predictions(folder)


class Watch:
    """What must not happen in a journey: a job's error signal (unless expected) and a
    status-bar message with "failed"."""

    def __init__(self):
        self.errors: list[tuple[str, str, object]] = []
        self.messages: list[str] = []

    def expected_refusals(self) -> list:
        from fairdesk.stats.minimums import MinimumsRefused

        return [e for e in self.errors if isinstance(e[2], MinimumsRefused)]

    def check(self, refusals: int = 0) -> None:
        assert len(self.expected_refusals()) == refusals, self.errors
        others = [e for e in self.errors if e not in self.expected_refusals()]
        assert not others, f"a job failed: {others}"
        bad = [m for m in self.messages if "failed" in m.lower()]
        assert not bad, f"the status bar said: {bad}"


@pytest.fixture
def watch(monkeypatch) -> Watch:
    from fairdesk.gui.jobs import JobRegistry

    w = Watch()
    submit = JobRegistry.submit

    def watched(self, job, channel=None):
        job.signals.error.connect(lambda m, j=job: w.errors.append((j.name, m, j.exception)))
        return submit(self, job, channel)

    monkeypatch.setattr(JobRegistry, "submit", watched)
    return w


def _open(qtbot, folder, settings, size, watch, **kw):
    from fairdesk.gui.main_window import MainWindow

    win = MainWindow(folder, settings=settings, **kw)
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    win.activateWindow()  # its shortcuts (F1) fire in the active window
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)
    win.statusBar().messageChanged.connect(lambda m: m and watch.messages.append(m))
    qtbot.waitExposed(win)
    return win


def _settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "journey.ini"), QSettings.IniFormat)


def _menu_action(win, menu: str, text: str):
    """The action ``text`` of the menu bar's ``menu`` (its '&' ignored)."""
    for top in win.menuBar().actions():
        if top.text().replace("&", "") == menu:
            for a in top.menu().actions():
                if a.text() == text:
                    return a
    raise AssertionError(f"no {menu} ▸ {text}")


def _tab(qtbot, win, key: int, name: str):
    """Show a tab with its View menu entry (Ctrl+digit); returns its panel."""
    from fairdesk.gui.main_window import TABS

    action = _menu_action(win, "View", name.capitalize())
    assert action.shortcut().toString() == f"Ctrl+{key}"
    action.trigger()
    assert TABS[win.tabs.currentIndex()] == name
    return win.current_panel()


def _choose(combo, data) -> None:
    """Pick the entry holding ``data`` as a user does (the index changes, then activated)."""
    i = combo.findData(data)
    assert i >= 0, (data, [combo.itemData(k) for k in range(combo.count())])
    combo.setCurrentIndex(i)
    combo.activated.emit(i)


def _pick_file(monkeypatch, path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))


def _audit_form(qtbot, monkeypatch, win, mini, *, compare=None, dialog=True):
    """The Audit tab with the first system's predictions (chosen in the file dialog) and,
    when ``compare`` is given, a second one (chosen in Compare with's file dialog, or with
    ``dialog=False`` set in the form as a remembered choice is)."""
    audit = _predictions_form(qtbot, monkeypatch, win, mini.predictions, min_items=5)
    assert audit.model.currentData() == f"predictions:{mini.predictions}"
    # the model chosen is never offered as the second system
    ids = [audit.compare.itemData(i) for i in range(audit.compare.count())]
    assert audit.model.currentData() not in ids
    if compare is not None and not dialog:
        audit.set_compare(f"predictions:{compare}")
    elif compare is not None:
        _pick_file(monkeypatch, compare)
        _choose(audit.compare, "predictions:<file>")
        assert audit.compare.currentData() == f"predictions:{compare}"
    return audit


def _predictions_form(qtbot, monkeypatch, win, predictions, *, min_items: int):
    """The Audit tab with the predictions file chosen in the model's file dialog, grouped
    by accent, 200 resamples, ``min_items`` items and 2 speakers per group at the least."""
    audit = _tab(qtbot, win, 2, "audit")
    _pick_file(monkeypatch, predictions)
    _choose(audit.model, "predictions:<file>")
    audit.by1.setCurrentText("accent")
    audit.n_boot.setValue(200)
    audit.min_items.setValue(min_items)
    audit.min_speakers.setValue(2)
    return audit


def _run(qtbot, win, audit, *, refused=False):
    """Click Run audit and wait for it: the Results tab shows the run, or the refusal."""
    if refused:
        qtbot.mouseClick(audit.run_btn, Qt.LeftButton)
        qtbot.waitUntil(lambda: audit.job is None, timeout=60000)
        return None
    with qtbot.waitSignal(audit.run_done, timeout=90000) as done:
        qtbot.mouseClick(audit.run_btn, Qt.LeftButton)
    qtbot.waitUntil(lambda: win.results.run_id == done.args[0], timeout=10000)
    qtbot.waitUntil(win.results.isVisible, timeout=5000)  # shown (queued) with its tab
    return done.args[0]


def _refusal_shown(audit):
    view = audit.refusal
    assert view.isVisibleTo(audit)
    t = view.table
    rows = {t.item(i, 0).text(): int(t.item(i, 1).text()) for i in range(t.rowCount())}
    assert set(rows) == set(ACCENTS)
    assert "Audit failed" not in audit.stage.text()
    return rows


def _visible_in(widget, scroll) -> bool:
    """Whether ``widget`` lies inside the viewport of ``scroll`` (not scrolled out)."""
    vp = scroll.viewport()
    top_left = widget.mapTo(vp, widget.rect().topLeft())
    return (
        widget.isVisible()
        and top_left.y() >= -1
        and top_left.y() + widget.height() <= vp.height() + 1
    )


# -- journeys -------------------------------------------------------------------------------
def test_audit_one_system_accepted_then_refused(qtbot, mini, tmp_path, size, watch, monkeypatch):
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    audit = _audit_form(qtbot, monkeypatch, win, mini)
    rid = _run(qtbot, win, audit)
    assert win.tabs.currentWidget() is win._lazy["results"]
    assert win.results.result is not None and win.results.run_id == rid
    audit = _tab(qtbot, win, 2, "audit")
    audit.sample.setValue(3)  # 3 per group, under the minimum of 5 items
    _run(qtbot, win, audit, refused=True)
    assert _refusal_shown(audit) == {a: 3 for a in ACCENTS}
    win.close()
    watch.check(refusals=1)


def test_audit_two_systems_accepted_then_refused(
    qtbot, mini, preds_b, tmp_path, size, watch, monkeypatch
):
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    audit = _audit_form(qtbot, monkeypatch, win, mini, compare=preds_b)
    _run(qtbot, win, audit)
    results = win.results
    results.show_subtab("systems")  # the tab bar's own click is tested below
    assert results.systems.isVisible()
    # refused: the same two systems on a sample under the minimums shows the table
    audit = _tab(qtbot, win, 2, "audit")
    audit.sample.setValue(3)
    _run(qtbot, win, audit, refused=True)
    assert _refusal_shown(audit) == {a: 3 for a in ACCENTS}
    assert any("refused" in line for line in audit.log.toPlainText().splitlines())
    win.close()
    watch.check(refusals=1)


def test_a_refused_two_system_audit_shows_the_refusal_table(
    qtbot, mini, preds_b, tmp_path, size, watch, monkeypatch
):
    """Item 2 alone: the second system set in the form (as a restored project does), the
    sample under the minimums, Run audit clicked: the table, not an AttributeError."""
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    audit = _audit_form(qtbot, monkeypatch, win, mini)
    audit.set_compare(f"predictions:{preds_b}")
    audit.sample.setValue(3)
    _run(qtbot, win, audit, refused=True)
    assert _refusal_shown(audit) == {a: 3 for a in ACCENTS}
    win.close()
    watch.check(refusals=1)


def test_reading_cards_tables_radar_confusion_and_systems(
    qtbot, mini, preds_b, tmp_path, size, watch, monkeypatch
):
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    audit = _audit_form(qtbot, monkeypatch, win, mini, compare=preds_b, dialog=False)
    audit.sample.setValue(SPEAKERS * len(SENTENCES))  # a sampled run (every item, drawn)
    _run(qtbot, win, audit)
    res = win.results
    qtbot.wait(50)
    cards = res.cards
    assert cards.cards
    # each card names its group (and metric): the grid's group row may scroll out of view
    for card in cards.cards:
        assert card.comparison.group in card.title.text() or card.title.text().startswith(
            card.comparison.group.split("=")[-1]
        )
    assert cards.scroll.verticalScrollBar().value() == 0 or all(
        card.title.isVisible() for card in cards.cards
    )
    # switching runs: the new run's cards start at the top, each with its group
    runs = res.runs
    assert runs.count() >= 2
    other = 1 if runs.currentIndex() == 0 else 0
    with qtbot.waitSignal(res.loaded, timeout=10000, raising=False):
        runs.setCurrentIndex(other)
        runs.activated.emit(other)
    qtbot.wait(100)

    # some card's name (group · metric) is in view, and the selected card is named
    def named():
        return [c for c in res.cards.cards if _visible_in(c.title, res.cards.scroll)]

    # the new run's cards open at their top (the reading names its card), every card named
    qtbot.waitUntil(lambda: bool(named()), timeout=5000)
    assert res.cards.scroll.verticalScrollBar().value() == 0
    assert all(c.title.text() for c in named())
    # the Comparisons table: both sides' counts, and the sample of a sampled run
    with qtbot.waitSignal(res.loaded, timeout=10000, raising=False):
        runs.setCurrentIndex(other)
        runs.activated.emit(1 - other)
    frame = res.comparisons_model.frame
    run = res.result
    groups = {g.group: g for g in run.groups}
    for _, row in frame.iterrows():
        ref = groups[row["reference"]]
        assert row["reference_n_items"] == ref.n_items
        assert row["reference_n_speakers"] == ref.n_speakers
    per_group = run.run_settings.sample_per_group
    if per_group:
        assert set(frame["sample"]) == {f"sample of {per_group} per group"}
    # every sub-tab through its shortcut: the cards never jump away
    heights = set()
    for _ in range(res.tabs.count()):
        qtbot.keyClick(res.tabs, Qt.Key_PageDown, Qt.ControlModifier)
        qtbot.wait(20)
        heights.add(res.split.sizes()[0])
        name = res.tabs.tabText(res.tabs.currentIndex())
        if name == "Systems":
            assert res.systems.isVisible() and res.cards.isVisible()
        if name == "Confusion":
            conf = res.confusion
            if conf.kind.count() == 0:  # the mini runs have no intents: a message, no combos
                assert conf.empty.isVisible() and not conf.kind.isVisible()
                assert not res.chart_export.isEnabled()
        if name == "Radar":
            assert res.radar.caption.text()
            assert res.chart_export.isEnabled() == bool(
                res.radar.scale and res.radar.scale.drawable
            )
    assert min(heights) > 0, "a sub-tab folded the cards away"
    win.close()
    watch.check()


def test_an_annotated_run_is_named_apart(qtbot, mini, tmp_path, size, watch, monkeypatch):
    from fairdesk.core.store import Project

    p = Project(mini.folder)
    ds = p.dataset("mini")
    first = int(p.items(ds)["db_id"].iloc[0])
    p.add_annotation(first, "transcript", {"text": "play bohemian rhapsody by queen please"})
    p.close()
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    audit = _audit_form(qtbot, monkeypatch, win, mini)
    rid = _run(qtbot, win, audit)
    res = win.results
    labels = {res.runs.itemData(i): res.runs.itemText(i) for i in range(res.runs.count())}
    assert "1 item with an annotated reference" in labels[rid]
    assert "annotated" not in labels[mini.run_id]
    assert "1 item with an annotated reference" in res.header.text()
    history = audit.history  # the Audit tab's runs list
    texts = [
        history.item(r, c).text()
        for r in range(history.rowCount())
        for c in range(history.columnCount())
        if history.item(r, c) is not None
    ]
    assert any("1 item with an annotated reference" in t for t in texts)
    win.close()
    watch.check()


def test_reopening_restores_the_audit_choices_and_the_item(
    qtbot, mini, preds_b, tmp_path, size, watch, monkeypatch
):
    settings = _settings(tmp_path)
    win = _open(qtbot, mini.folder, settings, size, watch)
    audit = _audit_form(qtbot, monkeypatch, win, mini, compare=preds_b, dialog=False)
    audit.reference.setCurrentIndex(audit.reference.findData("south"))
    items = _tab(qtbot, win, 4, "items")
    qtbot.waitUntil(lambda: items.model.rowCount() > 3, timeout=10000)
    items.table.setFocus()
    qtbot.keyClick(items.table, Qt.Key_Down)
    qtbot.keyClick(items.table, Qt.Key_Down)
    qtbot.waitUntil(lambda: items.report is not None, timeout=10000)
    chosen = items.report["id"]  # the item shown (the third of the list)
    assert items.table.currentIndex().row() == 2
    win.close()

    again = _open(qtbot, None, settings, size, watch)
    assert again.ctx.folder == mini.folder
    a2 = _tab(qtbot, again, 2, "audit")
    assert a2.compare.currentData() == f"predictions:{preds_b}"
    assert a2.reference.currentData() == "south"
    assert a2.dataset.currentText() == "mini"
    i2 = _tab(qtbot, again, 4, "items")
    qtbot.waitUntil(lambda: i2.report is not None, timeout=10000)
    assert i2.report["id"] == chosen
    again.close()
    watch.check()


def test_the_audit_dataset_defaults_to_the_one_last_audited(qtbot, mini, tmp_path, size, watch):
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    p = Project(mini.folder)
    import_dataset(p, "aaa-demo", mini.data / "manifest.csv", fmt="manifest")
    p.close()
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    audit = _tab(qtbot, win, 2, "audit")
    assert audit.dataset.findText("aaa-demo") == 0  # listed first
    assert audit.dataset.currentText() == "mini"  # but the one audited is chosen
    win.close()
    watch.check()


def test_record_from_a_file_accept_and_next(qtbot, mini, tmp_path, size, watch, monkeypatch):
    import soundfile as sf

    sr = 16000
    t = np.arange(int(1.2 * sr)) / sr
    x = np.zeros_like(t)
    x[int(0.4 * sr) :] = 0.4 * np.sin(2 * np.pi * 220 * t[int(0.4 * sr) :])  # silence first
    wav = tmp_path / "voice.wav"
    sf.write(str(wav), x.astype(np.float32), sr)
    lst = tmp_path / "prompts.txt"
    lst.write_text("one two\nthree four\nfive six\n", encoding="utf-8")
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    _pick_file(monkeypatch, wav)
    _menu_action(win, "File", "Record from an audio file…").trigger()
    rp = win.current_panel()
    assert rp is win.record and rp.devices.input_choice() == "file" and rp.can_record
    _pick_file(monkeypatch, lst)
    qtbot.mouseClick(rp.open_btn, Qt.LeftButton)
    assert rp.prompt_list is not None and len(rp.prompt_list) == 3
    rp.speaker_id.setText("spk01")
    with qtbot.waitSignal(rp.take_recorded, timeout=20000):
        qtbot.mouseClick(rp.record_btn, Qt.LeftButton)
    # the digital silence at the start is drawn as a flat line, not left blank
    lo, hi = rp._live_lo.yData, rp._live_hi.yData
    assert lo is not None and len(lo) > 0 and np.all(np.isfinite(hi))
    xs = rp._live_hi.xData
    assert xs[0] < 0.2
    assert "1 take recorded" in rp.message.text() or "take 1 recorded" in rp.message.text()
    qtbot.waitUntil(lambda: rp.accept_btn.isEnabled(), timeout=10000)
    with qtbot.waitSignal(rp.take_accepted, timeout=10000):
        qtbot.mouseClick(rp.accept_btn, Qt.LeftButton)
    qtbot.mouseClick(rp.next_btn, Qt.LeftButton)
    qtbot.wait(300)  # anything queued for the previous take arrives now
    assert rp.index == 1 and rp.takes.count() == 0
    assert rp._live_hi.yData is None or len(rp._live_hi.yData) == 0
    assert rp.player.samples is None
    assert "prompt 2: no take yet" in rp.message.text()
    qtbot.mouseClick(rp.prev_btn, Qt.LeftButton)
    assert "prompt 1: 1 take recorded" in rp.message.text()
    assert "(s)" not in rp.message.text()
    # the take's waveform: its digital silence is a flat line at zero, not a gap
    qtbot.waitUntil(lambda: rp.player.duration > 0, timeout=10000)
    base = rp.player._base
    assert list(base.yData) == [0.0, 0.0]
    assert base.xData[0] <= 0.0 and base.xData[-1] >= rp.player.duration - 0.05
    # the wheel over a plot scrolls the page, it never zooms the plot
    from PySide6.QtWidgets import QScrollArea

    for plot in (rp.live, rp.player.wave, rp.player.spec):
        area = plot.parentWidget()
        while not isinstance(area, QScrollArea):
            area = area.parentWidget()
        bar = area.verticalScrollBar()
        bar.setValue(bar.maximum())  # at the bottom: a notch up scrolls when it can
        top = bar.value()
        before = plot.getPlotItem().getViewBox().viewRange()
        _wheel(plot.viewport())
        qtbot.wait(20)
        after = plot.getPlotItem().getViewBox().viewRange()
        assert after[0] == pytest.approx(before[0]) and after[1] == pytest.approx(before[1])
        assert bar.value() < top  # the page moved (it scrolls at both sizes)
    rp.shutdown()
    win.close()
    watch.check()


def _wheel(widget) -> None:
    """One notch of the mouse wheel over the middle of ``widget``."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    pos = QPointF(widget.width() / 2, widget.height() / 2)
    ev = QWheelEvent(
        pos,
        widget.mapToGlobal(pos),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.NoButton,
        Qt.NoModifier,
        Qt.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, ev)


def test_no_device_text_names_what_exists():
    from fairdesk.gui.record.record_input import no_input_advice
    from fairdesk.recording.devices import NO_DEVICE_HELP

    listed = f"No audio input device found. {NO_DEVICE_HELP}"
    for text in (
        no_input_advice("No input device was found."),
        NO_DEVICE_HELP,
        no_input_advice(listed),
    ):
        assert "Input ▸" not in text and "Audio ▸ File" not in text
        assert "File ▸ Record from an audio file…" in text
        assert "File… button beside Input" in text and "Audio box" in text
        assert text.lower().count("record from a file") == 1, text


def test_without_a_device_the_record_tab_names_controls_that_exist(
    qtbot, mini, tmp_path, size, watch, monkeypatch
):
    """No input device: the Record tab says how to record from a file, naming a button and a
    menu entry that are there; the button it names makes recording possible."""
    import soundfile as sf
    from PySide6.QtWidgets import QGroupBox, QLabel

    from fairdesk.recording.devices import NO_DEVICE_HELP

    monkeypatch.setattr(
        "fairdesk.gui.audio.devices.query_devices",
        lambda rescan=False: ([], f"No audio input device found. {NO_DEVICE_HELP}"),
    )
    sr = 16000
    wav = tmp_path / "voice.wav"
    sf.write(str(wav), (0.3 * np.sin(2 * np.pi * 220 * np.arange(sr) / sr)).astype(np.float32), sr)
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    rp = _tab(qtbot, win, 5, "record")
    qtbot.waitUntil(rp.isVisible, timeout=3000)
    rp.speaker_id.setText("spk01")
    advice = rp.no_input.text()
    assert advice.count("record from a file") == 1, advice  # said once
    assert rp.no_input.isVisible() and not rp.record_btn.isEnabled()
    assert (
        advice
        == rp.record_btn.toolTip() + " Takes already recorded can still be played and annotated."
    )
    # what it names: the File… button beside the Input label in the Audio box, and the menu
    assert "the File… button beside Input in the Audio box" in advice
    box = rp.devices
    while not isinstance(box, QGroupBox):
        box = box.parentWidget()
    assert box.title() == "Audio" and box.isVisible()
    assert rp.devices.file_btn.text() == "File…" and rp.devices.file_btn.isVisible()
    assert any(lab.text() == "Input" for lab in rp.devices.findChildren(QLabel))
    assert "File ▸ Record from an audio file…" in advice
    assert _menu_action(win, "File", "Record from an audio file…").isEnabled()
    # the button it names: the take can be recorded from the file
    _pick_file(monkeypatch, wav)
    qtbot.mouseClick(rp.devices.file_btn, Qt.LeftButton)
    assert rp.devices.input_choice() == "file" and rp.can_record
    assert rp.record_btn.isEnabled() and not rp.no_input.isVisible()
    rp.shutdown()
    win.close()
    watch.check()


def test_the_shortcuts_dialog_from_the_help_menu(qtbot, mini, tmp_path, size, watch):
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    qtbot.keyClick(win, Qt.Key_F1)
    qtbot.waitUntil(lambda: _dialog(win) is not None, timeout=3000)
    dlg = _dialog(win)
    t = dlg.table
    texts = [t.item(r, 1).text() for r in range(t.rowCount())]
    for line in (x for text in texts for x in text.split("\n")):
        head, _, rest = line.partition(": ")
        assert not rest.startswith(f"{head}:"), line  # "Audit: Audit: run the audit"
        assert f"{head}: {head}:" not in line
    assert any(line.startswith("Audit: ") for text in texts for line in text.split("\n"))
    dlg.close()
    win.close()
    watch.check()


def _dialog(win):
    from fairdesk.gui.shortcuts_dialog import ShortcutsDialog

    found = [d for d in win.findChildren(ShortcutsDialog) if d.isVisible()]
    return found[0] if found else None


def test_the_incremental_tab_without_a_run_says_so(qtbot, mini, tmp_path, size, watch):
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    inc = _tab(qtbot, win, 6, "incremental")
    qtbot.wait(50)
    assert not inc.view.isVisible()
    assert inc.no_timeline.isVisible() and "No timeline" in inc.no_timeline.text()
    assert not [lab for lab in inc.findChildren(QLabel) if "x0.001" in lab.text()]
    win.close()
    watch.check()


def test_switching_runs_opens_the_cards_at_the_top_each_named(qtbot, mini, tmp_path, size, watch):
    """Issue 45, item 4: the user scrolls the cards down and clicks the last card, then picks
    another run in the run picker with the keyboard: the new run's cards start at the top
    (no header row to scroll back to) and every card names its group and metric."""
    from fairdesk.presentation import metric_short, short_group
    from tests.gui.conftest import audit_three_groups

    second = audit_three_groups(mini)  # a second run: accent × gender, three groups compared
    win = _open(qtbot, mini.folder, _settings(tmp_path), size, watch)
    res = _tab(qtbot, win, 3, "results")
    qtbot.waitUntil(lambda: bool(res.cards.cards), timeout=10000)
    qtbot.wait(50)
    for _ in range(2):  # there and back: each run's cards open at the top
        shown = res.run_id
        cards = res.cards
        bar = cards.scroll.verticalScrollBar()
        bar.setValue(bar.maximum())  # the user scrolled down ...
        last = cards.cards[-1]
        qtbot.mouseClick(last, Qt.LeftButton)  # ... and read the last card
        assert cards.selected is last.comparison
        # another run, picked in the run picker with the keyboard
        picker = res.runs
        picker.setFocus()
        key = Qt.Key_Down if picker.currentIndex() < picker.count() - 1 else Qt.Key_Up
        with qtbot.waitSignal(res.loaded, timeout=10000):
            qtbot.keyClick(picker, key)
        assert res.run_id != shown and res.run_id in (mini.run_id, second)
        qtbot.wait(100)  # the cards laid out (and the split fitted) after the event loop
        assert bar.value() == 0 and cards.scroll.horizontalScrollBar().value() == 0
        assert cards.cards
        vp = cards.scroll.viewport()
        for card in cards.cards:
            c = card.comparison
            assert card.title.text() == f"{short_group(c.group)} · {metric_short(c.metric)}"
            assert card.title.isVisible()
        # the first row in sight from its top, its titles whole
        first = [k for k in cards.cards if k.comparison.metric == cards.cards[0].comparison.metric]
        for card in first:
            y = card.title.mapTo(vp, card.title.rect().topLeft()).y()
            assert 0 <= y and y + card.title.height() <= vp.height(), (y, vp.height())
            fm = card.title.fontMetrics()
            assert fm.horizontalAdvance(card.title.text()) <= card.title.width()
    groups = {short_group(k.comparison.group) for k in res.cards.cards}
    assert groups  # the last run shown names its groups on its cards
    win.close()
    watch.check()
