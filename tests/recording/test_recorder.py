"""The crash-safe recorder and recording sessions, with synthetic input streams (no device)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import unicodedata
import wave
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.store import Project
from fairdesk.recording import recorder as rec
from fairdesk.recording.prompts import load_builtin, parse_prompts
from fairdesk.recording.recorder import (
    ArrayStream,
    Recorder,
    RecorderError,
    RecorderUnavailable,
    WavAppender,
    read_sidecar,
    recover,
)
from fairdesk.recording.session import (
    RecordingSession,
    SessionError,
    Speaker,
    recover_recordings,
)

ROOT = Path(__file__).resolve().parents[2]


def ramp(n: int, channels: int = 1, dtype: str = "int16") -> np.ndarray:
    """Distinct, deterministic samples: any lost, repeated or shifted block shows."""
    i = np.arange(n * channels, dtype=np.int64).reshape(n, channels)
    if dtype == "int16":
        return ((i * 7919) % 65536 - 32768).astype(np.int16)
    return (((i * 7919) % 20001) / 10000.0 - 1.0).astype(np.float32)


def record_all(r: Recorder, path, signal_len: int, sr=16000, channels=1, timeout=20.0):
    r.start(path, sr, channels)
    deadline = time.monotonic() + timeout
    while r.frames < signal_len and time.monotonic() < deadline:
        time.sleep(0.005)
    return r.stop()


# -- recorder ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dtype,channels,block",
    [("int16", 1, 1024), ("int16", 2, 333), ("float32", 1, 512), ("float32", 2, 1000)],
)
def test_recorder_writes_exactly_the_samples_fed(tmp_path, dtype, channels, block):
    sig = ramp(10_000, channels, dtype)
    acks = []
    r = Recorder(ArrayStream.factory(sig), blocksize=block, dtype=dtype, on_written=acks.append)
    take = record_all(r, tmp_path / "take.wav", len(sig), channels=channels)
    assert take.frames == len(sig) and take.duration == pytest.approx(len(sig) / 16000)
    data, sr = sf.read(str(tmp_path / "take.wav"), dtype=dtype, always_2d=True)
    assert sr == 16000
    np.testing.assert_array_equal(data, sig)
    assert acks[-1] == len(sig) and acks == sorted(acks)
    assert read_sidecar(tmp_path / "take.wav")["status"] == "done"
    if dtype == "int16":  # a strict reader agrees (it trusts the header only)
        with wave.open(str(tmp_path / "take.wav")) as w:
            assert w.getnframes() == len(sig) and w.getnchannels() == channels


def test_level_envelope_and_the_header_is_valid_while_recording(tmp_path):
    sr = 16000
    sig = (0.5 * 32767 * np.sin(2 * np.pi * 200 * np.arange(sr) / sr)).astype(np.int16)
    r = Recorder(ArrayStream.factory(sig, realtime=True, speed=8.0), blocksize=800)
    path = tmp_path / "live.wav"
    r.start(path, sr, 1)
    try:
        deadline = time.monotonic() + 10
        while r.frames < 4000 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert r.recording and r.frames >= 4000
        # mid-recording, the file on disk already reads as a WAV of what was written
        with wave.open(str(path)) as w:
            assert w.getnframes() >= 4000
        assert r.level.peak == pytest.approx(0.5, abs=0.01)
        assert r.level.rms == pytest.approx(0.5 / np.sqrt(2), abs=0.02)
    finally:
        take = r.stop()
    env = r.envelope()
    assert env.shape == (take.frames // rec.ENVELOPE_HOP, 2)
    assert env[:, 0].min() == pytest.approx(-0.5, abs=0.01)
    assert env[:, 1].max() == pytest.approx(0.5, abs=0.01)
    assert not r.recording


def test_takes_are_never_overwritten_and_errors_are_typed(tmp_path):
    path = tmp_path / "a.wav"
    path.write_bytes(b"user audio")
    r = Recorder(ArrayStream.factory(ramp(100)))
    with pytest.raises(RecorderError, match="never overwritten"):
        r.start(path)
    assert path.read_bytes() == b"user audio"

    def broken(*a, **k):
        raise RuntimeError("device vanished")

    with pytest.raises(RecorderUnavailable, match="device vanished"):
        Recorder(broken).start(tmp_path / "b.wav")
    assert not (tmp_path / "b.wav").exists()
    with pytest.raises(RecorderError, match="not recording"):
        r.stop()


def test_missing_sounddevice_or_input_device_is_a_typed_error_with_what_to_do(
    monkeypatch, tmp_path
):
    class FakeSD:
        class PortAudioError(Exception):
            pass

        @staticmethod
        def query_devices(device=None, kind=None):
            raise FakeSD.PortAudioError("Error querying device -1")

        @staticmethod
        def InputStream(**kw):  # noqa: N802 - mirrors sounddevice
            raise FakeSD.PortAudioError("Error querying device -1")

    monkeypatch.setitem(sys.modules, "sounddevice", FakeSD)
    ok, why = rec.input_status()
    assert not ok and "no audio input device" in why and "Connect a microphone" in why
    with pytest.raises(RecorderUnavailable, match="Connect a microphone"):
        Recorder().start(tmp_path / "x.wav")
    assert not (tmp_path / "x.wav").exists()
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # import fails
    ok, why = rec.input_status()
    assert not ok and "sounddevice" in why


def test_writer_failure_is_reported_and_audio_before_it_kept(tmp_path, monkeypatch):
    sig = ramp(8000)
    r = Recorder(ArrayStream.factory(sig), blocksize=1000)
    calls = {"n": 0}
    orig = WavAppender.append

    def flaky(self, block):
        calls["n"] += 1
        if calls["n"] > 3:
            raise OSError(28, "No space left on device")
        orig(self, block)

    monkeypatch.setattr(WavAppender, "append", flaky)
    r.start(tmp_path / "full.wav")
    deadline = time.monotonic() + 10
    while r.error is None and time.monotonic() < deadline:
        time.sleep(0.005)
    with pytest.raises(RecorderError, match="No space left"):
        r.stop()
    data, _ = sf.read(str(tmp_path / "full.wav"), dtype="int16")
    np.testing.assert_array_equal(data, sig[:3000, 0])
    assert read_sidecar(tmp_path / "full.wav")["status"] == "failed"


# -- crash safety ----------------------------------------------------------------------------
CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    from fairdesk.recording.recorder import ArrayStream, Recorder
    from fairdesk.recording.prompts import load_builtin
    from fairdesk.recording.session import RecordingSession, Speaker
    from fairdesk.core.store import Project
    from tests.recording.test_recorder import ramp

    folder, block = sys.argv[1], int(sys.argv[2])
    prompt = load_builtin("igbo_tonal_minimal_pairs")[2]
    session = RecordingSession(Project(folder), "field", Speaker("spk1", {"accent": "owerri"}),
                               language="ig")
    r = Recorder(ArrayStream.factory(ramp(16000 * 60), realtime=True, speed=2.0),
                 blocksize=block, fsync_every=0.2,
                 on_written=lambda n: print(n, flush=True))
    print("path", session.next_take_path(prompt)[0], flush=True)  # before the acks start
    session.start_take(prompt, r)
    time.sleep(120)
""")


