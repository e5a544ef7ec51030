"""Which input the Record tab records from: the device chosen in the Audio box, or an audio
file played as the microphone, and, when neither can record, the reason and what to do."""

from __future__ import annotations

from ...recording import recorder as rec
from ..audio.devices import FILE_INPUT


def no_input_advice(message: str) -> str:
    """The recorder's no-input message with what to do here: press Rescan (no restart), or
    record from a file (the Audio box's File… button,
    :class:`fairdesk.gui.audio.devices.DeviceBox`, or the File menu's Record from an audio
    file…)."""
    msg = message.strip()
    for old in ("and restart fairdesk", "then restart fairdesk"):
        msg = msg.replace(old, "then press Rescan")
    if "Rescan" not in msg:
        msg = msg.rstrip(".") + ". Connect a device and press Rescan."
    if "record from a file" in msg.lower():  # the device listing's help says it already
        return msg
    return msg.rstrip(".") + (
        ", or record from a file (the File… button beside Input in the Audio box, or "
        "File ▸ Record from an audio file…)."
    )


def choose_input(devices, file_speed: float):
    """``(stream_factory, can_record, reason)`` for the Audio box's choice (``devices``, a
    :class:`fairdesk.gui.audio.devices.DeviceBox`); the factory is None when the file cannot
    be used, and ``reason`` is empty when recording can start."""
    choice = devices.input_choice()
    if choice == FILE_INPUT:
        from ...core.errors import AudioError
        from ...recording.file_source import file_stream_factory

        try:
            return file_stream_factory(devices.input_file, speed=file_speed), True, ""
        except (AudioError, OSError) as exc:
            return (
                None,
                False,
                f"Recording unavailable: the input file cannot be used ({exc}). Choose "
                "another file or a device.",
            )

    def factory(samplerate, channels, dtype, blocksize, callback, _device=None):
        return rec.sounddevice_stream(
            samplerate, channels, dtype, blocksize, callback, device=choice
        )

    if devices.has_input():
        ok, why = rec.input_status(choice)
    else:
        ok, why = False, "Recording unavailable: " + (devices.message or "no audio input device.")
    return factory, ok, ("" if ok else no_input_advice(why))
