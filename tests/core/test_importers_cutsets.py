"""Lhotse CutSets (icefall's ``data/fbank/*_cuts_*.jsonl.gz``), Lhotse command sources,
NeMo durations that are not numbers, the label vocabulary and integer metadata, on corpora
in the formats' own layouts around real speech (the embedded speechocean762 utterances).

The CutSet lines are written as ``lhotse``'s ``MonoCut.to_dict`` writes them (``id``,
``start``, ``duration``, ``channel``, ``supervisions`` with ``custom``, ``recording`` with
``sources``/``sampling_rate``/``num_samples``/``duration``/``channel_ids``, the cut's
``custom``, ``type``: ``MonoCut``); lhotse itself needs torch, so it is not used here.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.labels import normalise_metadata
from fairdesk.core.spans import load_row
from fairdesk.core.store import Project
from tests.core.test_pipes import write_sphere
from tests.session_fixture import _utterances

SR = 16000


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


@pytest.fixture(scope="module")
def speech():
    return [(t, np.round(x * 32767).astype(np.int16)) for t, x in _utterances(5)]


def _recording(rid, path, frames, channels=1, kind="file"):
    return {
        "id": rid,
        "sources": [{"type": kind, "channels": list(range(channels)), "source": str(path)}],
        "sampling_rate": SR,
        "num_samples": frames,
        "duration": frames / SR,
        "channel_ids": list(range(channels)),
    }


def _sup(sid, rid, start, duration, text, speaker, gender=None, **custom):
    s = {
        "id": sid,
        "recording_id": rid,
        "start": start,
        "duration": duration,
        "channel": 0,
        "text": text,
        "language": "English",
        "speaker": speaker,
    }
    if gender is not None:
        s["gender"] = gender
    if custom:
        s["custom"] = custom
    return s


def _cut(cid, start, duration, rec, sups, channel=0, **custom):
    c = {
        "id": cid,
        "start": start,
        "duration": duration,
        "channel": channel,
        "supervisions": sups,
        "recording": rec,
    }
    if custom:
        c["custom"] = custom
    c["type"] = "MonoCut"
    return c


def icefall_cuts(tmp_path, speech):
    """download/LibriSpeech/... audio and data/fbank/librispeech_cuts_dev-clean.jsonl.gz."""
    (w0, a), (w1, b), (w2, c), (w3, d), (w4, e) = speech
    audio = tmp_path / "download" / "LibriSpeech" / "dev-clean" / "84" / "121123"
    audio.mkdir(parents=True)
    sf.write(audio / "84-121123-0000.flac", a, SR, subtype="PCM_16")
    gap = np.zeros(SR // 2, dtype=np.int16)
    long = np.concatenate([b, gap, c])  # a session: two supervisions in one recording
    sf.write(audio / "session.flac", long, SR, subtype="PCM_16")
    n = min(len(d), len(e))
    sf.write(audio / "stereo.wav", np.stack([d[:n], e[:n]], axis=1), SR, subtype="PCM_16")
    write_sphere(audio / "sa1.sph", a)
    t_b, t_c = len(b) / SR, (len(b) + len(gap)) / SR
    rec_long = _recording("session", audio / "session.flac", len(long))
    cuts = [
        _cut(
            "84-121123-0000-0",
            0,
            len(a) / SR,
            _recording("84-121123-0000", audio / "84-121123-0000.flac", len(a)),
            [_sup("84-121123-0000", "84-121123-0000", 0.0, len(a) / SR, w0, "84", "F", age=21)],
            origin="librispeech",
        ),
        # a cut from t_c on: its supervision's start counts from the cut's start
        _cut(
            "session-c",
            t_c,
            len(c) / SR,
            rec_long,
            [_sup("session-2", "session", 0.0, len(c) / SR, w2, "spk2", "M")],
        ),
        _cut(
            "session-b",
            0,
            t_b,
            rec_long,
            [_sup("session-1", "session", 0.0, t_b, w1, "spk1", "do_not_wish_to_say")],
        ),
        _cut(
            "stereo-1",
            0,
            n / SR,
            _recording("stereo", audio / "stereo.wav", n, channels=2),
            [_sup("stereo-right", "stereo", 0.0, n / SR, w4, "spk3", "woman", age=40)],
            channel=1,
        ),
        _cut(
            "sph-0",
            0,
            len(a) / SR,
            _recording(
                "sa1", f"sph2pipe -f wav -p -c 1 {audio / 'sa1.sph'}", len(a), kind="command"
            ),
            [_sup("sa1", "sa1", 0.0, len(a) / SR, w0, "spk4", "m")],
        ),
        {"id": "mix", "tracks": [], "type": "MixedCut"},
        _cut("nosup", 0, 1.0, rec_long, []),
    ]
    fbank = tmp_path / "data" / "fbank"
    fbank.mkdir(parents=True)
    path = fbank / "librispeech_cuts_dev-clean.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("".join(json.dumps(c) + "\n" for c in cuts))
    return path, {"long": long, "t_b": t_b, "t_c": t_c, "n": n}


def test_icefall_cutset_imports_each_supervision_with_its_span(project, tmp_path, speech):
    path, info = icefall_cuts(tmp_path, speech)
    assert detect_format(path) == "lhotse" and detect_format(path.parent) == "lhotse"
    rep = import_dataset(project, "cuts", path, audio_root=str(tmp_path / "download"))
    assert rep.format == "lhotse" and rep.imported == 5
    assert [(p.row, p.reason) for p in rep.problems] == [
        (
            6,
            "cut mix is a MixedCut without a recording; fairdesk reads MonoCuts over a "
            "recording: write the mixed or padded audio out (CutSet.save_audios) and import "
            "that CutSet",
        ),
        (7, "cut nosup has no supervision (no transcript); add one or leave the cut out"),
    ]
    ds = project.dataset("cuts")
    items = project.items(ds).set_index("id")
    (w0, a), (w1, b), (w2, c), (w3, d), (w4, e) = speech
    assert dict(items["text"]) == {
        "84-121123-0000": w0,
        "session-1": w1,
        "session-2": w2,
        "stereo-right": w4,
        "sa1": w0,
    }
    assert dict(items["speaker_id"])["session-2"] == "spk2"
    # spans exact to 1 ms: the second supervision starts at the cut's start
    assert items.loc["session-2", "start_s"] == pytest.approx(info["t_c"], abs=1e-3)
    assert items.loc["session-2", "end_s"] == pytest.approx(info["t_c"] + len(c) / SR, abs=1e-3)
    assert items.loc["session-1", "start_s"] == 0.0
    assert items.loc["84-121123-0000", "start_s"] is None  # the whole recording
    got = {k: load_row(ds.root, r).samples for k, r in items.iterrows()}
    f = np.float32(32768)
    assert np.max(np.abs(got["84-121123-0000"] - a / f)) < 1e-4
    assert np.max(np.abs(got["session-2"] - c / f)) < 1e-4
    assert np.max(np.abs(got["session-1"] - b / f)) < 1e-4
    assert np.max(np.abs(got["stereo-right"] - e[: info["n"]] / f)) < 1e-4  # channel 1
    assert np.max(np.abs(got["sa1"] - a / f)) < 1e-4  # the command's file, read directly
    # metadata: the vocabulary, custom fields of the cut and supervision, the split
    g = {k: (None if isinstance(v, float) else v) for k, v in items["gender"].items()}
    assert g == {
        "84-121123-0000": "female",
        "session-1": None,
        "session-2": "male",
        "stereo-right": "female",
        "sa1": "male",
    }
    assert items.loc["session-1", "gender_raw"] == "do_not_wish_to_say"
    assert items.loc["84-121123-0000", "origin"] == "librispeech"
    assert set(items["split"]) == {"dev-clean"}
    assert items.loc["84-121123-0000", "age"] == 21 and items.loc["stereo-right", "age"] == 40
    assert items.loc["sa1", "age"] is None
    assert list(project.items(ds, {"age": ["21"]})["id"]) == ["84-121123-0000"]
    try:  # lhotse (when installed) reads the hand-written lines as its own MonoCuts
        from lhotse.cut import MonoCut
    except ImportError:
        return
    with gzip.open(path, "rt", encoding="utf-8") as f:
        lines = [json.loads(line) for line in f][:5]
    for d in lines:
        cut = MonoCut.from_dict(d)
        if cut.recording.sources[0].type != "file":
            continue  # lhotse would run the command; fairdesk never does
        (sup,) = cut.supervisions
        theirs = cut.load_audio()[0]
        assert np.max(np.abs(got[sup.id] - theirs)) < 1e-4 and got[sup.id].shape == theirs.shape


def test_lhotse_command_sources_are_never_run(project, tmp_path, speech):
    """A RecordingSet whose command source would create a file: refused, nothing created."""
    (w0, a), *_ = speech
    folder = tmp_path / "manifests"
    folder.mkdir()
    sf.write(folder / "a.flac", a, SR, subtype="PCM_16")
    marker = tmp_path / "ran"
    recs = [
        _recording("a", "flac -c -d -s a.flac", len(a), kind="command"),
        _recording("b", f"touch {marker}", len(a), kind="command"),
        _recording("c", "sox a.flac -t wav - speed 1.1 |", len(a), kind="command"),
    ]
    sups = [_sup(r, r, 0.0, len(a) / SR, w0, "s") for r in ("a", "b", "c")]
    for name, rows in (("recordings", recs), ("supervisions", sups)):
        (folder / f"x_{name}_test.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
        )
    rep = import_dataset(project, "l", folder)
    assert rep.imported == 1 and not marker.exists()
    reasons = {p.row: p.reason for p in rep.problems}
    assert reasons[2].startswith(f"recording b: the entry 'touch {marker}' is a 'touch' command")
    assert reasons[3].startswith(
        "recording c: the entry 'sox a.flac -t wav - speed 1.1 |' uses 'speed' (a sox effect)"
    )


# -- NeMo durations ---------------------------------------------------------------------------
def test_nemo_duration_that_is_not_a_number_refuses_that_row(project, tmp_path, speech):
    (w0, a), (w1, b), *_ = speech
    folder = tmp_path / "nemo"
    (folder / "audio").mkdir(parents=True)
    sf.write(folder / "audio" / "a.wav", np.concatenate([a, b]), SR, subtype="PCM_16")
    rows = [
        {"audio_filepath": "audio/a.wav", "duration": len(a) / SR, "text": w0},
        {"audio_filepath": "audio/a.wav", "duration": "abc", "offset": 0.5, "text": w1},
        {"audio_filepath": "audio/a.wav", "duration": "3,5", "text": w1},
        {"audio_filepath": "audio/a.wav", "duration": 1.0, "offset": "0,5", "text": w1},
    ]
    man = folder / "train_manifest.json"
    man.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rep = import_dataset(project, "n", man)
    assert rep.imported == 1
    assert [(p.source, p.row, p.reason) for p in rep.problems] == [
        (
            str(man),
            2,
            "duration is 'abc', not a number of seconds; write the seconds as a number (3.5), "
            "or remove the entry",
        ),
        (
            str(man),
            3,
            "duration is '3,5', not a number of seconds; write 3.5 (a decimal point, not a "
            "comma), or remove the entry",
        ),
        (
            str(man),
            4,
            "offset is '0,5', not a number of seconds; write 0.5 (a decimal point, not a "
            "comma), or remove the entry",
        ),
    ]
    items = project.items(project.dataset("n"))
    assert items.loc[0, "end_s"] == pytest.approx(len(a) / SR, abs=1e-3)


@pytest.mark.parametrize("fmt", ["nemo", "manifest"])
def test_nemo_integer_metadata_with_a_gap_stays_integer(project, tmp_path, speech, capsys, fmt):
    """NeMo and a plain JSONL manifest: ages beside a missing one stay 21, never 21.0."""
    from fairdesk.cli import main

    folder = tmp_path / "nemo"
    (folder / "audio").mkdir(parents=True)
    rows = []
    for i, (w, x) in enumerate(speech[:3]):
        sf.write(folder / "audio" / f"{i}.wav", x, SR, subtype="PCM_16")
        if fmt == "nemo":
            r = {"audio_filepath": f"audio/{i}.wav", "duration": len(x) / SR, "text": w}
        else:
            r = {"path": f"audio/{i}.wav", "text": w, "speaker_id": f"s{i}"}
        if i != 1:
            r["age"] = 21 if i == 0 else 30
        rows.append(r)
    man = folder / ("m.json" if fmt == "nemo" else "m.jsonl")
    man.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rep = import_dataset(project, "n", man)
    assert rep.format == fmt and rep.imported == 3
    items = project.items(project.dataset("n"))
    assert list(items["age"]) == [21, None, 30]
    code = main(
        [
            "items",
            "--project",
            str(project.folder),
            "--dataset",
            "n",
            "--filter",
            "age=21",
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and '"age": 21' in out and "21.0" not in out


# -- the label vocabulary ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("f", "female"),
        ("F", "female"),
        ("Woman", "female"),
        ("female_feminine", "female"),
        ("FEMALE", "female"),
        ("m", "male"),
        ("M", "male"),
        ("man", "male"),
        ("male_masculine", "male"),
        ("do_not_wish_to_say", None),
        ("U", None),
        ("unknown", None),
        ("other", "other"),
        ("non-binary", "non-binary"),
        ("intersex", "intersex"),
        ("female", "female"),
    ],
)
def test_gender_vocabulary(written, stored):
    got = normalise_metadata({"gender": written, "age": 3})
    assert got.get("gender") == stored and got["age"] == 3
    assert got.get("gender_raw") == (None if stored == written else written)


def test_formats_share_gender_groups(project, tmp_path, speech):
    """Kaldi `m`, Common Voice 17 `male_masculine` and a Lhotse `M` are one group."""
    (w0, a), *_ = speech
    k = tmp_path / "kaldi"
    k.mkdir()
    sf.write(k / "u.wav", a, SR)
    (k / "wav.scp").write_text("u u.wav\n")
    (k / "text").write_text(f"u {w0}\n")
    (k / "utt2spk").write_text("u s\n")
    (k / "spk2gender").write_text("s m\n")
    cv = tmp_path / "cv"
    (cv / "clips").mkdir(parents=True)
    sf.write(cv / "clips" / "x.wav", a, SR)
    (cv / "validated.tsv").write_text(
        f"client_id\tpath\tsentence\tup_votes\tdown_votes\tage\tgender\n"
        f"c1\tx.wav\t{w0}\t2\t0\ttwenties\tmale_masculine\n",
        encoding="utf-8",
    )
    import_dataset(project, "k", k)
    import_dataset(project, "cv", cv)
    g = [project.items(project.dataset(n)).loc[0, "gender"] for n in ("k", "cv")]
    assert g == ["male", "male"]


def test_cutset_written_by_lhotse_itself_gives_lhotses_audio(project, tmp_path, speech):
    """Cross-check with lhotse (when installed after torch): a session's supervisions trimmed
    into cuts by lhotse, written with ``CutSet.to_file``; each item's audio equals what
    ``cut.load_audio()`` gives, its text and speaker the supervision's."""
    lhotse = pytest.importorskip("lhotse")
    (w0, a), (w1, b), *_ = speech
    audio = tmp_path / "download"
    audio.mkdir()
    session = np.concatenate([a, np.zeros(SR // 2, dtype=np.int16), b])
    sf.write(audio / "session.flac", session, SR, subtype="PCM_16")
    rec = lhotse.Recording.from_file(audio / "session.flac", recording_id="session")
    t_b = (len(a) + SR // 2) / SR
    sups = [
        lhotse.SupervisionSegment(
            id="s0",
            recording_id="session",
            start=0.0,
            duration=len(a) / SR,
            text=w0,
            speaker="A",
            gender="F",
            custom={"age": 21},
        ),
        lhotse.SupervisionSegment(
            id="s1",
            recording_id="session",
            start=t_b,
            duration=len(b) / SR,
            text=w1,
            speaker="B",
            gender="M",
        ),
    ]
    cuts = lhotse.CutSet.from_manifests(
        recordings=lhotse.RecordingSet.from_recordings([rec]),
        supervisions=lhotse.SupervisionSet.from_segments(sups),
    ).trim_to_supervisions(keep_overlapping=False)
    fbank = tmp_path / "data" / "fbank"
    fbank.mkdir(parents=True)
    cuts.to_file(fbank / "session_cuts_test.jsonl.gz")
    rep = import_dataset(project, "lh", fbank, audio_root=str(audio))
    assert rep.imported == 2 and not rep.problems
    ds = project.dataset("lh")
    items = project.items(ds).set_index("id")
    for cut in cuts:
        (sup,) = cut.supervisions
        row = items.loc[sup.id]
        assert (row["text"], row["speaker_id"]) == (sup.text, sup.speaker)
        assert row["start_s"] == pytest.approx(cut.start, abs=1e-3)
        ours = load_row(ds.root, {**row.to_dict(), "id": sup.id}).samples
        theirs = cut.load_audio()[0]
        assert ours.shape == theirs.shape and np.max(np.abs(ours - theirs)) < 1e-4
    assert (items.loc["s0", "gender"], items.loc["s0", "age"]) == ("female", 21)
    assert items.loc["s1", "age"] is None and items.loc["s1", "gender_raw"] == "M"