def test_sigkill_mid_recording_then_recover_keeps_what_was_written(tmp_path):
    block = 1024
    folder = tmp_path / "proj"
    Project(folder).close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder), str(block)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(ROOT),
        env=env,
    )
    acked, path = 0, None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            if line.startswith("path "):
                path = Path(line[5:].strip())
            else:
                acked = int(line)
                if acked >= 12 * block:
                    break
        os.kill(child.pid, signal.SIGKILL)  # mid-recording: stream, writer and file open
        rest, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL, err
    acks = [int(x) for x in rest.split() if x.isdigit()]
    last_ack = max([acked, *acks])  # every block the child acknowledged before it died
    assert path is not None and acked >= 12 * block, err

    # Even before recovery the file is a WAV covering every acknowledged block.
    assert read_sidecar(path)["status"] == "recording"
    with wave.open(str(path)) as w:
        assert last_ack <= w.getnframes() <= last_ack + block

    project = Project(folder)
    row = project.conn.execute("SELECT status FROM recordings").fetchone()
    assert row["status"] == "recording"
    out = recover_recordings(project)
    assert [t.status for t in out] == ["recovered"] and out[0].path == path
    n = out[0].frames
    assert last_ack <= n <= last_ack + block
    data, sr = sf.read(str(path), dtype="int16")
    assert sr == 16000 and len(data) == n
    np.testing.assert_array_equal(data, ramp(n)[:, 0])  # the samples themselves, in order
    assert read_sidecar(path)["status"] == "recovered"
    row = project.conn.execute("SELECT status, duration FROM recordings").fetchone()
    assert row["status"] == "recovered" and row["duration"] == pytest.approx(n / 16000)
    assert recover(folder / "recordings") == []  # nothing left to recover


