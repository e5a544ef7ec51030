"""A take's sidecar and a session's manifest go through the one atomic writer
(fairdesk.core.atomic): on a full disk the earlier file stays whole, and the recorder says so
as a RecorderError."""

from __future__ import annotations

import errno
import json
import os

import pytest

from fairdesk.core import atomic
from fairdesk.recording import wavfile
from fairdesk.recording.session import _write_atomic


def _full_disk(monkeypatch):
    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", no_space)


def test_a_sidecar_on_a_full_disk_keeps_the_old_one(tmp_path, monkeypatch):
    side = wavfile.sidecar_path(tmp_path / "t.wav")
    wavfile._write_json_atomic(side, {"status": "recording", "speaker": "Ọlá"})
    assert json.loads(side.read_text(encoding="utf-8"))["speaker"] == "Ọlá"
    _full_disk(monkeypatch)
    with pytest.raises(wavfile.RecorderError, match="the disk is full") as e:
        wavfile._write_json_atomic(side, {"status": "done"})
    assert str(side) in str(e.value) and "the earlier file is unchanged" in str(e.value)
    monkeypatch.undo()
    assert json.loads(side.read_text(encoding="utf-8"))["status"] == "recording"
    assert sorted(os.listdir(tmp_path)) == [side.name]


def test_a_session_manifest_is_replaced_whole(tmp_path, monkeypatch):
    m = tmp_path / "manifest.jsonl"
    _write_atomic(m, '{"id": "a"}\n')
    _full_disk(monkeypatch)
    with pytest.raises(atomic.OutputError, match="the disk is full"):
        _write_atomic(m, '{"id": "a"}\n{"id": "b"}\n')
    monkeypatch.undo()
    assert m.read_bytes() == b'{"id": "a"}\n' and os.listdir(tmp_path) == ["manifest.jsonl"]
