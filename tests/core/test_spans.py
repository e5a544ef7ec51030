"""Items that are spans of a file: reading only the span, the span's hash, the store's
migration, and Kaldi ``segments``."""

import sqlite3

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core import audio, schema, spans
from fairdesk.core.errors import AudioError
from fairdesk.core.importers import import_dataset
from fairdesk.core.store import Project


@pytest.fixture
def session(tmp_path):
    """A 6 s stereo session at 44.1 kHz of random samples (no two spans alike)."""
    x = np.random.default_rng(7).uniform(-0.5, 0.5, (44100 * 6, 2)).astype(np.float32)
    path = tmp_path / "session.flac"
    sf.write(str(path), x, 44100, subtype="PCM_24")
    return path


@pytest.mark.parametrize("start,end", [(0.0, 0.5), (1.23, 2.0), (5.5, 6.0), (2.00001, 4.7)])
def test_a_span_reads_exactly_its_samples(session, start, end):
    whole, sr = sf.read(str(session), dtype="float32", always_2d=True)
    want = whole[int(round(start * sr)) : int(round(end * sr))]
    got, got_sr, dur = spans.read_span(session, start, end)
    assert got_sr == sr and dur == 6.0
    assert np.array_equal(got, want)
    a = spans.load(session, start_s=start, end_s=end)
    assert a.info.frames == want.shape[0] and a.info.channels == 2
    assert a.samples.shape[0] == pytest.approx(want.shape[0] * 16000 / 44100, abs=1)


def test_spans_outside_the_file_or_empty_are_refused(session):
    with pytest.raises(AudioError, match=r"starts after the end of the file \(6.000 s\)"):
        spans.read_span(session, 6.5, 7.0)
    with pytest.raises(AudioError, match=r"ends after the end of the file \(6.000 s\)"):
        spans.read_span(session, 5.0, 6.5)
    with pytest.raises(AudioError, match="empty or negative"):
        spans.read_span(session, 2.0, 2.0)
    got, sr, _ = spans.read_span(session, 5.9, 6.01)  # within the tolerance: cut at the end
    assert got.shape[0] == 44100 * 6 - int(round(5.9 * sr))


def test_two_segments_of_one_file_have_different_hashes(session):
    a = spans.probe_span(session, 0.0, 1.0).content_hash
    b = spans.probe_span(session, 1.0, 2.0).content_hash
    assert a != b
    assert spans.probe_span(session, 0.0, 1.0).content_hash == a
    assert a != audio.probe(session).content_hash


def test_a_schema_6_project_migrates_and_its_items_are_whole_files(tmp_path, wav_factory):
    folder = tmp_path / "old"
    folder.mkdir()
    conn = sqlite3.connect(folder / schema.DB_NAME)
    for script in schema.MIGRATIONS[:6]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version=6")
    wav_factory("data/a.wav", seconds=0.3)
    conn.execute(
        "INSERT INTO datasets(id, name, root, format, created_at) VALUES (1, 'd', ?, 'manifest', 0)",
        (str(tmp_path / "data"),),
    )
    conn.execute(
        "INSERT INTO items(dataset_id, item_key, path, audio_hash, duration, sample_rate, "
        "channels, text, content_id) VALUES (1, 'a', 'a.wav', 'h', 0.3, 16000, 1, 'hi', 'c')"
    )
    conn.commit()
    conn.close()
    p = Project(folder)
    assert p.schema_version == schema.SCHEMA_VERSION == 9
    items = p.items(p.dataset("d"))
    assert list(items["id"]) == ["a"] and "start_s" not in items.columns
    assert p.conn.execute("SELECT COUNT(*) FROM item_spans").fetchone()[0] == 0


def _write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_kaldi_segments_import_spans_of_recordings(tmp_path, session):
    d = tmp_path / "data"
    (d / "wav").mkdir(parents=True)
    session.rename(d / "wav" / "rec1.flac")
    _write(d / "wav.scp", ["rec1 wav/rec1.flac"])
    _write(
        d / "segments",
        [
            "u1 rec1 0.50 1.75",
            "u2 rec1 2.00 3.10",
            "u3 rec1 5.00 -1",
            "u4 rec1 5.50 9.00",
            "u5 nope 0 1",
            "u6 rec1 3 2",
        ],
    )
    _write(d / "text", [f"u{i} words {i}" for i in range(1, 7)])
    _write(d / "utt2spk", ["u1 A", "u2 B", "u3 A", "u4 B", "u5 A", "u6 A"])
    p = Project(tmp_path / "proj")
    rep = import_dataset(p, "k", d)
    assert rep.format == "kaldi" and rep.imported == 3
    got = {(pr.source.rsplit("/", 1)[-1], pr.row): pr.reason for pr in rep.problems}
    assert got[("segments", 5)] == (
        "u5: recording 'nope' is not in wav.scp; add it there or remove the line"
    )
    assert "u6: the span 3–2 s is empty or negative" in got[("segments", 6)]
    # each refused segments line once, and a span past the end on its segments line (both
    # were filed under text as well)
    assert sorted(got) == [("segments", 4), ("segments", 5), ("segments", 6)]
    assert got[("segments", 4)].endswith(
        "the span 5.5–9 s ends after the end of the file (6.000 s); fix the interval's "
        "times or the file it points at"
    )
    items = p.items(p.dataset("k")).set_index("id")
    assert list(items.index) == ["u1", "u2", "u3"]
    assert list(items["speaker_id"]) == ["A", "B", "A"]
    assert list(zip(items["start_s"], items["end_s"])) == [(0.5, 1.75), (2.0, 3.1), (5.0, 6.0)]
    assert list(items["duration"]) == pytest.approx([1.25, 1.1, 1.0])
    assert set(items["recording"]) == {"rec1"} and items["audio_hash"].nunique() == 3
    assert import_dataset(p, "k", d).unchanged == 3
    _write(d / "segments", ["u1 rec1 0.60 1.75", "u2 rec1 2.00 3.10", "u3 rec1 5.00 -1"])
    again = import_dataset(p, "k", d)
    assert (again.updated, again.unchanged) == (1, 2)
    assert p.items(p.dataset("k")).set_index("id").loc["u1", "start_s"] == 0.6


def test_the_tier_exports_of_a_segment_are_in_session_times(tmp_path):
    import pympi
    from praatio import textgrid

    from fairdesk.reports.elan import write_eaf
    from fairdesk.reports.praat import write_textgrid
    from fairdesk.reports.tiers import TIERS, ItemTiers

    tiers = {name: [(0.1, 0.6, "hello"), (0.7, 1.1, "there")] for name in TIERS[:2]}
    it = ItemTiers("s_A_0012500", None, "s", None, 1.2, tiers, offset=12.5)
    tg = textgrid.openTextgrid(
        str(write_textgrid(it, tmp_path / "a.TextGrid")), includeEmptyIntervals=False
    )
    assert (tg.minTimestamp, tg.maxTimestamp) == pytest.approx((12.5, 13.7))
    got = [(e.start, e.end, e.label) for e in tg.getTier(TIERS[0]).entries]
    assert got == [(12.6, 13.1, "hello"), (13.2, 13.6, "there")]
    eaf = pympi.Elan.Eaf(str(write_eaf(it, tmp_path / "a.eaf")))
    assert sorted(eaf.get_annotation_data_for_tier(TIERS[1])) == [
        (12600, 13100, "hello"),
        (13200, 13600, "there"),
    ]
