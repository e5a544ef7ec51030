"""The Record tab on its own: a quick look, and the offscreen screenshot of a synthetic take.

Open it::

    python -m fairdesk.gui.record.record_shot PROJECT [--synthetic] [--input-file WAV]
                                               [--screenshot OUT.png]
"""

from __future__ import annotations

from pathlib import Path

from ...constants import SAMPLE_RATE
from ...recording import recorder as rec
from ..context import Context
from ..qapp import save_grab
from .record_panel import RecordPanel


def screenshot(
    out_png, project_folder, seconds: float = 1.6, size: tuple[int, int] = (1440, 900)
) -> Path:
    """Open the panel offscreen on ``project_folder`` with a synthetic voice file as the input
    (played as the microphone), record and
    accept a take of the Igbo prompt àkwá, correct its transcript with the palette, and
    save a PNG (the project gets a dataset ``field``)."""
    import time

    from PySide6.QtWidgets import QApplication

    from ..qapp import application

    app = application()
    ctx = Context(project_folder)
    sig = rec.synthetic_speech(seconds)
    # the input is a file played as the microphone (the --input-file path), 4× real time
    import soundfile as sf

    voice = Path(project_folder).parent / "voice.wav"
    voice.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(voice), sig, SAMPLE_RATE, subtype="PCM_16")
    w = RecordPanel(ctx, input_file=voice, file_speed=4.0)
    try:
        w.resize(*size)
        w.show()
        w.speaker_id.setText("spk01")
        w.meta["accent"].setText("owerri")
        w.meta["gender"].setCurrentText("female")
        w.meta["age"].setText("34")
        w.meta["dialect"].setText("Owerri Igbo")
        w.go(3)
        w.start_recording()
        deadline = time.monotonic() + 20
        while w.recorder.frames < len(sig) and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        w.stop_recording()
        w.accept()
        # the speaker said àkwà ('bed'): the linguist puts a low tone on the last vowel
        w.transcript.edit.setFocus()
        w.transcript.edit.end(False)
        w.transcript.insert_mark("\u0300")
        w.transcript.flush()
        for _ in range(5):
            app.processEvents()
        # a second take, so the list shows re-recording
        w.start_recording()
        deadline = time.monotonic() + 20
        while w.recorder.frames < len(sig) // 2 and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        out = Path(out_png)
        out.parent.mkdir(parents=True, exist_ok=True)
        QApplication.processEvents()
        save_grab(w, out)
        w.stop_recording()
        return out
    finally:
        w.shutdown()
        w.close()
        ctx.close()


def main(argv=None) -> int:
    import argparse
    import os
    import tempfile

    ap = argparse.ArgumentParser(description="the Record panel on its own")
    ap.add_argument("project", nargs="?", help="project folder (default: a temporary one)")
    ap.add_argument(
        "--synthetic",
        action="store_true",
        help="record a synthetic voice instead of the sound card",
    )
    ap.add_argument(
        "--input-file", metavar="WAV", help="record from this audio file, played as the microphone"
    )
    ap.add_argument("--screenshot", metavar="PNG", help="save a screenshot offscreen and exit")
    a = ap.parse_args(argv)
    folder = a.project or tempfile.mkdtemp(prefix="fairdesk-record-")
    if a.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        print(screenshot(a.screenshot, folder))
        return 0
    from ..qapp import application

    app = application()
    ctx = Context(folder)
    factory = (
        rec.ArrayStream.factory(rec.synthetic_speech(3.0), realtime=True, loop=True)
        if a.synthetic
        else None
    )
    w = RecordPanel(ctx, stream_factory=factory, input_file=a.input_file)
    w.resize(1300, 860)
    w.show()
    code = app.exec()
    w.shutdown()
    ctx.close()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
