"""Device listing (plain code over sounddevice, no Qt): devices with their defaults, a
message with what to do when nothing can record, and the default output."""

from __future__ import annotations

import sys

from fairdesk.recording import devices


class FakeSD:
    """sounddevice with two devices: a microphone (default input) and speakers."""

    class default:  # noqa: N801 - mirrors sounddevice.default
        device = [0, 1]

    raw = [
        {
            "index": 0,
            "name": "Mic",
            "max_input_channels": 1,
            "max_output_channels": 0,
            "default_samplerate": 48000.0,
        },
        {
            "index": 1,
            "name": "Speakers",
            "max_input_channels": 0,
            "max_output_channels": 2,
            "default_samplerate": 44100.0,
        },
    ]
    reinit = 0

    @classmethod
    def query_devices(cls):
        return cls.raw

    @classmethod
    def _terminate(cls):
        cls.reinit += 1

    @classmethod
    def _initialize(cls):
        pass


def test_devices_are_listed_with_their_defaults(monkeypatch):
    monkeypatch.setitem(sys.modules, "sounddevice", FakeSD)
    found, msg = devices.query_devices(rescan=True)
    assert msg == "" and FakeSD.reinit == 1
    assert found == [
        devices.Device(0, "Mic", 1, 0, 48000.0, True, False),
        devices.Device(1, "Speakers", 0, 2, 44100.0, False, True),
    ]
    assert found[0].label() == "Mic (48000 Hz)"
    devices.set_default_output(None)
    assert FakeSD.default.device == [0, -1]
    devices.set_default_output(1)
    assert FakeSD.default.device == [0, 1]


def test_no_input_or_no_sounddevice_says_what_to_do(monkeypatch):
    class OutputsOnly(FakeSD):
        raw = FakeSD.raw[1:]

    monkeypatch.setitem(sys.modules, "sounddevice", OutputsOnly)
    found, msg = devices.query_devices()
    assert [d.name for d in found] == ["Speakers"]
    assert msg.startswith("No audio input device found") and "Rescan" in msg
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # the import fails
    found, msg = devices.query_devices()
    assert found == [] and "pip install 'fairdesk[gui]'" in msg