def test_recover_cuts_a_torn_frame_and_reports_unusable_takes(tmp_path):
    w = WavAppender(tmp_path / "t.wav", 16000, 2, "int16")
    w.append(ramp(500, 2))
    os.write(w.fd, ramp(10, 2).tobytes() + b"\x01")  # 10 frames past the header, 1 torn byte
    os.close(w.fd)
    meta = {
        "status": "recording",
        "samplerate": 16000,
        "channels": 2,
        "dtype": "int16",
        "pid": 2**22 + 7,
        "host": None,
    }
    rec._write_json_atomic(rec.sidecar_path(tmp_path / "t.wav"), meta)
    (tmp_path / "empty.wav").write_bytes(b"RIF")
    rec._write_json_atomic(rec.sidecar_path(tmp_path / "empty.wav"), meta)
    out = {t.path.name: t for t in recover(tmp_path)}
    assert out["t.wav"].status == "recovered" and out["t.wav"].frames == 510
    data, _ = sf.read(str(tmp_path / "t.wav"), dtype="int16")
    np.testing.assert_array_equal(data, np.concatenate([ramp(500, 2), ramp(10, 2)]))
    assert out["empty.wav"].status == "failed"
    assert "RIFF" in read_sidecar(tmp_path / "empty.wav")["error"]
    assert (tmp_path / "empty.wav").read_bytes() == b"RIF"  # user files are left alone


def test_recover_leaves_a_take_being_recorded_alone(tmp_path):
    r = Recorder(ArrayStream.factory(ramp(1000)), blocksize=100)
    r.start(tmp_path / "live.wav")
    try:
        assert recover(tmp_path) == []
    finally:
        r.stop()
    assert read_sidecar(tmp_path / "live.wav")["status"] == "done"


# -- sessions --------------------------------------------------------------------------------
@pytest.fixture
def igbo():
    return load_builtin("igbo_tonal_minimal_pairs")


def take_of(session, prompt, seconds=0.3, seed=1):
    sig = rec.synthetic_speech(seconds, seed=seed)
    r = Recorder(ArrayStream.factory(sig), blocksize=512)
    t = session.start_take(prompt, r)
    deadline = time.monotonic() + 10
    while r.frames < len(sig) and time.monotonic() < deadline:
        time.sleep(0.005)
    return session.stop_take(t, r)


