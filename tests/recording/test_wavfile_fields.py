"""The recorder's parts driven directly: no audio device, no polling, no subprocess.

A hand-fed stream (the test calls the recorder's callback itself) makes every take
deterministic: ``stop()`` drains the queue, so what was fed is on disk when it returns. These
tests are fast enough for the mutation check (``bench/mutation.py recording``) to run them on
every mutant; each asserts what a user would see: the file's header fields, the sidecar's
fields, the take's fields and the messages.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from fairdesk.recording import recorder as rec
from fairdesk.recording import wavfile
from fairdesk.recording.recorder import (
    Level,
    RecordedTake,
    Recorder,
    RecorderError,
    RecorderUnavailable,
    WavAppender,
    read_sidecar,
    recover,
)


def ramp(n: int, channels: int = 1, dtype: str = "int16") -> np.ndarray:
    i = np.arange(n * channels, dtype=np.int64).reshape(n, channels)
    if dtype == "int16":
        return ((i * 7919) % 65536 - 32768).astype(np.int16)
    return (((i * 7919) % 20001) / 10000.0 - 1.0).astype(np.float32)


class HandStream:
    """A stream the test feeds by calling ``feed``; records what the recorder asked of it."""

    made: list[HandStream] = []

    def __init__(
        self, samplerate, channels, dtype, blocksize, callback, device=None, on_start=None
    ):
        self.args = (samplerate, channels, dtype, blocksize, device)
        self.callback, self.on_start = callback, on_start
        self.calls: list[str] = []
        HandStream.made.append(self)

    @classmethod
    def factory(cls, on_start=None, on_make=None):
        def make(samplerate, channels, dtype, blocksize, callback, device=None):
            if on_make is not None:
                on_make()
            return cls(samplerate, channels, dtype, blocksize, callback, device, on_start)

        return make

    def feed(self, block, status=None):
        self.callback(block, len(block), None, status)

    def start(self):
        self.calls.append("start")
        if self.on_start is not None:
            self.on_start(self)

    def stop(self):
        self.calls.append("stop")

    def close(self):
        self.calls.append("close")


@pytest.fixture(autouse=True)
def _fresh():
    HandStream.made.clear()
    yield
    HandStream.made.clear()


def _fields(path) -> dict:
    """RIFF size, fmt fields and data size of ``path``, parsed here with struct."""
    raw = Path(path).read_bytes()
    out = {"riff": struct.unpack("<I", raw[4:8])[0], "size": len(raw)}
    pos = 12
    while pos + 8 <= len(raw):
        cid, size = raw[pos : pos + 4], struct.unpack("<I", raw[pos + 4 : pos + 8])[0]
        if cid == b"fmt ":
            out["fmt"] = struct.unpack("<HHIIHH", raw[pos + 8 : pos + 24])
            if size == 18:
                out["cbsize"] = struct.unpack("<H", raw[pos + 24 : pos + 26])[0]
        elif cid == b"fact":
            out["fact"] = struct.unpack("<I", raw[pos + 8 : pos + 12])[0]
        elif cid == b"data":
            out["data"], out["data_offset"] = size, pos + 8
            break
        pos += 8 + size + (size & 1)
    return out


# -- WavAppender ---------------------------------------------------------------------------
def test_appender_refuses_an_unknown_format_and_a_block_of_the_wrong_width(tmp_path):
    with pytest.raises(RecorderError) as e:
        WavAppender(tmp_path / "x.wav", 16000, 1, "int24")
    assert str(e.value) == "sample format 'int24' is not supported; use int16 or float32"
    assert not (tmp_path / "x.wav").exists()
    w = WavAppender(tmp_path / "a.wav", 16000, 2)
    with pytest.raises(RecorderError) as e:
        w.append(ramp(10, 3))
    assert str(e.value) == f"{tmp_path / 'a.wav'}: a block has 3 channels, the take 2"
    w.append(ramp(10, 2))
    w.close()
    assert _fields(tmp_path / "a.wav")["data"] == 40  # the refused block left no bytes


def test_appender_takes_a_mono_vector_and_never_overwrites(tmp_path):
    path = tmp_path / "m.wav"
    w = WavAppender(path, 8000, 1)
    w.append(ramp(100)[:, 0])  # 1-D: one channel
    assert w.frames == 100 and w.frame_bytes == 2 and w.data_offset == 44
    w.close()
    with pytest.raises(FileExistsError):
        WavAppender(path, 8000, 1)
    data, sr = sf.read(str(path), dtype="int16")
    assert sr == 8000
    np.testing.assert_array_equal(data, ramp(100)[:, 0])


def test_a_new_take_is_rw_r_r_and_an_empty_float_take_has_zero_frames(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    path = tmp_path / "new.wav"
    w = WavAppender(path, 16000, 1, "float32")
    assert path.stat().st_mode & 0o777 == 0o644 & ~umask  # like any file the user saves
    h = _fields(path)  # valid before any audio
    assert (h["riff"], h["data"], h["fact"], h["size"]) == (h["size"] - 8, 0, 0, 58)
    w.close()


def test_blocks_of_another_dtype_or_byte_order_are_converted(tmp_path):
    path = tmp_path / "conv.wav"
    w = WavAppender(path, 16000, 1, "int16")
    w.append(ramp(50).astype(">i2"))  # big-endian
    w.append(ramp(50).astype(np.int32))  # wider integers: written as int16
    w.close()
    assert _fields(path)["data"] == 200
    data, _ = sf.read(str(path), dtype="int16")
    np.testing.assert_array_equal(data, np.concatenate([ramp(50), ramp(50)])[:, 0])


def test_short_writes_are_completed(tmp_path, monkeypatch):
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    path = tmp_path / "short.wav"
    w = WavAppender(path, 16000, 1)  # a pipe or a full disk may take a few bytes at a time
    w.append(ramp(40))
    w.close()
    monkeypatch.undo()
    h = _fields(path)
    assert (h["riff"], h["data"], h["size"]) == (36 + 80, 80, 44 + 80)
    data, _ = sf.read(str(path), dtype="int16")
    np.testing.assert_array_equal(data, ramp(40)[:, 0])


def test_close_is_idempotent_and_syncs_the_header(tmp_path):
    path = tmp_path / "c.wav"
    w = WavAppender(path, 16000, 1, "float32")
    w.append(ramp(50, 1, "float32"))
    w.sync()
    w.close()
    assert w.fd == -1
    w.close()  # a second close does nothing (the recorder may close on an error path)
    assert w.fd == -1
    h = _fields(path)
    assert (h["riff"], h["data"], h["fact"]) == (h["size"] - 8, 200, 50)
    assert h["cbsize"] == 0  # IEEE float: no fmt extension bytes


def test_close_leaves_fd_zero_alone_only_when_closed(tmp_path, monkeypatch):
    # an appender whose descriptor happens to be 0 (stdin closed) is still closed and patched
    path = tmp_path / "z.wav"
    w = WavAppender(path, 16000, 1)
    w.append(ramp(5))
    real = w.fd
    closed = []
    monkeypatch.setattr(os, "close", lambda fd: closed.append(fd))
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    w.fd = 0
    patched = []
    monkeypatch.setattr(WavAppender, "_patch", lambda self: patched.append(self.fd))
    w.close()
    assert closed == [0] and patched == [0] and w.fd == -1
    monkeypatch.undo()
    os.close(real)


def test_header_sizes_of_a_take_over_two_gib_are_unsigned(tmp_path):
    # 2**29 stereo float32 frames = 4 GiB of data is beyond a WAV; 2**28 = 2 GiB is not.
    path = tmp_path / "long.wav"
    w = WavAppender(path, 48000, 2, "float32")
    w.frames = 2**28 + 5  # a 93-minute 48 kHz stereo float take (sizes >= 2**31)
    w._patch()
    w.close()
    raw = path.read_bytes()
    nbytes = (2**28 + 5) * 8
    assert nbytes >= 2**31
    assert struct.unpack("<I", raw[4:8])[0] == w.data_offset - 8 + nbytes
    assert struct.unpack("<I", raw[w._size_at : w._size_at + 4])[0] == nbytes
    assert struct.unpack("<I", raw[w._fact_at : w._fact_at + 4])[0] == 2**28 + 5


# -- the writer's lock ------------------------------------------------------------------------
def test_the_lock_is_held_while_writing_and_refuses_a_second_writer(tmp_path):
    path = tmp_path / "l.wav"
    assert wavfile.take_is_locked(tmp_path / "missing.wav") is False
    w = WavAppender(path, 16000, 1)
    assert wavfile.take_is_locked(path) is True
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(RecorderError) as e:
            wavfile.lock_take(fd)
        assert str(e.value) == "the take is being written by another recorder"
    finally:
        os.close(fd)
    w.close()
    assert wavfile.take_is_locked(path) is False
    fd = os.open(path, os.O_RDONLY)
    try:
        wavfile.lock_take(fd)  # free again: a new writer may take it
        assert wavfile.take_is_locked(path) is True
    finally:
        os.close(fd)


# -- sidecar ------------------------------------------------------------------------------------
def test_sidecar_path_read_and_atomic_write(tmp_path):
    wav = tmp_path / "t_1.wav"
    side = wavfile.sidecar_path(wav)
    assert side == tmp_path / "t_1.wav.json"
    assert read_sidecar(wav) is None  # none yet
    wavfile._write_json_atomic(side, {"speaker": "Ọlá", "n": 1})
    text = side.read_text(encoding="utf-8")
    assert text == '{\n "speaker": "Ọlá",\n "n": 1\n}'  # UTF-8 as is, one-space indent
    assert read_sidecar(wav) == {"speaker": "Ọlá", "n": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["t_1.wav.json"]  # no temporary left
    side.write_text("{not json", encoding="utf-8")
    assert read_sidecar(wav) is None


# -- parse --------------------------------------------------------------------------------------
def test_parse_reads_the_first_4_kib_only_and_sizes_unsigned(tmp_path):
    fmt = struct.pack("<HHIIHH", 1, 1, 16000, 32000, 2, 16)
    p = tmp_path / "x.wav"

    def with_pad(n):  # a JUNK chunk of n bytes between fmt and data
        body = (
            b"WAVE"
            + b"fmt "
            + struct.pack("<I", 16)
            + fmt
            + b"JUNK"
            + struct.pack("<I", n)
            + b"\0" * n
            + b"data"
            + struct.pack("<I", 0)
        )
        return b"RIFF" + struct.pack("<I", len(body)) + body

    # the data chunk's header ends at byte 4096 exactly: found; one byte later: not
    ok = 4096 - (12 + 24 + 8 + 8)
    p.write_bytes(with_pad(ok))
    assert wavfile._parse_wav(p)["data_offset"] == 4096
    p.write_bytes(with_pad(ok + 2))
    with pytest.raises(ValueError, match="^no data chunk in the header$"):
        wavfile._parse_wav(p)
    # a declared size >= 2**31 (a long take) reads as the unsigned number it is
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", 2**31 + 6)
    p.write_bytes(b"RIFF" + struct.pack("<I", 0xFFFFFFF0) + body)
    h = wavfile._parse_wav(p)
    assert h["declared"] == 2**31 + 6
    assert (h["tag"], h["bits"], h["channels"], h["samplerate"]) == (1, 16, 1, 16000)
    # a fmt chunk with values above the signed range (a 32-bit tag or rate field)
    big = struct.pack("<HHIIHH", 0xFFFE, 1, 2**31 + 1, 2**31 + 1, 2, 40000)
    p.write_bytes(
        b"RIFF"
        + struct.pack("<I", 36)
        + b"WAVEfmt "
        + struct.pack("<I", 16)
        + big
        + b"data"
        + struct.pack("<I", 0)
    )
    h = wavfile._parse_wav(p)
    assert (h["tag"], h["samplerate"], h["bits"]) == (0xFFFE, 2**31 + 1, 40000)


def test_parse_refuses_a_header_of_fewer_than_12_bytes_and_a_wrong_form(tmp_path):
    p = tmp_path / "x.wav"
    for raw in (b"RIFF\0\0\0\0WAV", b"RIFF\0\0\0\0WAVX", b"RIFX\0\0\0\0WAVE", b"XXXX\0\0\0\0AVI "):
        p.write_bytes(raw)
        with pytest.raises(ValueError) as e:
            wavfile._parse_wav(p)
        assert str(e.value) == "no RIFF/WAVE header (the recorder stopped before writing it)"
    p.write_bytes(b"RIFF\0\0\0\0WAVE")  # 12 bytes: a header, with no chunk
    with pytest.raises(ValueError) as e:
        wavfile._parse_wav(p)
    assert str(e.value) == "no data chunk in the header"


# -- Level, RecordedTake --------------------------------------------------------------------------
def test_level_dbfs_and_take_duration():
    assert Level().dbfs == pytest.approx(-120.0)  # silence floors at -120 dBFS
    assert Level(rms=0.5).dbfs == pytest.approx(20 * np.log10(0.5))
    assert Level(rms=1.0, peak=1.0).dbfs == pytest.approx(0.0)
    t = RecordedTake(Path("a.wav"), 16000, 1, 24000, "int16")
    assert t.duration == pytest.approx(1.5) and t.status == "done" and t.overflows == 0
    assert t.meta == {}


# -- the recorder, fed by hand ----------------------------------------------------------------------
def test_recorder_refuses_an_unknown_format():
    with pytest.raises(RecorderError) as e:
        Recorder(HandStream.factory(), dtype="int8")
    assert str(e.value) == "sample format 'int8' is not supported; use int16 or float32"
    r = Recorder(HandStream.factory())
    assert (r.blocksize, r.dtype, r.fsync_every) == (1024, "int16", 1.0)
    assert r.stream_factory is not None and r.duration == 0.0 and not r.recording
    # what the GUI's display timer reads before any take
    assert (r.samplerate, r.channels, r.frames, r.path, r.error) == (16000, 1, 0, None, None)
    assert r.level == Level() and r.level.dbfs == pytest.approx(-120.0)


def test_a_hand_fed_take_writes_every_field(tmp_path):
    path = tmp_path / "deep" / "er" / "take_1.wav"  # missing folders are made
    r = Recorder(HandStream.factory(), blocksize=256, dtype="float32")
    t0 = time.time()
    r.start(path, 22050, 2, device=7, meta={"speaker": "s1"})
    (stream,) = HandStream.made
    assert stream.args == (22050, 2, "float32", 256, 7) and stream.calls == ["start"]
    assert r.recording and r.path == path
    assert str(path.resolve()) in rec._ACTIVE
    side = read_sidecar(path)  # written before any audio, so a crash leaves it
    assert set(side) == {
        "status",
        "samplerate",
        "channels",
        "dtype",
        "started_at",
        "pid",
        "host",
        "speaker",
    }
    assert (
        side["status"],
        side["samplerate"],
        side["channels"],
        side["dtype"],
        side["pid"],
        side["speaker"],
    ) == ("recording", 22050, 2, "float32", os.getpid(), "s1")
    assert isinstance(side["host"], str) and side["host"]
    assert t0 <= side["started_at"] <= time.time()
    writer = r._writer
    assert writer in threading.enumerate() and writer.name == "fairdesk-take-writer"
    assert writer.daemon  # a stuck writer never keeps a closing app alive
    sig = ramp(1000, 2, "float32")
    for s in range(0, 1000, 250):
        stream.feed(sig[s : s + 250], status="input overflow" if s == 500 else None)
    with pytest.raises(RecorderError) as e:
        r.start(tmp_path / "other.wav")
    assert str(e.value) == f"already recording {path}; stop it first"
    take = r.stop()
    assert stream.calls == ["start", "stop", "close"]
    assert str(path.resolve()) not in rec._ACTIVE and not r.recording
    assert (
        take.path,
        take.samplerate,
        take.channels,
        take.frames,
        take.dtype,
        take.overflows,
        take.status,
    ) == (path, 22050, 2, 1000, "float32", 1, "done")
    side = read_sidecar(path)
    assert take.meta == side
    assert (side["status"], side["frames"], side["overflows"]) == ("done", 1000, 1)
    assert side["duration"] == pytest.approx(1000 / 22050)
    assert side["started_at"] <= side["stopped_at"] <= time.time()
    assert "error" not in side
    assert not wavfile.take_is_locked(path)  # closed: the writer's lock is released
    assert r.frames == 1000 and r.duration == pytest.approx(1000 / 22050)
    data, sr = sf.read(str(path), dtype="float32", always_2d=True)
    assert sr == 22050
    np.testing.assert_array_equal(data, sig)
    h = _fields(path)
    assert (h["riff"], h["data"], h["fact"]) == (h["size"] - 8, 8000, 1000)
    with pytest.raises(RecorderError) as e:
        r.stop()
    assert str(e.value) == "not recording"


def test_an_empty_take_is_a_valid_wav_with_zero_frames(tmp_path):
    r = Recorder(HandStream.factory())
    r.start(tmp_path / "e.wav")
    take = r.stop()
    assert take.frames == 0 and take.duration == 0.0 and take.samplerate == 16000
    assert take.channels == 1 and take.dtype == "int16"
    h = _fields(tmp_path / "e.wav")
    assert (h["riff"], h["size"], h["data"]) == (36, 44, 0)
    assert r.envelope().shape == (0, 2)


def test_a_take_that_appears_while_the_stream_opens_is_not_overwritten(tmp_path):
    path = tmp_path / "race.wav"
    r = Recorder(HandStream.factory(on_make=lambda: path.write_bytes(b"someone's audio")))
    with pytest.raises(RecorderError) as e:
        r.start(path)
    assert str(e.value) == f"{path}: a take with this name exists; it is never overwritten"
    assert path.read_bytes() == b"someone's audio"
    assert HandStream.made[0].calls == ["close"]  # the stream is released
    assert not r.recording and read_sidecar(path) is None


def test_a_take_that_cannot_be_created_says_what_to_check(tmp_path):
    folder = tmp_path / "gone"
    path = folder / "t.wav"
    r = Recorder(HandStream.factory(on_make=lambda: folder.rmdir()))
    with pytest.raises(RecorderError) as e:
        r.start(path)
    assert str(e.value) == (
        f"{path}: cannot create the take (No such file or directory); "
        "check the folder is writable and the disk is not full"
    )
    assert HandStream.made[0].calls == ["close"] and not r.recording


def test_a_stream_that_fails_to_start_leaves_no_empty_take(tmp_path, monkeypatch):
    asked = []

    def status(device=None):
        asked.append(device)
        return True, ""

    monkeypatch.setattr(rec, "input_status", status)

    def boom(stream):
        raise RuntimeError("device busy")

    path = tmp_path / "f.wav"
    r = Recorder(HandStream.factory(on_start=boom))
    with pytest.raises(RecorderUnavailable) as e:
        r.start(path, device="hw:2")
    assert str(e.value) == (
        "the audio input did not start (device busy); check the device and try again"
    )
    assert asked == ["hw:2"]
    assert not path.exists() and not rec.sidecar_path(path).exists()
    assert HandStream.made[0].calls == ["start", "stop", "close"] and not r.recording
    assert str(path.resolve()) not in rec._ACTIVE

    # the input is gone: the message is the device check's, without its prefix
    monkeypatch.setattr(
        rec,
        "input_status",
        lambda device=None: (
            False,
            "Recording unavailable: no audio input device. Connect a microphone",
        ),
    )
    with pytest.raises(RecorderUnavailable) as e:
        Recorder(HandStream.factory(on_start=boom)).start(path)
    assert str(e.value) == "no audio input device. Connect a microphone"


def test_a_stream_that_fails_after_its_first_block_keeps_the_audio(tmp_path, monkeypatch):
    monkeypatch.setattr(rec, "input_status", lambda device=None: (True, ""))

    def one_block_then_fail(stream):
        stream.feed(ramp(300))
        raise RuntimeError("stream died")

    path = tmp_path / "k.wav"
    r = Recorder(HandStream.factory(on_start=one_block_then_fail))
    with pytest.raises(RecorderUnavailable, match="stream died"):
        r.start(path)
    side = read_sidecar(path)
    assert side["status"] == "failed" and side["frames"] == 300
    data, _ = sf.read(str(path), dtype="int16")
    np.testing.assert_array_equal(data, ramp(300)[:, 0])


def test_a_write_failure_is_in_the_sidecar_and_the_message(tmp_path, monkeypatch):
    calls = {"n": 0}
    orig = WavAppender.append

    def flaky(self, block):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        orig(self, block)

    monkeypatch.setattr(WavAppender, "append", flaky)
    acks = []
    path = tmp_path / "full.wav"
    r = Recorder(HandStream.factory(), on_written=acks.append)
    r.start(path)
    (stream,) = HandStream.made
    for i in range(5):
        stream.feed(ramp(1600)[i * 320 : (i + 1) * 320])
    deadline = time.monotonic() + 10
    while not r._queue.empty() and time.monotonic() < deadline:
        time.sleep(0.002)
    assert r._queue.empty()  # after the failure the writer keeps draining: memory stays flat
    with pytest.raises(RecorderError) as e:
        r.stop()
    assert str(e.value) == (
        f"{path}: writing the take failed after 0.0 s ([Errno 28] No space "
        "left on device); the audio before that is kept. Free disk space or "
        "choose another folder"
    )
    assert calls["n"] == 3  # after the failure the blocks are drained, not written
    assert acks == [320, 640] and r.frames == 640
    assert isinstance(r.error, OSError)
    side = read_sidecar(path)
    assert (side["status"], side["frames"], side["error"]) == (
        "failed",
        640,
        "[Errno 28] No space left on device",
    )
    assert side["duration"] == pytest.approx(640 / 16000)
    data, _ = sf.read(str(path), dtype="int16")
    np.testing.assert_array_equal(data, ramp(1600)[:640, 0])
    assert str(path.resolve()) not in rec._ACTIVE


def test_a_take_can_follow_a_take_on_the_same_recorder(tmp_path):
    r = Recorder(HandStream.factory(), dtype="int16")
    r.start(tmp_path / "1.wav")
    HandStream.made[0].feed(ramp(480))
    first = r.stop()
    r.start(tmp_path / "2.wav", 8000)
    HandStream.made[1].feed(ramp(100))
    second = r.stop()
    assert (first.frames, second.frames, second.samplerate) == (480, 100, 8000)
    assert r.envelope().shape == (0, 2)  # the second take's envelope starts afresh
    assert r.level.peak == pytest.approx(float(np.abs(ramp(100) / 32768.0).max()))


def test_the_envelope_is_float32_and_ignores_an_empty_block():
    r = Recorder(HandStream.factory())
    hop = rec.ENVELOPE_HOP
    r._measure(ramp(hop * 3))
    env = r.envelope()
    assert env.dtype == np.float32 and env.shape == (3, 2)
    before = r.level
    r._measure(np.zeros((0, 1), np.int16))
    assert r.level == before and r.envelope().shape == (3, 2)


# -- recovery ----------------------------------------------------------------------------------------
def _crashed(path, dtype="int16", channels=1, frames=100, **meta):
    w = WavAppender(path, 16000, channels, dtype)
    w.append(ramp(frames, channels, dtype))
    os.close(w.fd)  # the writer dies: the lock is released, the sidecar says recording
    side = {
        "status": "recording",
        "samplerate": 16000,
        "channels": channels,
        "dtype": dtype,
        **meta,
    }
    wavfile._write_json_atomic(wavfile.sidecar_path(path), side)


def test_recover_skips_finished_active_and_locked_takes_and_goes_on(tmp_path):
    # sorted by name: each skipped take comes before one that must still be recovered
    _crashed(tmp_path / "a_done.wav")
    wavfile._write_json_atomic(wavfile.sidecar_path(tmp_path / "a_done.wav"), {"status": "done"})
    (tmp_path / "b_garbled.wav").write_bytes(b"")
    wavfile.sidecar_path(tmp_path / "b_garbled.wav").write_text("{", encoding="utf-8")
    r = Recorder(HandStream.factory())
    r.start(tmp_path / "c_active.wav")
    locked = WavAppender(tmp_path / "d_locked.wav", 16000, 1)  # another writer holds it
    wavfile._write_json_atomic(
        wavfile.sidecar_path(tmp_path / "d_locked.wav"), {"status": "recording"}
    )
    _crashed(tmp_path / "e_crashed.wav")
    try:
        out = recover(tmp_path)
    finally:
        r.stop()
        locked.close()
    assert [(t.path.name, t.status) for t in out] == [("e_crashed.wav", "recovered")]
    assert read_sidecar(tmp_path / "a_done.wav") == {"status": "done"}
    assert read_sidecar(tmp_path / "d_locked.wav") == {"status": "recording"}


def test_recover_leaves_this_process_s_live_take_alone_without_file_locks(tmp_path, monkeypatch):
    # where fcntl is missing take_is_locked() is always False: the registry protects the take
    monkeypatch.setattr(rec, "take_is_locked", lambda path: False)
    r = Recorder(HandStream.factory())
    r.start(tmp_path / "a_live.wav")
    _crashed(tmp_path / "b_crashed.wav")
    try:
        out = recover(tmp_path)
    finally:
        r.stop()
    assert [(t.path.name, t.status) for t in out] == [("b_crashed.wav", "recovered")]
    assert read_sidecar(tmp_path / "a_live.wav")["status"] == "done"


def test_recover_an_8_bit_take_with_no_audio(tmp_path):
    # one byte per frame: an empty data chunk stays empty (not one frame)
    path = tmp_path / "u8.wav"
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    body = b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", 0)
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    wavfile._write_json_atomic(wavfile.sidecar_path(path), {"status": "recording"})
    (take,) = recover(tmp_path)
    assert (take.status, take.frames, take.samplerate) == ("recovered", 0, 8000)
    h = _fields(path)
    assert (h["riff"], h["data"], h["size"]) == (36, 0, 44)


def test_recover_a_take_of_over_two_gib(tmp_path):
    # a 93-minute stereo float take at 48 kHz: the header's sizes are >= 2**31 (unsigned)
    path = tmp_path / "long.wav"
    w = WavAppender(path, 48000, 2, "float32")
    w.append(ramp(10, 2, "float32"))
    os.close(w.fd)
    frames = 2**28 + 3
    end = w.data_offset + frames * 8
    with open(path, "r+b") as f:
        f.truncate(end + 5)  # sparse; a torn frame of 5 bytes
    wavfile._write_json_atomic(
        wavfile.sidecar_path(path),
        {"status": "recording", "samplerate": 48000, "channels": 2, "dtype": "float32"},
    )
    (take,) = recover(tmp_path)
    assert (take.status, take.frames, take.samplerate, take.channels) == (
        "recovered",
        frames,
        48000,
        2,
    )
    assert path.stat().st_size == end
    with open(path, "rb") as f:
        head = f.read(w.data_offset)
    assert struct.unpack("<I", head[4:8])[0] == end - 8 >= 2**31
    assert struct.unpack("<I", head[w._size_at : w._size_at + 4])[0] == frames * 8 >= 2**31
    assert struct.unpack("<I", head[w._fact_at : w._fact_at + 4])[0] == frames


def test_recover_takes_the_format_from_the_header_not_the_sidecar(tmp_path):
    path = tmp_path / "h.wav"
    _crashed(path, channels=2, frames=40, overflows=2)
    # the sidecar is wrong about the format; the header decides
    wavfile._write_json_atomic(
        wavfile.sidecar_path(path),
        {
            "status": "recording",
            "samplerate": 44100,
            "channels": 1,
            "dtype": "int16",
            "overflows": 2,
        },
    )
    (take,) = recover(tmp_path)
    assert (take.samplerate, take.channels, take.frames, take.overflows) == (16000, 2, 40, 2)
    side = read_sidecar(path)
    assert side["duration"] == pytest.approx(40 / 16000)


def test_recover_a_take_whose_data_ends_exactly_on_a_frame(tmp_path):
    path = tmp_path / "x.wav"
    _crashed(path, frames=64)
    with open(path, "ab") as f:
        f.write(ramp(6).tobytes())  # whole frames past the header
    size = path.stat().st_size
    (take,) = recover(tmp_path)
    assert take.frames == 70 and path.stat().st_size == size  # nothing is cut
    h = _fields(path)
    assert (h["riff"], h["data"]) == (size - 8, 140)


def test_recover_a_take_with_only_a_header_and_a_torn_byte(tmp_path):
    path = tmp_path / "o.wav"
    w = WavAppender(path, 16000, 1)
    os.write(w.fd, b"\x07")  # one byte of a frame
    os.close(w.fd)
    wavfile._write_json_atomic(wavfile.sidecar_path(path), {"status": "recording"})
    (take,) = recover(tmp_path)
    assert (take.status, take.frames) == ("recovered", 0)
    assert path.stat().st_size == 44
    assert read_sidecar(path)["frames"] == 0


def test_recover_failed_take_says_why_and_keeps_the_sidecar_fields(tmp_path):
    path = tmp_path / "bad.wav"
    path.write_bytes(b"RIFF\0\0\0\0WAVEfmt ")  # the header was cut off
    wavfile._write_json_atomic(
        wavfile.sidecar_path(path),
        {
            "status": "recording",
            "samplerate": 8000,
            "channels": 2,
            "dtype": "float32",
            "overflows": 4,
            "speaker": "s9",
        },
    )
    t0 = time.time()
    (take,) = recover(tmp_path)
    assert (
        take.status,
        take.frames,
        take.samplerate,
        take.channels,
        take.dtype,
        take.overflows,
    ) == ("failed", 0, 8000, 2, "float32", 4)
    side = read_sidecar(path)
    assert take.meta == side
    assert set(side) == {
        "status",
        "samplerate",
        "channels",
        "dtype",
        "overflows",
        "speaker",
        "error",
        "recovered_at",
    }
    assert (
        side["status"] == "failed"
        and side["error"] == "cannot recover: no data chunk in the header"
    )
    assert t0 <= side["recovered_at"] <= time.time()
    assert path.read_bytes() == b"RIFF\0\0\0\0WAVEfmt "


def test_recover_sidecar_of_a_recovered_take_has_its_fields(tmp_path):
    path = tmp_path / "r.wav"
    _crashed(path, frames=30, speaker="s2")
    t0 = time.time()
    (take,) = recover(tmp_path)
    side = read_sidecar(path)
    assert take.meta == side
    assert set(side) == {
        "status",
        "samplerate",
        "channels",
        "dtype",
        "speaker",
        "frames",
        "duration",
        "recovered_at",
    }
    assert (side["status"], side["frames"], side["speaker"]) == ("recovered", 30, "s2")
    assert t0 <= side["recovered_at"] <= time.time()
    assert take.dtype == "int16" and take.overflows == 0
    assert json.loads(wavfile.sidecar_path(path).read_text(encoding="utf-8")) == side


def test_fsync_waits_for_its_period(tmp_path, monkeypatch):
    syncs = []
    monkeypatch.setattr(WavAppender, "sync", lambda self: syncs.append(self.frames))
    r = Recorder(HandStream.factory(), fsync_every=60.0)  # a minute: not within this test
    r.start(tmp_path / "s.wav")
    for _ in range(3):
        HandStream.made[0].feed(ramp(100))
    r.stop()
    assert syncs == []


def test_a_sidecar_reads_back_as_utf8_whatever_the_locale(tmp_path):
    # Windows and C-locale systems have a non-UTF-8 default encoding; the sidecar is UTF-8
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    wav = tmp_path / "t.wav"
    wavfile._write_json_atomic(wavfile.sidecar_path(wav), {"speaker": "Ọlá"})
    assert read_sidecar(wav) == {"speaker": "Ọlá"}  # here, and below under a C locale
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "LC_ALL": "C",
        "LANG": "C",
        "PYTHONUTF8": "0",
        "PYTHONCOERCECLOCALE": "0",
    }
    code = (
        "import sys, locale; from pathlib import Path; "
        "from fairdesk.recording.wavfile import read_sidecar, _write_json_atomic; "
        "_write_json_atomic(Path(sys.argv[2]), {'speaker': '\\u1ecdl\\u00e1'}); "
        "print(locale.getpreferredencoding(False), read_sidecar(sys.argv[1]) is not None)"
    )
    written = tmp_path / "w.json"
    out = subprocess.run(
        [sys.executable, "-c", code, str(wav), str(written)],
        env=env,
        cwd=str(root),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    encoding, ok = out.stdout.split()
    assert encoding.lower().replace("-", "") != "utf8"  # the locale really is not UTF-8
    assert ok == "True"
    assert json.loads(written.read_text(encoding="utf-8")) == {"speaker": "ọlá"}
