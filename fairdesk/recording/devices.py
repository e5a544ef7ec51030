"""Audio devices: listing them (:func:`query_devices`), the default output, the sounddevice
input stream (imported lazily), and an in-memory stand-in for tests and demos that plays an
array through the same callback.

This is the one module outside ``fairdesk/gui`` that may import sounddevice
(``tests/test_boundaries.py``); the GUI's device pickers (:mod:`fairdesk.gui.audio.devices`) are
widgets over :func:`query_devices`.

Importing this module touches no device; sounddevice is imported when a stream is opened.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..constants import SAMPLE_RATE
from ..core.plurals import count
from .wavfile import RecorderError


class RecorderUnavailable(RecorderError):
    """No audio input can be used here: PortAudio or the input device is missing."""


# -- device ------------------------------------------------------------------------------
_NO_PORTAUDIO = (
    "the PortAudio library is missing ({exc}). Install it (Debian/Ubuntu: "
    "sudo apt-get install libportaudio2; macOS and Windows: reinstall the "
    "sounddevice package) and restart fairdesk"
)
_NO_INPUT = (
    "no audio input device found ({exc}). Connect a microphone or USB audio "
    "interface, check that the system sees it (and that fairdesk may use it), then "
    "restart fairdesk"
)


#: What to do when no device is found (shown in the panel; no restart needed).
NO_DEVICE_HELP = (
    "Connect a microphone or USB audio interface, check that the system sees it "
    "(and that fairdesk may use it), then press Rescan. Or record from a file: the "
    "File… button beside Input in the Audio box, File ▸ Record from an audio file…, or "
    "start with fairdesk gui --input-file WAV."
)


@dataclass(frozen=True)
class Device:
    """One PortAudio device."""

    index: int
    name: str
    inputs: int
    outputs: int
    samplerate: float
    default_in: bool = False
    default_out: bool = False

    def label(self) -> str:
        return f"{self.name} ({int(self.samplerate)} Hz)"


def query_devices(rescan: bool = False) -> tuple[list[Device], str]:
    """The audio devices and a message ('' when all is well, else what is wrong and what to do).

    Parameters
    ----------
    rescan : re-initialise PortAudio first, so devices plugged in since start appear.
    """
    try:
        import sounddevice as sd
    except OSError as exc:
        return [], (
            f"The PortAudio library is missing ({exc}). Install it (Debian/Ubuntu: "
            "sudo apt-get install libportaudio2), then press Rescan."
        )
    except ImportError as exc:
        return [], f"The sounddevice package is not installed ({exc}): pip install 'fairdesk[gui]'."
    if rescan:
        try:  # PortAudio lists devices once per initialisation
            sd._terminate()
            sd._initialize()
        except Exception:  # noqa: BLE001 - a failed re-init shows as "no device" below
            pass
    try:
        raw = sd.query_devices()
        default_in, default_out = (int(x) for x in sd.default.device)
    except Exception as exc:  # noqa: BLE001 - PortAudioError
        return [], f"Audio devices cannot be listed ({exc}). {NO_DEVICE_HELP}"
    out = [
        Device(
            int(d.get("index", i)),
            str(d.get("name", f"device {i}")),
            int(d.get("max_input_channels", 0)),
            int(d.get("max_output_channels", 0)),
            float(d.get("default_samplerate", 0) or 0),
            i == default_in,
            i == default_out,
        )
        for i, d in enumerate(raw)
    ]
    if not any(d.inputs for d in out):
        return out, f"No audio input device found. {NO_DEVICE_HELP}"
    return out, ""


def set_default_output(index: int | None) -> None:
    """Make ``index`` sounddevice's default output (None: the system default)."""
    try:
        import sounddevice as sd
    except (OSError, ImportError):
        return
    cur = list(sd.default.device)
    cur[1] = -1 if index is None else int(index)
    sd.default.device = cur


def input_status(device=None) -> tuple[bool, str]:
    """Whether audio can be recorded here and, if not, why and what to do.

    sounddevice is imported here, lazily; importing this module touches no device.
    """
    try:
        import sounddevice as sd
    except OSError as exc:
        return False, "Recording unavailable: " + _NO_PORTAUDIO.format(exc=exc)
    except ImportError as exc:
        from ..core.extras import missing_extra_message

        return False, "Recording unavailable: " + missing_extra_message(
            "recording", "gui", getattr(exc, "name", None) or "sounddevice"
        )
    try:
        info = sd.query_devices(device, kind="input")
    except Exception as exc:  # noqa: BLE001 - PortAudioError / ValueError: no such device
        return False, "Recording unavailable: " + _NO_INPUT.format(exc=exc)
    if not info or int(info.get("max_input_channels", 0)) < 1:
        return False, "Recording unavailable: " + _NO_INPUT.format(exc="no input channels")
    return True, f"input: {info.get('name', 'default')}"


