"""An ELAN session of real speech (two speakers, one tier each, 40 intervals) audited with a
real model (whisper-tiny.en): each segment is transcribed alone, the item view plays the
segment it scored, and the TextGrid and EAF exports put each hypothesis inside the interval
it came from, in session times. No assertion on the model's accuracy."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from tests.session_fixture import audit_by_tier, write_elan_session

SR = 16000


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    base = tmp_path_factory.mktemp("session")
    intervals = write_elan_session(base / "corpus")
    project = Project(base / "proj")
    rep = import_dataset(project, "s", base / "corpus", tiers="Ana-tx,Ben-tx")
    assert rep.imported == 40 and rep.problems == ()
    out = audit_by_tier(project, "s", "whisper-tiny.en")
    project.close()
    return base, intervals, out


def test_each_segment_is_scored_alone_and_exported_into_its_interval(audited):
    import pympi
    from praatio import textgrid

    from fairdesk.core.store import Project
    from fairdesk.reports.elan import export_eafs
    from fairdesk.reports.praat import export_textgrids

    base, intervals, out = audited
    f = out.frame
    assert len(f) == 40 and not out.failures  # every segment transcribed
    spans = sorted(zip(f["start_s"], f["end_s"], strict=True))
    assert np.ravel(spans) == pytest.approx(np.ravel([(iv.start, iv.end) for iv in intervals]))
    by_id = f.set_index("id")
    project = Project(base / "proj")
    try:
        tgs = export_textgrids(project, out.run_id, base / "tg", aligner="even", copy_audio=True)
        eafs = export_eafs(project, out.run_id, base / "eaf", aligner="even")
    finally:
        project.close()
    assert len(tgs) == len(eafs) == 40
    # one copy of the session for its 40 segments, none per item
    copied = sorted(p.relative_to(base / "tg") for p in (base / "tg").rglob("*.wav"))
    assert [str(p) for p in copied] == ["sessions/session1.wav"]
    for it in tgs:
        row = by_id.loc[it.item]
        start, end = float(row["start_s"]), float(row["end_s"])
        tg = textgrid.openTextgrid(
            str(base / "tg" / it.file(".TextGrid")), includeEmptyIntervals=False
        )
        assert (tg.minTimestamp, tg.maxTimestamp) == pytest.approx((start, end), abs=2e-4)
        hyp = tg.getTier("hypothesis").entries
        assert all(start - 1e-4 <= e.start < e.end <= end + 1e-4 for e in hyp), it.item
        words = " ".join(e.label for e in hyp).split()
        assert words == str(row["hypothesis"] or "").split(), it.item
        ref = tg.getTier("reference").entries
        assert " ".join(e.label for e in ref).split() == str(row["reference"]).split()
        eaf = pympi.Elan.Eaf(str(base / "eaf" / it.file(".eaf")))
        got = eaf.get_annotation_data_for_tier("hypothesis")
        assert all(round(start * 1000) - 1 <= a < b <= round(end * 1000) + 1 for a, b, *_ in got), (
            it.item
        )
        assert " ".join(x[2] for x in sorted(got)).split() == words


def test_the_item_view_plays_the_scored_segment(qtbot, audited):
    from fairdesk.gui.context import Context
    from tests.gui.item_view import open_item_view

    base, _intervals, out = audited
    whole, sr = sf.read(str(base / "corpus" / "session1.wav"), dtype="float32")
    assert sr == SR
    ctx = Context(base / "proj")
    try:
        w, sink = open_item_view(qtbot, ctx, out.run_id, timeout=20000)
        for _ in range(3):  # the first items, one after another
            row = w._row
            start, end = float(row["start_s"]), float(row["end_s"])
            assert w.player.span == pytest.approx((start, end))
            seg = whole[int(round(start * SR)) : int(round(end * SR))]
            np.testing.assert_array_equal(w.player.samples, seg)
            w.player.play()
            np.testing.assert_array_equal(sink.played[-1], seg)
            with qtbot.waitSignal(w.player.ready, timeout=20000):
                w.next_item()
    finally:
        ctx.close(10000)


def test_the_report_embeds_each_worst_segment_alone(audited):
    import base64
    import io

    from fairdesk.core.store import Project
    from fairdesk.reports.data import load_run
    from fairdesk.reports.html import report_context

    base, _intervals, out = audited
    by_id = out.frame.set_index("id")
    project = Project(base / "proj")
    try:
        ctx = report_context(load_run(project, out.run_id), embed_audio=True, worst=2)
    finally:
        project.close()
    entries = [e for g in ctx["worst"] for e in g["items"]]
    assert entries and ctx["audio_skipped"] == []
    for e in entries:
        head, _, data = e["audio"].partition(",")
        assert head.startswith("data:audio/ogg")
        clip, sr = sf.read(io.BytesIO(base64.b64decode(data)))
        row = by_id.loc[e["id"]]
        # the segment (Opus adds a few ms of pre-skip rounding), not the 171-s session
        assert len(clip) / sr == pytest.approx(row["end_s"] - row["start_s"], abs=0.03)


def test_a_corrected_segment_textgrid_comes_back_as_its_items_annotation(audited, tmp_path):
    from praatio import textgrid

    from fairdesk.core.store import Project
    from fairdesk.reports.praat import export_textgrids, import_textgrids

    base, _intervals, out = audited
    project = Project(base / "proj")
    try:
        its = export_textgrids(project, out.run_id, tmp_path / "tg", aligner="even")
        it = its[5]
        path = tmp_path / "tg" / it.file(".TextGrid")
        tg = textgrid.openTextgrid(str(path), includeEmptyIntervals=False)
        ref = tg.getTier("reference")
        first = ref.entries[0]
        edited = ref.new(entries=[(first.start, first.end, "corrected")] + list(ref.entries[1:]))
        tg.replaceTier("reference", edited)
        tg.save(str(path), format="long_textgrid", includeBlankSpaces=True)
        rep = import_textgrids(project, "s", tmp_path / "tg", "reference")
        assert rep.problems == [] and [x[1] for x in rep.imported] == [it.item]
        items = project.items(project.dataset("s")).set_index("id")
        db_id = int(items.loc[it.item, "db_id"])
        want = " ".join(["corrected"] + [e.label for e in ref.entries[1:]])
        assert project.latest_transcripts([db_id])[db_id] == want
    finally:
        project.close()
