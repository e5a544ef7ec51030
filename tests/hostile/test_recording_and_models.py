"""Recording crash recovery by OS lock (not PID), a failed take leaving nothing behind, and
model folders whose weight index points at a pickle."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fairdesk.recording import recorder as rec
from fairdesk.recording.recorder import recover
from fairdesk.recording.wavfile import WavAppender, read_sidecar, sidecar_path

from .conftest import dump

ROOT = Path(__file__).resolve().parents[2]
META = {"status": "recording", "samplerate": 16000, "channels": 1, "dtype": "int16", "host": None}


def _crashed_take(path: Path, pid: int) -> None:
    import numpy as np

    w = WavAppender(path, 16000, 1, "int16")
    w.append(np.arange(800, dtype=np.int16)[:, None])
    os.close(w.fd)  # the writer "dies": its lock goes with its descriptor
    rec._write_json_atomic(sidecar_path(path), {**META, "pid": pid})


@pytest.mark.parametrize("pid", [os.getppid(), 1])
def test_crashed_take_whose_pid_is_reused_is_recovered(tmp_path, pid):
    # the PID recorded in the sidecar now belongs to a live process: recovery must not care
    _crashed_take(tmp_path / "t.wav", pid)
    out = recover(tmp_path)
    assert [t.status for t in out] == ["recovered"] and out[0].frames == 800
    assert read_sidecar(tmp_path / "t.wav")["status"] == "recovered"


def test_take_locked_by_a_live_writer_is_left_alone_until_it_dies(tmp_path):
    wav = tmp_path / "live.wav"
    code = (
        "import numpy as np, time; from fairdesk.recording.wavfile import WavAppender; "
        f"w = WavAppender({str(wav)!r}, 16000, 1, 'int16'); "
        "w.append(np.zeros((160, 1), np.int16)); print('writing', flush=True); "
        "time.sleep(600)"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert child.stdout.readline().strip() == "writing"
        rec._write_json_atomic(sidecar_path(wav), {**META, "pid": 2**22 + 11})
        assert recover(tmp_path) == []  # locked: someone writes it, whatever the PID says
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    out = recover(tmp_path)
    assert [t.status for t in out] == ["recovered"] and out[0].frames == 160


def _take_args(proj):
    return [
        "record",
        "take",
        "--project",
        str(proj),
        "--dataset",
        "field",
        "--speaker",
        "s1",
        "--list",
        "igbo_tonal_minimal_pairs",
        "--prompt",
        "1",
        "--seconds",
        "1",
    ]


def test_record_take_without_a_device_creates_nothing(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(
        rec,
        "input_status",
        lambda device=None: (False, "Recording unavailable: no input device; plug in a microphone"),
    )
    proj = tmp_path / "proj"
    code, out, err = cli(*_take_args(proj))
    assert code == 1 and "no input device" in err and "plug in a microphone" in err
    assert not proj.exists()  # no project, no dataset, no folder


def test_record_take_failing_to_start_leaves_no_empty_dataset(cli, base, monkeypatch):
    proj, _ = base
    monkeypatch.setattr(rec, "input_status", lambda device=None: (True, "input: fake"))

    def broken(*a, **k):
        raise rec.RecorderUnavailable("the audio input refused 16000 Hz; pick another device")

    monkeypatch.setattr(rec, "sounddevice_stream", broken)
    monkeypatch.setattr(rec.Recorder, "__init__", _factory_init(broken))
    before = dump(proj)
    code, out, err = cli(*_take_args(proj))
    assert code == 1 and "refused 16000 Hz" in err and "pick another device" in err
    assert dump(proj) == before  # no dataset row, no recordings row
    assert not (proj / "recordings" / "field").exists()


def _factory_init(factory):
    orig = rec.Recorder.__init__

    def init(self, stream_factory=None, **kw):
        orig(self, factory, **kw)

    return init


def _hf_folder(tmp_path, shard: str) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps({"architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper"})
    )
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": {"a.weight": shard, "b.weight": shard}})
    )
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04not a real pickle")
    return folder


@pytest.mark.parametrize(
    "shard,says",
    [
        ("pytorch_model.bin", "not a safetensors file"),
        ("../outside.safetensors", "outside the model folder"),
        ("missing.safetensors", "which is missing"),
    ],
)
def test_weight_index_pointing_at_a_pickle_is_refused(cli, base, tmp_path, shard, says):
    proj, _ = base
    folder = _hf_folder(tmp_path, shard)
    before = dump(proj)
    code, _, err = cli(
        "audit", "--project", proj, "--dataset", "base", "--model", f"hf:{folder}", "--by", "accent"
    )
    assert code == 2 and says in err and "model.safetensors.index.json" in err
    assert repr(shard) in err
    assert dump(proj) == before
    if shard.endswith(".bin"):
        assert "safe_serialization=True" in err and "arbitrary code" in err


def test_weight_index_check_runs_before_torch(tmp_path):
    from fairdesk.models.hf_folder import detect_kind

    folder = _hf_folder(tmp_path, "pytorch_model.bin")
    with pytest.raises(ValueError, match="arbitrary code"):
        detect_kind(folder)