def sounddevice_stream(
    samplerate: int, channels: int, dtype: str, blocksize: int, callback: Callable, device=None
):
    """The real input stream (sounddevice, imported lazily).

    Raises
    ------
    RecorderUnavailable
        PortAudio is missing, there is no input device, or it refused the format.
    """
    try:
        import sounddevice as sd
    except OSError as exc:
        raise RecorderUnavailable(_NO_PORTAUDIO.format(exc=exc)) from None
    except ImportError as exc:
        from ..core.extras import missing_extra_message

        raise RecorderUnavailable(
            missing_extra_message("recording", "gui", getattr(exc, "name", None) or "sounddevice")
        ) from None
    try:
        return sd.InputStream(
            samplerate=samplerate,
            channels=channels,
            dtype=dtype,
            blocksize=blocksize,
            callback=callback,
            device=device,
        )
    except Exception as exc:  # noqa: BLE001 - PortAudioError, ValueError
        ok, why = input_status(device)
        if not ok:
            raise RecorderUnavailable(why.removeprefix("Recording unavailable: ")) from None
        raise RecorderUnavailable(
            f"the audio input refused {samplerate} Hz, {count(channels, 'channel')}, {dtype} "
            f"({exc}); "
            "choose another sample rate or device"
        ) from None


class ArrayStream:
    """A synthetic input stream: feeds ``signal`` to the callback block by block from a
    thread, like a device would (for tests, demos and screenshots; no audio device).

    Parameters
    ----------
    signal : (frames,) or (frames, channels) array in the stream's dtype.
    realtime : pace the blocks at the sample rate times ``speed`` (False: as fast as possible).
    loop : start again at the end (else the stream stays open and silent, like a device
        whose user stopped talking).
    """

    def __init__(
        self,
        signal,
        samplerate,
        channels,
        dtype,
        blocksize,
        callback,
        realtime: bool = False,
        speed: float = 1.0,
        loop: bool = False,
    ):
        sig = np.asarray(signal, dtype=dtype)
        self.signal = sig[:, None] if sig.ndim == 1 else sig
        if self.signal.shape[1] != channels:
            self.signal = np.repeat(self.signal[:, :1], channels, axis=1)
        self.samplerate, self.blocksize, self.callback = samplerate, blocksize, callback
        self.realtime, self.speed, self.loop = realtime, speed, loop
        self.fed = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def factory(cls, signal, **kw) -> Callable:
        """A stream factory for :class:`Recorder` that plays ``signal``."""

        def make(samplerate, channels, dtype, blocksize, callback, device=None):
            return cls(signal, samplerate, channels, dtype, blocksize, callback, **kw)

        return make

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="fairdesk-array-stream", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pos, n, t0, sent = 0, len(self.signal), time.monotonic(), 0
        while not self._stop.is_set():
            if pos >= n:
                if not self.loop:
                    self._stop.wait(0.05)
                    continue
                pos = 0
            block = self.signal[pos : pos + self.blocksize]
            pos += len(block)
            self.callback(block, len(block), None, None)
            self.fed += len(block)
            sent += len(block)
            if self.realtime:
                due = t0 + sent / (self.samplerate * self.speed)
                self._stop.wait(max(0.0, due - time.monotonic()))

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def close(self) -> None:
        self.stop()


def synthetic_speech(
    seconds: float = 2.0, samplerate: int = SAMPLE_RATE, seed: int = 0, dtype: str = "int16"
) -> np.ndarray:
    """Speech-like test signal: voiced syllables (harmonics of a gliding pitch) in bursts."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * samplerate)) / samplerate
    f0 = 140 + 30 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(f0) / samplerate
    voiced = sum(np.sin(k * phase) / k for k in range(1, 6))
    syll = np.clip(np.sin(2 * np.pi * 3.2 * t), 0, None) ** 1.5
    syll *= (t > 0.15) & (t < seconds - 0.15)
    x = 0.35 * voiced * syll + 0.003 * rng.standard_normal(t.size)
    x = np.clip(x, -0.99, 0.99).astype(np.float32)
    return (x * 32767).astype(np.int16) if dtype == "int16" else x