def test_accept_take_adds_the_item_with_speaker_metadata_and_content_id(tmp_path, igbo):
    project = Project(tmp_path / "proj")
    spk = Speaker(
        "spk01",
        {"accent": "owerri", "gender": "female", "age": 34, "dialect": "Owerri", "notes": ""},
    )
    s = RecordingSession(project, "igbo-field", spk, language="ig")
    egg = igbo[3]
    t = take_of(s, egg)
    assert t.status == "done" and t.duration == pytest.approx(0.3)
    assert (
        t.path
        == project.folder
        / "recordings/igbo-field/spk01"
        / f"{egg.content_id.replace(':', '-')}_1.wav"
    )
    row = project.conn.execute("SELECT * FROM recordings").fetchone()
    assert (row["status"], row["prompt"], row["speaker_id"]) == ("done", "àkwá", "spk01")
    db_id = s.accept(egg, t)
    ds = project.dataset("igbo-field")
    assert ds.language == "ig" and ds.root == s.root
    items = project.items(ds)
    assert len(items) == 1
    it = items.iloc[0]
    assert it["db_id"] == db_id and it["id"] == f"spk01/{egg.content_id}"
    assert it["text"] == "àkwá" and it["content_id"] == egg.content_id
    assert (it["speaker_id"], it["accent"], it["gender"], it["age"], it["dialect"]) == (
        "spk01",
        "owerri",
        "female",
        34,
        "Owerri",
    )
    assert it["gloss"] == "egg" and it["take"] == 1 and "notes" not in items.columns
    assert s.takes(egg)[0].accepted and s.takes(egg)[0].status == "accepted"
    # the manifest alone rebuilds the same dataset
    rows = [json.loads(x) for x in s.manifest.read_text(encoding="utf-8").splitlines()]
    assert [r["path"] for r in rows] == [f"spk01/{t.path.name}"]


def test_rerecording_keeps_both_takes_and_accepting_again_updates_the_item(tmp_path, igbo):
    project = Project(tmp_path / "proj")
    s = RecordingSession(project, "field", Speaker("spk2"), language="ig")
    cloth = igbo[1]
    t1 = take_of(s, cloth, seed=1)
    s.accept(cloth, t1)
    t2 = take_of(s, cloth, seed=2)
    assert t2.number == 2 and t1.path.exists() and t2.path.exists()
    db_id = s.accept(cloth, t2)
    items = project.items(project.dataset("field"))
    assert len(items) == 1 and items.iloc[0]["db_id"] == db_id
    assert items.iloc[0]["path"] == f"spk2/{t2.path.name}"
    takes = s.takes(cloth)
    assert [(t.number, t.status, t.accepted) for t in takes] == [
        (1, "done", False),
        (2, "accepted", True),
    ]
    assert t1.path.exists()  # the old take stays on disk
    a1, _ = sf.read(str(t1.path), dtype="int16")
    a2, _ = sf.read(str(t2.path), dtype="int16")
    assert not np.array_equal(a1, a2)


def test_a_named_annotators_correction_is_their_own_version(tmp_path, igbo, capsys):
    """Issue 47: a correction made with a name is that annotator's version (NFC, trimmed);
    a second annotator's equal to the first one's is stored too (compared with their own,
    else the prompt's text); ``fairdesk record transcript --annotator`` does the same."""
    from fairdesk.cli import main

    folder = tmp_path / "proj"
    project = Project(folder)
    s = RecordingSession(project, "field", Speaker("spk3"), language="ig")
    p = igbo[0]  # akwa with its prompt's marks
    db_id = s.accept(p, take_of(s, p))
    assert s.version(p, "Ada") is None
    assert s.save_transcript(p, "àkwà", annotator=" Ada ") is not None
    assert s.save_transcript(p, "àkwà", annotator="Ada") is None  # unchanged: no row
    assert s.save_transcript(p, "àkwà", annotator="Obi") is not None  # Obi's own, equal
    assert s.version(p, "Ada") == s.version(p, "Obi") == "àkwà"
    project.close()
    args = ["record", "transcript", "--project", str(folder), "--dataset", "field"]
    args += ["--speaker", "spk3", "--list", "igbo_tonal_minimal_pairs", "--prompt", "1"]
    assert main(args + ["--text", "akwa", "--annotator", "Chi"]) == 0
    again = Project(folder)
    iv = again.transcript_versions([db_id])[db_id]
    assert {v.annotator: v.text for v in iv.versions} == {
        "Ada": "àkwà",
        "Obi": "àkwà",
        "Chi": "akwa",
    }
    again.close()


