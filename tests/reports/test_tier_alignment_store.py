"""The forced alignments of the tier exports are stored in the project: the next export
(TextGrid then EAF) aligns nothing, a changed transcript or audio re-aligns that item only,
a cancelled export leaves no file, and progress counts every item."""

from __future__ import annotations

import itertools

import pytest

from fairdesk.cli import main
from fairdesk.core.progress import Cancelled
from fairdesk.reports.tiers import SOURCE_CACHED

_keys = itertools.count()


class CountingAligner:
    """A stand-in forced aligner: the words evenly over the audio it is given, counting the
    texts it aligned. Each instance made with a new ``key`` has a cache of its own."""

    def __init__(self, key: str | None = None):
        self.key = key or f"counting-{next(_keys)}"
        self.texts: list[str] = []

    def align(self, audio, text):
        from fairdesk.explain.alignment import WordSpan

        self.texts.append(text)
        dur = len(audio) / 16000
        words = text.split()
        step = dur / len(words)
        return [WordSpan(w, i * step, (i + 1) * step, 0.9) for i, w in enumerate(words)]


def _forceable(runs) -> int:
    """How many items of the English run a forced aligner is asked for: those the explain
    stage did not align already (an earlier test caches one alignment with its saliency)."""
    from fairdesk.reports.data import load_run
    from fairdesk.reports.tiers import _cached_words

    d = load_run(runs.project, runs.run)
    rows = d.items.to_dict(orient="records")
    return sum(1 for r in rows if not _cached_words(d, r, " ".join(str(r["reference"]).split())))


def _reference_times(folder, suffix):
    """{item id: [(start, end, word)]} of the reference tiers of an export."""
    from fairdesk.reports.elan import read_eaf
    from fairdesk.reports.praat import read_textgrid

    read = read_textgrid if suffix == ".TextGrid" else read_eaf
    out = {}
    for f in sorted(folder.glob(f"*{suffix}")):
        _, tiers = read(f)
        out[f.stem] = list(tiers["reference"])
    return out


def test_the_eaf_export_reuses_the_alignments_of_the_textgrid_export(speech_runs, tmp_path):
    from fairdesk.reports.elan import export_eafs
    from fairdesk.reports.praat import export_textgrids

    first = CountingAligner()
    tg = export_textgrids(speech_runs.project, speech_runs.run, tmp_path / "tg", first)
    forced = [it for it in tg if it.reference_source == f"forced alignment with {first.key}"]
    # every item, but one the explain stage aligned (cached with its saliency) by an earlier test
    assert len(tg) == 50 and len(forced) == _forceable(speech_runs) >= 49
    assert {it.reference_source for it in tg} <= {forced[0].reference_source, SOURCE_CACHED}
    assert len(first.texts) == len(forced)
    again = CountingAligner(first.key)  # the same aligner, in a new export
    eaf = export_eafs(speech_runs.project, speech_runs.run, tmp_path / "eaf", again)
    assert again.texts == []
    assert [it.reference_source for it in eaf] == [it.reference_source for it in tg]
    assert [it.tiers for it in eaf] == [it.tiers for it in tg]
    # the files agree to the EAF's millisecond
    in_eaf = _reference_times(tmp_path / "eaf", ".eaf")
    in_tg = _reference_times(tmp_path / "tg", ".TextGrid")
    assert in_eaf.keys() == in_tg.keys() and len(in_eaf) == 50
    for item, spans in in_tg.items():
        assert [w for *_, w in in_eaf[item]] == [w for *_, w in spans]
        for (s1, e1, _), (s2, e2, _) in zip(in_eaf[item], spans):
            assert s1 == pytest.approx(s2, abs=6e-4) and e1 == pytest.approx(e2, abs=6e-4)
    # a second TextGrid export of the run aligns nothing either, and writes the same times
    third = CountingAligner(first.key)
    tg2 = export_textgrids(speech_runs.project, speech_runs.run, tmp_path / "tg2", third)
    assert third.texts == [] and [it.tiers for it in tg2] == [it.tiers for it in tg]
    assert _reference_times(tmp_path / "tg2", ".TextGrid") == in_tg
    # another aligner is another alignment
    other = CountingAligner()
    export_eafs(speech_runs.project, speech_runs.run, tmp_path / "o", other, items=["us-0-0"])
    assert len(other.texts) == 1


