"""Kaldi pipes and archives read without a shell (fairdesk.core.pipes), on data directories
in the recipes' layouts around real speech (the embedded speechocean762 utterances)."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.importers import import_dataset
from fairdesk.core.pipes import AudioEntry, EntryRefused, parse_entry
from fairdesk.core.spans import load_row
from fairdesk.core.store import Project
from tests.session_fixture import _utterances


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


@pytest.fixture(scope="module")
def speech():
    """Four real utterances: ``(text, int16 samples at 16 kHz)``."""
    return [(t, np.round(x * 32767).astype(np.int16)) for t, x in _utterances(4)]


def _write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_sphere(path, samples: np.ndarray, rate=16000, coding="pcm"):
    """A NIST SPHERE file as TIMIT ships it: the NIST_1A header (1024 bytes) written by
    hand, then little-endian 16-bit samples (interleaved when ``samples`` is 2-D)."""
    frames = samples if samples.ndim == 2 else samples[:, None]
    header = (
        "NIST_1A\n   1024\n"
        f"sample_count -i {frames.shape[0]}\nsample_rate -i {rate}\n"
        f"channel_count -i {frames.shape[1]}\nsample_n_bytes -i 2\n"
        f"sample_byte_format -s2 01\nsample_sig_bits -i 16\n"
        f"sample_coding -s{len(coding)} {coding}\nend_head\n"
    ).encode("ascii")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header.ljust(1024, b" ") + frames.astype("<i2").tobytes())
    return path


def _samples(project, name):
    """``{item id: 16 kHz float32 samples}`` as an audit reads them."""
    ds = project.dataset(name)
    items = project.items(ds)
    return {r["id"]: load_row(ds.root, r).samples for _i, r in items.iterrows()}


def _close(a, b):
    return a.shape == b.shape and float(np.max(np.abs(a - b))) < 1e-4


# -- parsing (pure) ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a/b.flac", AudioEntry("a/b.flac")),
        ("flac -c -d -s a/b.flac |", AudioEntry("a/b.flac", command="flac")),
        ("flac -cds a/b.flac|", AudioEntry("a/b.flac", command="flac")),
        ("/usr/bin/flac --decode --stdout --silent b.flac |", AudioEntry("b.flac", command="flac")),
        ("sox a.wav -t wav - |", AudioEntry("a.wav", command="sox")),
        ("sox -q a.sph -t wav - |", AudioEntry("a.sph", command="sox")),
        ("sph2pipe -f wav a.sph |", AudioEntry("a.sph", command="sph2pipe")),
        ("sph2pipe -f wav -p -c 2 a.sph |", AudioEntry("a.sph", channel=1, command="sph2pipe")),
        ("ffmpeg -i a.m4a -f wav - |", AudioEntry("a.m4a", command="ffmpeg")),
        (
            "ffmpeg -nostdin -loglevel quiet -i a.mp3 -f wav - |",
            AudioEntry("a.mp3", command="ffmpeg"),
        ),
        ("data/raw.ark:1234", AudioEntry("data/raw.ark", offset=1234)),
        ("ark:/abs/raw.ark:99", AudioEntry("/abs/raw.ark", offset=99)),
        ("'quoted name.flac'", AudioEntry("'quoted name.flac'")),
    ],
)
def test_parse_entry_reads_the_file_a_decode_names(value, expected):
    assert parse_entry(value) == expected


@pytest.mark.parametrize(
    ("value", "option"),
    [
        ("sox a.wav -t wav - remix 1 |", "'remix' (a sox effect)"),
        ("sox a.wav -t wav - trim 0 3 |", "'trim' (a sox effect)"),
        ("sox a.wav -t wav - speed 1.1 |", "'speed' (a sox effect)"),
        ("sox a.wav -t wav - tempo 0.9 |", "'tempo' (a sox effect)"),
        ("sox a.wav -r 8000 -t wav - |", "'-r' (a sox format or global option)"),
        ("sph2pipe -f wav -t 1:2 a.sph |", "'-t' (a time or sample range)"),
        ("sph2pipe -f wav -u a.sph |", "'-u' (u-law or a-law output)"),
        ("ffmpeg -i a.wav -ar 8000 -f wav - |", "'-ar' (an ffmpeg option other than -i F -f wav)"),
        ("ffmpeg -i a.wav -af atempo=2 -f wav - |", "'-af' (an ffmpeg option"),
        ("flac -c -d --skip=100 a.flac |", "'--skip=100' (a flac option"),
    ],
)
def test_parse_entry_refuses_options_that_change_the_audio_naming_them(value, option):
    with pytest.raises(EntryRefused) as e:
        parse_entry(value)
    assert f"uses {option}" in str(e.value) and "changes the audio" in str(e.value)


@pytest.mark.parametrize(
    "value",
    [
        "curl http://x/a.wav |",
        "cat a.wav |",
        "flac -c -d a.flac | sox -t wav - -t wav - |",
        "sox a.wav -t wav - ; rm -rf x |",
        "sox $(echo a.wav) -t wav - |",
    ],
)
def test_parse_entry_refuses_every_other_command(value):
    with pytest.raises(EntryRefused) as e:
        parse_entry(value)
    assert "fairdesk never runs a command from a manifest" in str(e.value)


def test_a_manifest_command_is_never_run(project, tmp_path):
    """`touch F |` in wav.scp and in a Lhotse command source: refused, F never created."""
    marker = tmp_path / "ran"
    with pytest.raises(EntryRefused):
        parse_entry(f"touch {marker} |")
    d = tmp_path / "data" / "train"
    d.mkdir(parents=True)
    sf.write(d / "a.wav", np.zeros(1600), 16000)
    _write(d / "wav.scp", ["a a.wav", f"b touch {marker} |", f"c {marker}.ark:0"])
    _write(d / "text", ["a HELLO", "b WORLD", "c AGAIN"])
    _write(d / "utt2spk", ["a s", "b s", "c s"])
    rep = import_dataset(project, "k", d)
    assert rep.imported == 1 and not marker.exists()
    [b, c] = [p for p in rep.problems if p.row in (2, 3)]
    assert b.source == str(d / "wav.scp") and b.reason == (
        f"b: the entry 'touch {marker} |' is a 'touch' command; fairdesk never runs a command "
        "from a manifest and reads only flac -c -d, sox F -t wav -, sph2pipe -f wav and "
        "ffmpeg -i F -f wav - without options that change the audio: write the audio out as "
        "a file and list the file"
    )
    assert c.reason == f"c: the archive {marker}.ark does not exist; check the path in the entry"


# -- Kaldi data directories as the recipes write them ----------------------------------------
def test_librispeech_recipe_flac_pipes_read_the_flac_files(project, tmp_path, speech):
    """egs/librispeech/s5 data/train: `<utt> flac -c -d -s <abs path>.flac |`."""
    corpus = tmp_path / "LibriSpeech" / "dev-clean" / "84" / "121123"
    d = tmp_path / "s5" / "data" / "dev_clean"
    scp, text = [], []
    for i, (words, x) in enumerate(speech):
        f = corpus / f"84-121123-{i:04d}.flac"
        f.parent.mkdir(parents=True, exist_ok=True)
        sf.write(f, x, 16000, subtype="PCM_16")
        scp.append(f"84-121123-{i:04d} flac -c -d -s {f} |")
        text.append(f"84-121123-{i:04d} {words}")
    _write(d / "wav.scp", scp)
    _write(d / "text", text)
    _write(d / "utt2spk", [f"84-121123-{i:04d} 84-121123" for i in range(4)])
    _write(d / "spk2gender", ["84-121123 f"])
    rep = import_dataset(project, "ls", d, audio_root=str(tmp_path / "LibriSpeech"))
    assert rep.imported == 4 and not rep.problems
    got = _samples(project, "ls")
    for i, (_w, x) in enumerate(speech):
        assert _close(got[f"84-121123-{i:04d}"], x.astype(np.float32) / 32768)
    items = project.items(project.dataset("ls"))
    assert set(items["gender"]) == {"female"} and set(items["gender_raw"]) == {"f"}
    assert list(items["text"]) == [w for w, _x in speech]


def test_timit_recipe_sph2pipe_reads_sphere_and_its_channel(project, tmp_path, speech):
    """egs/timit/s5: `sph2pipe -f wav <F>.WAV |` over NIST SPHERE; `-c 2` picks channel 2 of
    a two-channel file (written into the project's media folder); shorten is refused."""
    d = tmp_path / "data" / "train"
    (_w0, a), (_w1, b), (_w2, c), _ = speech
    write_sphere(tmp_path / "TIMIT" / "TRAIN" / "DR1" / "FCJF0" / "SA1.WAV", a)
    n = min(len(b), len(c))
    stereo = np.stack([b[:n], c[:n]], axis=1)
    write_sphere(tmp_path / "TIMIT" / "TRAIN" / "DR1" / "MDAB0" / "SX1.WAV", stereo)
    write_sphere(
        tmp_path / "TIMIT" / "TRAIN" / "DR1" / "MDAB0" / "SX2.WAV",
        a,
        coding="pcm,embedded-shorten-v2.00",
    )
    t = tmp_path / "TIMIT" / "TRAIN" / "DR1"
    _write(
        d / "wav.scp",
        [
            f"fcjf0_sa1 sph2pipe -f wav {t}/FCJF0/SA1.WAV |",
            f"mdab0_sx1 sph2pipe -f wav -p -c 2 {t}/MDAB0/SX1.WAV |",
            f"mdab0_sx1a sox {t}/MDAB0/SX1.WAV -t wav - |",
            f"mdab0_sx2 sph2pipe -f wav {t}/MDAB0/SX2.WAV |",
        ],
    )
    _write(d / "text", ["fcjf0_sa1 she had", "mdab0_sx1 two", "mdab0_sx1a both", "mdab0_sx2 no"])
    _write(
        d / "utt2spk", ["fcjf0_sa1 fcjf0", "mdab0_sx1 mdab0", "mdab0_sx1a mdab0", "mdab0_sx2 mdab0"]
    )
    _write(d / "spk2gender", ["fcjf0 f", "mdab0 m"])
    rep = import_dataset(project, "timit", d, audio_root=str(tmp_path / "TIMIT"))
    assert rep.imported == 3
    [p] = rep.problems
    assert p.row == 4 and p.reason == (
        f"mdab0_sx2: {t}/MDAB0/SX2.WAV is NIST SPHERE compressed with shorten, which fairdesk "
        "cannot decode; convert it with sph2pipe -f wav (sph2pipe -f wav F.sph F.wav) and list "
        "the WAV"
    )
    got = _samples(project, "timit")
    assert _close(got["fcjf0_sa1"], a.astype(np.float32) / 32768)
    assert _close(got["mdab0_sx1"], c[:n].astype(np.float32) / 32768)  # channel 2 only
    items = project.items(project.dataset("timit")).set_index("id")
    assert items.loc["mdab0_sx1", "channels"] == 1 and items.loc["mdab0_sx1a", "channels"] == 2
    assert dict(items["gender"]) == {
        "fcjf0_sa1": "female",
        "mdab0_sx1": "male",
        "mdab0_sx1a": "male",
    }


@pytest.mark.parametrize(("prefix", "folder"), [("", "test"), ("ark:", "test [v2]")])
def test_ark_offsets_written_by_kaldiio_are_extracted_as_wav(
    project, tmp_path, speech, prefix, folder
):
    """wav-copy's output (`ark,scp:`) written with kaldiio itself: `<utt> raw.ark:<offset>`
    (also in a folder whose name holds brackets, which load_mat would read as a slice)."""
    kaldiio = pytest.importorskip("kaldiio")
    d = tmp_path / "data" / folder
    d.mkdir(parents=True)
    with kaldiio.WriteHelper(f"ark,scp:{d / 'raw.ark'},{d / 'raw.scp'}") as w:
        for i, (_words, x) in enumerate(speech):
            w[f"utt{i}"] = (16000, x)
    lines = (d / "raw.scp").read_text().splitlines()
    assert all(":" in ln and "|" not in ln for ln in lines)
    _write(d / "wav.scp", [ln.replace(" ", f" {prefix}", 1) for ln in lines])
    _write(d / "text", [f"utt{i} {w}" for i, (w, _x) in enumerate(speech)])
    _write(d / "utt2spk", [f"utt{i} spk{i % 2}" for i in range(4)])
    rep = import_dataset(project, "ark", d)
    assert rep.imported == 4 and not rep.problems
    got = _samples(project, "ark")
    for i, (_w, x) in enumerate(speech):
        assert _close(got[f"utt{i}"], x.astype(np.float32) / 32768)
    media = project.folder / "media"
    assert len(list(media.rglob("*.wav"))) == 4  # extracted once, content-addressed
    again = import_dataset(project, "ark", d)
    assert again.unchanged == 4 and len(list(media.rglob("*.wav"))) == 4


def test_ark_offset_of_a_feature_matrix_is_refused(project, tmp_path, speech):
    kaldiio = pytest.importorskip("kaldiio")
    d = tmp_path / "data" / "test"
    d.mkdir(parents=True)
    with kaldiio.WriteHelper(f"ark,scp:{d / 'feats.ark'},{d / 'feats.scp'}") as w:
        w["utt0"] = np.zeros((10, 13), dtype=np.float32)
    _write(d / "wav.scp", (d / "feats.scp").read_text().splitlines())
    _write(d / "text", ["utt0 HELLO"])
    rep = import_dataset(project, "f", d)
    assert rep.imported == 0
    assert "holds a matrix (features), not a waveform" in rep.problems[0].reason


# -- speakers ---------------------------------------------------------------------------------
def _three(tmp_path, speech):
    d = tmp_path / "data" / "train"
    d.mkdir(parents=True)
    for i, (_w, x) in enumerate(speech[:3]):
        sf.write(d / f"u{i}.wav", x, 16000)
    _write(d / "wav.scp", [f"u{i} u{i}.wav" for i in range(3)])
    _write(d / "text", [f"u{i} {w}" for i, (w, _x) in enumerate(speech[:3])])
    return d


def test_utterance_missing_from_utt2spk_is_a_problem(project, tmp_path, speech):
    d = _three(tmp_path, speech)
    _write(d / "utt2spk", ["u0 A", "u2 B"])
    rep = import_dataset(project, "k", d)
    assert rep.imported == 2
    [p] = rep.problems
    assert (p.source, p.row) == (str(d / "text"), 2)
    assert p.reason == (
        "u1 has no speaker: it is not in utt2spk; add a line 'u1 <speaker-id>' to utt2spk "
        "(Kaldi needs one for every utterance)"
    )


def test_utterance_under_two_speakers_in_spk2utt_is_refused(project, tmp_path, speech):
    d = _three(tmp_path, speech)
    _write(d / "spk2utt", ["A u0 u1", "B u1 u2"])
    rep = import_dataset(project, "k", d)
    assert rep.imported == 2
    [p] = rep.problems
    assert (p.source, p.row) == (str(d / "spk2utt"), 2)
    assert p.reason == (
        "u1 is listed under speaker 'A' (line 1) and under 'B'; an utterance has one speaker: "
        "remove one of them"
    )
    items = project.items(project.dataset("k"))
    assert dict(zip(items["id"], items["speaker_id"])) == {"u0": "A", "u2": "B"}


def test_segments_over_a_sph2pipe_recording_read_spans_of_the_sphere_file(
    project, tmp_path, speech
):
    """A session recording (SPHERE, read through sph2pipe) cut by `segments`; a refused
    recording names the utterances it carries."""
    (w0, a), (w1, b), *_ = speech
    gap = np.zeros(8000, dtype=np.int16)
    session = np.concatenate([a, gap, b])
    write_sphere(tmp_path / "corpus" / "sess.sph", session)
    d = tmp_path / "data" / "dev"
    t_b = (len(a) + len(gap)) / 16000
    _write(
        d / "wav.scp",
        [
            f"sess sph2pipe -f wav -p {tmp_path / 'corpus' / 'sess.sph'} |",
            f"other sox {tmp_path / 'corpus' / 'sess.sph'} -t wav - trim 1 |",
        ],
    )
    _write(
        d / "segments",
        [
            f"sess-0 sess 0.00 {len(a) / 16000:.4f}",
            f"sess-1 sess {t_b:.4f} -1",
            "other-0 other 0 1",
            "other-1 other 1 2",
        ],
    )
    _write(d / "text", [f"sess-0 {w0}", f"sess-1 {w1}", "other-0 a", "other-1 b"])
    _write(d / "utt2spk", ["sess-0 A", "sess-1 B", "other-0 A", "other-1 B"])
    rep = import_dataset(project, "seg", d, audio_root=str(tmp_path / "corpus"))
    assert rep.imported == 2
    [p] = rep.problems
    assert (p.source, p.row) == (str(d / "wav.scp"), 2)
    assert p.reason.endswith("(its 2 utterance(s) in segments, other-0, other-1, are not imported)")
    got = _samples(project, "seg")
    assert _close(got["sess-0"], a.astype(np.float32) / 32768)
    assert _close(got["sess-1"], b.astype(np.float32) / 32768)
    items = project.items(project.dataset("seg")).set_index("id")
    assert items.loc["sess-1", "start_s"] == pytest.approx(t_b, abs=1e-3)