def test_transcript_correction_is_nfc_and_survives_reopening(tmp_path, igbo):
    folder = tmp_path / "proj"
    project = Project(folder)
    s = RecordingSession(project, "field", Speaker("spk3", {"accent": "nsukka"}), language="ig")
    p = igbo[0]
    t = take_of(s, p)
    db_id = s.accept(p, t)
    with pytest.raises(SessionError, match="accept a take"):
        s.save_transcript(igbo[2], "àkwà")
    with pytest.raises(SessionError, match="empty"):
        s.save_transcript(p, "  ")
    said = unicodedata.normalize("NFD", "ákwà")  # typed with combining marks
    ann = s.save_transcript(p, said)
    assert ann is not None and s.save_transcript(p, said) is None  # unchanged: no new row
    project.close()

    again = Project(folder)
    ds = again.dataset("field")
    text = again.items(ds).iloc[0]["text"]
    assert text == "ákwà" and unicodedata.is_normalized("NFC", text)
    notes = again.annotations(db_id)
    assert [(n["kind"], n["value"]["text"], n["value"]["previous"]) for n in notes] == [
        ("transcript", "ákwà", "ákwá")
    ]
    s2 = RecordingSession(again, "field", Speaker("spk3"), language="ig")
    assert s2.item(p)["text"] == "ákwà" and s2.speakers() == {"spk3": {"accent": "nsukka"}}
    # a fresh import of the manifest gives the corrected text too
    from fairdesk.core.importers import import_dataset

    other = Project(tmp_path / "other")
    import_dataset(other, "copy", s2.manifest, fmt="manifest")
    assert other.items(other.dataset("copy")).iloc[0]["text"] == "ákwà"


def test_session_refuses_unsafe_names_and_reserved_metadata(tmp_path):
    project = Project(tmp_path / "proj")
    with pytest.raises(SessionError, match="speaker id"):
        Speaker("../x")
    with pytest.raises(SessionError, match="empty"):
        Speaker(" ")
    with pytest.raises(SessionError, match="reserved"):
        Speaker("a", {"text": "x"})
    with pytest.raises(SessionError, match="dataset name"):
        RecordingSession(project, "a/b", Speaker("a"))


def test_prompt_with_intent_and_slots_is_kept_on_the_item(tmp_path):
    pl = parse_prompts(
        '{"text": "play hotel california", "intent": "PlayMusic", '
        '"slots": {"song": "hotel california"}}',
        "x.jsonl",
        "jsonl",
    )
    project = Project(tmp_path / "proj")
    s = RecordingSession(project, "music", Speaker("s1"))
    t = take_of(s, pl[0])
    s.accept(pl[0], t)
    it = project.items(project.dataset("music")).iloc[0]
    assert it["intent"] == "PlayMusic" and json.loads(it["slots"]) == {"song": "hotel california"}