def test_a_changed_transcript_or_audio_re_aligns_that_item_only(speech_runs, tmp_path):
    from fairdesk.reports.data import load_run
    from fairdesk.reports.tier_export import export_items

    aligner = CountingAligner()
    d = load_run(speech_runs.project, speech_runs.run)
    write = lambda it, folder: None  # noqa: E731 - the files are not the point here
    export_items(d, tmp_path, "the files", write, aligner)
    assert len(aligner.texts) == _forceable(speech_runs)
    aligner.texts.clear()
    rows = d.items.set_index("id")
    ids = list(rows.index)
    changed, moved = ids[3], ids[7]
    d.items.loc[d.items["id"] == changed, "reference"] = "a corrected transcript"
    d.items.loc[d.items["id"] == moved, "audio_hash"] = "0" * 64  # re-recorded
    done = export_items(d, tmp_path, "the files", write, aligner)
    assert sorted(aligner.texts) == sorted(
        ["a corrected transcript", str(rows.loc[moved, "reference"])]
    )
    new = next(it for it in done if it.item == changed)
    assert [w for _, _, w in new.tiers["reference"]] == ["a", "corrected", "transcript"]
    # and the corrected one is stored too
    aligner.texts.clear()
    export_items(d, tmp_path, "the files", write, aligner)
    assert aligner.texts == []


def test_a_cancelled_export_writes_no_file_and_keeps_the_alignments(speech_runs, tmp_path):
    from fairdesk.reports.praat import export_textgrids

    aligner = CountingAligner()
    out = tmp_path / "tg"
    with pytest.raises(Cancelled, match=r"cancelled after (5|6) of 50 items"):
        export_textgrids(
            speech_runs.project,
            speech_runs.run,
            out,
            aligner,
            cancelled=lambda: len(aligner.texts) >= 5,
        )
    assert not out.exists()  # not even the folder
    assert list(tmp_path.rglob("*")) == []
    # the next export goes on from the five
    export_textgrids(speech_runs.project, speech_runs.run, out, aligner)
    assert len(aligner.texts) == _forceable(speech_runs)
    assert len(list(out.glob("*.TextGrid"))) == 50


def test_progress_counts_every_item_and_reaches_the_end(speech_runs, tmp_path):
    from fairdesk.reports.elan import export_eafs

    seen, writing = [], []
    export_eafs(
        speech_runs.project,
        speech_runs.run,
        tmp_path,
        CountingAligner(),
        progress=lambda f, m: seen.append((f, m)),
        writing=lambda: writing.append(len(seen)),
    )
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    messages = [m for _, m in seen]
    assert any(m.startswith("aligning item 50/50") for m in messages)
    assert "writing the ELAN files" in messages and messages[-1] == "50 files written"
    # the writing began after the last item was aligned
    assert writing and all("aligning" not in m for m in messages[writing[0] :])


def test_cli_export_prints_progress_and_aligns_once(speech_runs, tmp_path, capsys, monkeypatch):
    from fairdesk.reports import tiers

    aligner = CountingAligner()
    monkeypatch.setattr(tiers.Aligners, "_aligner", lambda self: aligner)
    monkeypatch.setattr(tiers, "WHISPER_NAME", aligner.key)
    args = ["export", "--project", str(speech_runs.project.folder), "--run", str(speech_runs.run)]
    tg, eaf = tmp_path / "tg", tmp_path / "eaf"
    assert main([*args, "--textgrid", str(tg), "--eaf", str(eaf)]) == 0
    err = capsys.readouterr().err
    # as ``fairdesk audit``: a line at the start, every 2 s (on a slow or busy machine), and
    # at the end of each export
    lines = err.splitlines()
    starts = [i for i, line in enumerate(lines) if line == "[  0.0%] aligning the reference words"]
    ends = [i for i, line in enumerate(lines) if line == "[100.0%] 50 files written"]
    assert len(starts) == len(ends) == 2 and starts[0] == 0 and ends[-1] == len(lines) - 1
    assert starts[0] < ends[0] < starts[1] < ends[1]
    assert all(line.startswith("[") and "%]" in line for line in lines)
    n = _forceable(speech_runs)
    assert len(aligner.texts) == n  # the EAFs read the TextGrids' alignments
    assert main([*args, "--eaf", str(tmp_path / "again"), "--quiet"]) == 0
    assert capsys.readouterr().err == "" and len(aligner.texts) == n
