"""TextGrid and EAF exports read back with praatio and pympi; the tiers' contents."""

from __future__ import annotations

import json
from urllib.parse import unquote, urlparse

import numpy as np
import pytest
import soundfile as sf

from fairdesk.cli import main
from fairdesk.reports.tiers import SOURCE_CACHED, SOURCE_EVEN, TIERS


def _duration(path) -> float:
    info = sf.info(str(path))
    return info.frames / info.samplerate


@pytest.fixture(scope="module")
def textgrids(speech_runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("tg")
    assert (
        main(
            [
                "export",
                "--project",
                str(speech_runs.project.folder),
                "--run",
                str(speech_runs.run),
                "--textgrid",
                str(out),
                "--aligner",
                "even",
            ]
        )
        == 0
    )
    return out


def test_export_says_how_reference_times_were_obtained(speech_runs, tmp_path, capsys):
    assert (
        main(
            [
                "export",
                "--project",
                str(speech_runs.project.folder),
                "--run",
                str(speech_runs.tone_run),
                "--textgrid",
                str(tmp_path),
            ]
        )
        == 0
    )
    cap = capsys.readouterr()
    assert f"reference word times for 6 items: {SOURCE_EVEN}" in cap.out
    assert "no forced aligner for language 'yo'" in cap.err


def test_every_item_has_a_textgrid_with_tiers_inside_the_audio(textgrids, speech_runs):
    from praatio import textgrid

    files = sorted(textgrids.glob("*.TextGrid"))
    assert len(files) == 50
    for f in files:
        item = f.stem
        speaker, group, ref, hyp = speech_runs.items[item]
        tg = textgrid.openTextgrid(str(f), includeEmptyIntervals=False)
        assert tuple(tg.tierNames[:3]) == TIERS[:3]
        dur = _duration(speech_runs.root / group / f"{item.split('-')[1]}_{item.split('-')[2]}.wav")
        assert tg.maxTimestamp == pytest.approx(dur, abs=1e-3)
        for name in tg.tierNames:
            for e in tg.getTier(name).entries:
                assert 0 <= e.start < e.end <= dur + 1e-6
        words = [e.label for e in tg.getTier("reference").entries]
        assert words == ref.split()
        hyp_tier = tg.getTier("hypothesis").entries  # imported predictions: no word times
        assert [e.label for e in hyp_tier] == ([hyp] if hyp else [])
        assert hyp_tier[0].start == 0 and hyp_tier[0].end == pytest.approx(dur, abs=1e-3)


def test_error_tier_labels(textgrids):
    from praatio import textgrid

    tg = textgrid.openTextgrid(str(textgrids / "scot-4-0.TextGrid"), False)
    ref = {e.label: e for e in tg.getTier("reference").entries}
    err = [(e.start, e.end, e.label) for e in tg.getTier("errors").entries]
    # REF "play the next song please", HYP "the next song now"
    assert err == [
        (ref["play"].start, ref["play"].end, "D play"),
        (ref["please"].start, ref["please"].end, "S please→now"),
    ]
    ok = textgrid.openTextgrid(str(textgrids / "us-0-0.TextGrid"), False)
    assert list(ok.getTier("errors").entries) == []


def test_tone_mark_errors_on_the_yoruba_run(speech_runs, tmp_path):
    from praatio import textgrid

    from fairdesk.reports.praat import export_textgrids

    its = export_textgrids(speech_runs.project, speech_runs.tone_run, tmp_path)
    assert {it.reference_source for it in its} == {SOURCE_EVEN}
    assert all("no forced aligner for language 'yo'" in it.note for it in its)
    tg = textgrid.openTextgrid(str(tmp_path / "yo-0-0.TextGrid"), False)
    assert [e.label for e in tg.getTier("errors").entries] == ["T ọjà→ọja (dropped 1)"]
    assert [e.label for e in tg.getTier("reference").entries] == ["ọjà", "ni", "mo", "lọ"]


def test_saliency_spans_and_cached_alignment(speech_runs, tmp_path):
    from praatio import textgrid

    from fairdesk.explain import store
    from fairdesk.jobs.explain_stage import stage_method_key
    from fairdesk.reports.data import load_run
    from fairdesk.reports.praat import export_textgrids

    d = load_run(speech_runs.project, speech_runs.run)
    row = d.items.set_index("id").loc["us-0-1"]
    frame_s = 0.02
    curve = np.full(int(row["duration"] / frame_s), 0.1, dtype=np.float32)
    curve[25:35] = 1.0  # 0.50-0.70 s
    words = [
        {"word": w, "start": 0.1 * i, "end": 0.1 * i + 0.08, "probability": 0.9}
        for i, w in enumerate(row["reference"].split())
    ]
    key = store.SaliencyKey(
        row["audio_hash"],
        d.model_key,
        store.target_hash(row["reference"]),
        stage_method_key("occlusion"),
    )
    store.save(speech_runs.project, key, frame_s, curve, {"aligner": "test", "words": words})
    its = export_textgrids(speech_runs.project, speech_runs.run, tmp_path, items=["us-0-1"])
    assert its[0].reference_source == SOURCE_CACHED
    tg = textgrid.openTextgrid(str(tmp_path / "us-0-1.TextGrid"), False)
    assert tuple(tg.tierNames) == TIERS
    (span,) = tg.getTier("saliency").entries
    assert (span.start, span.end, span.label) == (pytest.approx(0.5), pytest.approx(0.7), "1.00")
    ref = tg.getTier("reference").entries
    # the cached alignment (of the whole clip) began the first word at 0 s, in the silence
    # before the speech: it starts where the audit's VAD found the speech starting
    speech_start = json.loads(row["speech_regions"])[0][0]
    assert words[0]["start"] < speech_start < words[0]["end"]
    assert [(e.start, e.end, e.label) for e in ref] == [
        (pytest.approx(max(w["start"], speech_start)), pytest.approx(w["end"]), w["word"])
        for w in words
    ]


def test_eaf_read_back_with_pympi(speech_runs, tmp_path):
    import pympi

    assert (
        main(
            [
                "export",
                "--project",
                str(speech_runs.project.folder),
                "--run",
                str(speech_runs.run),
                "--eaf",
                str(tmp_path),
                "--aligner",
                "even",
                "--item",
                "scot-4-0",
                "--item",
                "us-1-2",
            ]
        )
        == 0
    )
    eaf = pympi.Elan.Eaf(str(tmp_path / "scot-4-0.eaf"))
    assert set(eaf.get_tier_names()) == set(TIERS[:3])
    (media,) = eaf.media_descriptors
    audio = speech_runs.root / "scot" / "4_0.wav"
    assert unquote(urlparse(media["MEDIA_URL"]).path) == str(audio.resolve())
    assert (tmp_path / media["RELATIVE_MEDIA_URL"]).resolve() == audio.resolve()
    assert ("fairdesk:item", "scot-4-0") in eaf.properties
    dur_ms = _duration(audio) * 1000
    for tier in TIERS[:3]:
        for start, end, _label in eaf.get_annotation_data_for_tier(tier):
            assert 0 <= start < end <= dur_ms + 1
    words = [a[2] for a in sorted(eaf.get_annotation_data_for_tier("reference"))]
    assert words == "play the next song please".split()
    assert [a[2] for a in eaf.get_annotation_data_for_tier("errors")] == ["D play", "S please→now"]


def test_praat_opens_the_textgrid(textgrids, tmp_path):
    import shutil
    import subprocess

    exe = shutil.which("praat")
    if exe is None:
        pytest.skip("praat is not installed (apt install praat)")
    script = tmp_path / "tiers.praat"
    script.write_text(
        "form x\n  sentence file x\nendform\ntg = Read from file: file$\n"
        "n = Get number of tiers\nfor t to n\n  name$ = Get tier name: t\n"
        '  ni = Get number of intervals: t\n  appendInfoLine: name$, " ", ni\nendfor\n'
    )
    out = subprocess.run(
        [exe, "--run", str(script), str(textgrids / "scot-4-0.TextGrid")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    names = [line.split()[0] for line in out.stdout.splitlines()]
    assert names == ["reference", "hypothesis", "errors"]


@pytest.mark.slow
def test_whisper_forced_alignment_of_the_reference(speech_runs, tmp_path):
    pytest.importorskip("faster_whisper")
    from praatio import textgrid

    from fairdesk.reports.praat import export_textgrids
    from fairdesk.reports.tiers import SOURCE_WHISPER

    its = export_textgrids(
        speech_runs.project, speech_runs.run, tmp_path, aligner="whisper", items=["us-2-3"]
    )
    assert its[0].reference_source == SOURCE_WHISPER
    tg = textgrid.openTextgrid(str(tmp_path / "us-2-3.TextGrid"), False)
    ref = tg.getTier("reference").entries
    assert [e.label for e in ref] == "call my sister on the phone".split()
    starts = [e.start for e in ref]
    assert starts == sorted(starts) and ref[-1].end <= its[0].duration
    assert ref[-1].start > 0.3  # the words spread over the clip, not piled at the start