def test_record_commands_accept_and_correct_a_take(tmp_path, igbo, capsys):
    import argparse

    from fairdesk.cli import record as cli_record

    ap = argparse.ArgumentParser(prog="fairdesk")
    cli_record.add_command(ap.add_subparsers(dest="command"))

    def run(*args):
        a = ap.parse_args(["record", *args])
        return a.func(a)

    folder = tmp_path / "proj"
    s = RecordingSession(Project(folder), "field", Speaker("s1"), language="ig")
    take_of(s, igbo[3])
    common = [
        "--project",
        str(folder),
        "--dataset",
        "field",
        "--speaker",
        "s1",
        "--meta",
        "accent=owerri",
        "--list",
        "igbo_tonal_minimal_pairs",
    ]
    assert run("accept", *common, "--prompt", "àkwá", "--take", "1") == 0
    assert (
        run(
            "transcript",
            *common,
            "--prompt",
            "4",
            "--text",
            unicodedata.normalize("NFD", "àkwà"),
            "--json",
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert out["text"] == "àkwà" and out["annotation_id"]
    p = Project(folder)
    it = p.items(p.dataset("field")).iloc[0]
    assert (it["text"], it["accent"]) == ("àkwà", "owerri")
    assert run("prompts", "yoruba_tonal_minimal_pairs") == 0
    assert "ọ̀kọ̀" in capsys.readouterr().out
    assert run("recover", "--project", str(folder)) == 0


# -- the header fields, read as raw bytes (soundfile and wave accept a wrong RIFF size) ------
def _riff_fields(path) -> dict:
    """The RIFF/WAVE chunk fields of ``path``, parsed here with struct (not by fairdesk)."""
    import struct

    raw = Path(path).read_bytes()
    assert raw[:4] == b"RIFF" and raw[8:12] == b"WAVE"
    out = {"riff_size": struct.unpack("<I", raw[4:8])[0], "file_size": len(raw), "chunks": []}
    pos = 12
    while pos + 8 <= len(raw):
        cid, size = raw[pos : pos + 4], struct.unpack("<I", raw[pos + 4 : pos + 8])[0]
        out["chunks"].append(cid)
        body = raw[pos + 8 : pos + 8 + size]
        if cid == b"fmt ":
            (
                out["tag"],
                out["channels"],
                out["samplerate"],
                out["byte_rate"],
                out["block_align"],
                out["bits"],
            ) = struct.unpack("<HHIIHH", body[:16])
            out["fmt_size"] = size
        elif cid == b"fact":
            out["fact_frames"] = struct.unpack("<I", body)[0]
        elif cid == b"data":
            out["data_size"], out["data_offset"] = size, pos + 8
            out["data_on_disk"] = len(raw) - (pos + 8)
            break
        pos += 8 + size + (size & 1)
    return out


@pytest.mark.parametrize(
    "dtype,channels,width,tag",
    [("int16", 1, 2, 1), ("int16", 2, 2, 1), ("float32", 1, 4, 3), ("float32", 2, 4, 3)],
)
def test_header_fields_are_exact(tmp_path, dtype, channels, width, tag):
    path = tmp_path / "take.wav"
    w = WavAppender(path, 22050, channels, dtype)
    h = _riff_fields(path)  # valid before any audio: zero-length data chunk
    assert h["riff_size"] == h["file_size"] - 8 and h["data_size"] == 0
    w.append(ramp(700, channels, dtype))
    w.append(ramp(301, channels, dtype))
    h = _riff_fields(path)  # valid after every block, before close
    assert h["riff_size"] == h["file_size"] - 8
    assert h["data_size"] == 1001 * channels * width == h["data_on_disk"]
    w.close()
    h = _riff_fields(path)
    assert h["riff_size"] == h["file_size"] - 8
    assert h["data_size"] == h["data_on_disk"] == 1001 * channels * width
    assert (h["tag"], h["channels"], h["samplerate"], h["bits"]) == (
        tag,
        channels,
        22050,
        8 * width,
    )
    assert h["block_align"] == channels * width
    assert h["byte_rate"] == 22050 * channels * width
    if tag == 1:
        assert h["fmt_size"] == 16 and h["chunks"] == [b"fmt ", b"data"]
    else:  # IEEE float: an 18-byte fmt (cbSize) and a fact chunk with the frame count
        assert h["fmt_size"] == 18 and h["chunks"] == [b"fmt ", b"fact", b"data"]
        assert h["fact_frames"] == 1001


@pytest.mark.parametrize("dtype,width", [("int16", 2), ("float32", 4)])
def test_header_fields_after_crash_recovery(tmp_path, dtype, width):
    path = tmp_path / "t.wav"
    w = WavAppender(path, 16000, 2, dtype)
    w.append(ramp(500, 2, dtype))
    # a crash: 10 more frames and a torn byte reach the disk, the header never sees them
    os.write(w.fd, ramp(10, 2, dtype).tobytes() + b"\x01")
    os.close(w.fd)
    before = _riff_fields(path)
    assert before["data_size"] == 500 * 2 * width  # the header still covers 500 frames
    meta = {
        "status": "recording",
        "samplerate": 16000,
        "channels": 2,
        "dtype": dtype,
        "pid": 2**22 + 7,
        "host": None,
    }
    rec._write_json_atomic(rec.sidecar_path(path), meta)
    (take,) = recover(tmp_path)
    assert take.status == "recovered" and take.frames == 510
    h = _riff_fields(path)
    assert h["file_size"] == h["data_offset"] + 510 * 2 * width  # the torn byte is cut
    assert h["riff_size"] == h["file_size"] - 8
    assert h["data_size"] == h["data_on_disk"] == 510 * 2 * width
    assert (h["channels"], h["samplerate"], h["block_align"]) == (2, 16000, 2 * width)
    if dtype == "float32":
        assert h["fact_frames"] == 510


def _dead_pid() -> int:
    """The id of a process that has just exited (so no process has it now)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_recover_reports_every_field_of_the_take_and_its_sidecar(tmp_path):
    path = tmp_path / "t.wav"
    w = WavAppender(path, 22050, 2, "float32")
    w.append(ramp(300, 2, "float32"))
    os.close(w.fd)  # a crash: the sidecar still says "recording"
    meta = {
        "status": "recording",
        "samplerate": 22050,
        "channels": 2,
        "dtype": "float32",
        "pid": _dead_pid(),
        "host": None,
        "overflows": 3,
        "speaker": "s1",
    }
    rec._write_json_atomic(rec.sidecar_path(path), meta)
    t0 = time.time()
    (take,) = recover(tmp_path)
    assert (
        take.path,
        take.samplerate,
        take.channels,
        take.frames,
        take.dtype,
        take.overflows,
        take.status,
    ) == (path, 22050, 2, 300, "float32", 3, "recovered")
    side = read_sidecar(path)
    assert take.meta == side
    assert side["status"] == "recovered" and side["frames"] == 300
    assert side["duration"] == pytest.approx(300 / 22050)
    assert t0 <= side["recovered_at"] <= time.time()
    assert side["speaker"] == "s1" and side["overflows"] == 3  # the rest is kept

    # a take whose file is gone: failed, with the format the sidecar gave and why
    gone = tmp_path / "gone.wav"
    rec._write_json_atomic(rec.sidecar_path(gone), {**meta, "pid": _dead_pid()})
    (take,) = recover(tmp_path)
    assert (
        take.path,
        take.samplerate,
        take.channels,
        take.frames,
        take.dtype,
        take.overflows,
        take.status,
    ) == (gone, 22050, 2, 0, "float32", 3, "failed")
    side = read_sidecar(gone)
    assert take.meta == side and side["status"] == "failed"
    assert side["error"] == "cannot recover: the take's file is missing"
    assert t0 <= side["recovered_at"] <= time.time()
    assert recover(tmp_path) == []  # neither is "recording" any more


def test_recover_reads_only_what_a_sidecar_omits_from_the_defaults(tmp_path):
    gone = tmp_path / "gone.wav"
    rec._write_json_atomic(rec.sidecar_path(gone), {"status": "recording"})
    (take,) = recover(tmp_path)
    assert (take.samplerate, take.channels, take.dtype, take.overflows, take.status) == (
        16000,
        1,
        "int16",
        0,
        "failed",
    )


# -- the parts of the recorder, driven directly ------------------------------------------------
def _wav_bytes(*chunks: tuple[bytes, bytes]) -> bytes:
    import struct

    body = b"WAVE"
    for cid, data in chunks:
        body += cid + struct.pack("<I", len(data)) + data + (b"\0" if len(data) & 1 else b"")
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_parse_wav_reads_chunks_and_names_what_is_wrong(tmp_path):
    import struct

    fmt = struct.pack("<HHIIHH", 1, 2, 22050, 22050 * 4, 4, 16)
    p = tmp_path / "x.wav"
    # an odd-sized LIST chunk (padded) before fmt, then data
    p.write_bytes(_wav_bytes((b"LIST", b"abc"), (b"fmt ", fmt), (b"data", b"\1\2\3\4")))
    h = rec._parse_wav(p)
    assert h == {
        "tag": 1,
        "channels": 2,
        "samplerate": 22050,
        "frame_bytes": 4,
        "bits": 16,
        "data_offset": 12 + 12 + 8 + 16 + 8,
        "size_at": 12 + 12 + 8 + 16 + 4,
        "fact_at": None,
        "declared": 4,
    }
    p.write_bytes(_wav_bytes((b"fmt ", fmt), (b"fact", b"\0\0\0\0"), (b"data", b"")))
    assert rec._parse_wav(p)["fact_at"] == 12 + 8 + 16 + 8
    cases = {
        b"RIFX\0\0\0\0WAVE": "no RIFF/WAVE header (the recorder stopped before writing it)",
        b"RIFF\0\0\0\0AVI ": "no RIFF/WAVE header (the recorder stopped before writing it)",
        b"RIFF\0\0\0\0WAV": "no RIFF/WAVE header (the recorder stopped before writing it)",
        b"RIFF\0\0\0\0WAVE": "no data chunk in the header",
        _wav_bytes((b"fmt ", fmt)): "no data chunk in the header",
        _wav_bytes((b"data", b"\0\0"), (b"fmt ", fmt)): "data chunk before the fmt chunk",
    }
    for raw, message in cases.items():
        p.write_bytes(raw)
        with pytest.raises(ValueError) as e:
            rec._parse_wav(p)
        assert str(e.value) == message, raw
    # a data chunk header that ends exactly at the end of what was written is found
    p.write_bytes(_wav_bytes((b"fmt ", fmt)) + b"data\0\0\0\0")
    assert rec._parse_wav(p)["data_offset"] == 12 + 8 + 16 + 8


def test_measure_level_and_envelope_across_blocks():
    r = Recorder(ArrayStream.factory(ramp(10)), dtype="int16")
    assert r.envelope().shape == (0, 2) and r.envelope().dtype == np.float32
    sig = ramp(1000, 2)  # stereo int16
    for start in range(0, 1000, 100):  # blocks shorter than one envelope hop
        r._measure(sig[start : start + 100])
    mono = sig.astype(np.float32).mean(axis=1) / 32768.0
    hop = rec.ENVELOPE_HOP
    n = len(mono) // hop
    want = np.stack(
        [mono[: n * hop].reshape(n, hop).min(axis=1), mono[: n * hop].reshape(n, hop).max(axis=1)],
        axis=1,
    )
    np.testing.assert_allclose(r.envelope(), want, rtol=0, atol=1e-7)
    last = sig[900:1000].astype(np.float32) / 32768.0  # the level is the last block's
    assert r.level.rms == pytest.approx(float(np.sqrt(np.mean(last.mean(axis=1) ** 2))))
    assert r.level.peak == pytest.approx(float(np.abs(last).max()))
    f = Recorder(ArrayStream.factory(ramp(10)), dtype="float32")
    f._measure(np.full(hop, 0.5, np.float32))  # mono float32, full scale 1
    assert f.level.peak == pytest.approx(0.5) and f.envelope().tolist() == [[0.5, 0.5]]


class _FlaggingStream:
    """Feeds ``n`` blocks; the status flag (an overflow) is set on the blocks in ``flagged``."""

    def __init__(self, signal, blocksize, callback, flagged):
        self.signal, self.blocksize, self.callback, self.flagged = (
            signal,
            blocksize,
            callback,
            flagged,
        )
        self._thread = None

    def start(self):
        import threading

        def run():
            for i, s in enumerate(range(0, len(self.signal), self.blocksize)):
                self.callback(
                    self.signal[s : s + self.blocksize],
                    self.blocksize,
                    None,
                    "input overflow" if i in self.flagged else None,
                )

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self):
        self._thread.join()

    def close(self):
        pass


def test_overflows_are_counted_and_fsync_follows_its_period(tmp_path, monkeypatch):
    syncs = []
    monkeypatch.setattr(WavAppender, "sync", lambda self: syncs.append(self.frames))
    sig = ramp(1000)

    def factory(flagged):
        return lambda sr, ch, dtype, bs, cb, device=None: _FlaggingStream(sig, bs, cb, flagged)

    r = Recorder(factory({1, 4, 5}), blocksize=100, fsync_every=1e9)
    take = record_all(r, tmp_path / "a.wav", len(sig))
    assert take.frames == 1000 and take.overflows == 3
    assert read_sidecar(tmp_path / "a.wav")["overflows"] == 3
    assert syncs == []  # the period never elapsed (close() syncs on its own)
    r = Recorder(factory(set()), blocksize=100, fsync_every=0.0)
    take = record_all(r, tmp_path / "b.wav", len(sig))
    assert take.overflows == 0 and syncs == list(range(100, 1001, 100))  # after every block
