"""Audio that cannot carry speech (issue 29): a stereo file whose channels cancel in the
mix-down to mono (R = -L) and a 1 kHz sample rate are imported with a warning stored with
the item (as silence and clipping are), said by ``import``, listed by ``items``, shown by
``show`` and in the GUI's item view; ordinary stereo and 8 kHz telephone audio are not
warned about."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.audio import audio_warnings

from .conftest import changed, dump

CANCEL = "channels cancel when mixed down to mono"
LOW_RATE = "sample rate 1000 Hz is too low to carry speech (under 8000 Hz"


def _tone(sr: int, seconds: float = 0.5, freq: float = 220.0) -> np.ndarray:
    t = np.arange(int(seconds * sr)) / sr
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def _files(root):
    """inverted.wav (R = -L), rate1k.wav (1 kHz), stereo.wav (L = R), tel.wav (8 kHz), in
    a manifest m.csv."""
    x = _tone(16000)
    sf.write(root / "inverted.wav", np.stack([x, -x], axis=1), 16000)
    sf.write(root / "rate1k.wav", _tone(1000, freq=100), 1000)
    sf.write(root / "stereo.wav", np.stack([x, 0.5 * x], axis=1), 16000)
    sf.write(root / "tel.wav", _tone(8000), 8000)
    rows = ["id,path,text,speaker_id,accent"]
    for i, n in enumerate(("inverted", "rate1k", "stereo", "tel")):
        rows.append(f"{n},{n}.wav,play song,s{i},{'x' if i % 2 else 'y'}")
    (root / "m.csv").write_text("\n".join(rows) + "\n")
    return root / "m.csv"


def test_warnings_of_the_signal_itself():
    x = _tone(16000)
    (w,) = audio_warnings(np.stack([x, -x], axis=1), 16000)
    assert CANCEL in w and "R = -L" in w and "re-export the file with one channel" in w
    (w,) = audio_warnings(_tone(1000)[:, None], 1000)
    assert w.startswith(LOW_RATE) and "nothing above 0.5 kHz is kept" in w
    assert audio_warnings(np.stack([x, x], axis=1), 16000) == ()
    # uncorrelated channels mix down 3 dB lower: no warning
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.1, (16000, 2)).astype(np.float32)
    assert audio_warnings(noise, 16000) == ()
    assert audio_warnings(_tone(8000)[:, None], 8000) == ()
    # a silent stereo file is silence, not cancelling channels
    assert audio_warnings(np.zeros((1600, 2), np.float32), 16000) == (
        "digital silence (every sample is 0); check the recording",
    )


@pytest.fixture
def warned(cli, base):
    proj, data = base
    manifest = _files(data)
    before = dump(proj)
    code, out, err = cli("import", "--project", proj, "--name", "sig", manifest)
    assert code == 0, err
    assert changed(before, dump(proj)) <= {"datasets", "items", "item_status", "import_problems"}
    return proj, data, out, err


def test_import_warns_and_stores_the_warning_with_the_item(cli, warned):
    proj, _data, out, err = warned
    assert (
        "4 items imported (4 new, 0 updated, 0 unchanged) as manifest; 0 problems, 2 warnings"
        in out
    )
    assert f"  warning: inverted (inverted.wav): the 2 {CANCEL}" in err
    assert f"  warning: rate1k (rate1k.wav): {LOW_RATE}" in err
    assert "stereo.wav" not in err and "tel.wav" not in err
    code, out, _ = cli("items", "--project", proj, "--dataset", "sig", "--json")
    warnings = {r["id"]: r["warnings"] for r in json.loads(out)}
    assert warnings["stereo"] is None and warnings["tel"] is None
    assert len(warnings["inverted"]) == 1 and CANCEL in warnings["inverted"][0]
    assert len(warnings["rate1k"]) == 1 and warnings["rate1k"][0].startswith(LOW_RATE)


def _audit(cli, proj, tmp_path):
    pred = tmp_path / "pred.csv"
    pred.write_text("item_id,text\ninverted,\nrate1k,play\nstereo,play\ntel,play song\n")
    code, _out, err = cli(
        "audit", "--project", proj, "--dataset", "sig", "--model", f"predictions:{pred}",
        "--by", "accent", "--min-items", "1", "--min-speakers", "1", "--n-bootstrap", "200",
        "--quiet",
    )  # fmt: skip
    assert code == 0, err
    return 1


def test_show_prints_the_audio_warning(cli, warned, tmp_path):
    proj = warned[0]
    run = _audit(cli, proj, tmp_path)
    code, out, err = cli("show", "--project", proj, "--run", run, "--item", "inverted")
    assert code == 0, err
    assert "== inverted" in out and f"audio: the 2 {CANCEL}" in out
    code, out, _ = cli("show", "--project", proj, "--run", run, "--item", "rate1k", "--json", "-")
    (rep,) = json.loads(out)
    assert len(rep["audio_warnings"]) == 1 and rep["audio_warnings"][0].startswith(LOW_RATE)
    code, out, _ = cli("show", "--project", proj, "--run", run, "--item", "tel")
    assert "audio:" not in out


def test_item_view_shows_the_audio_warning(cli, warned, tmp_path, qtbot):
    from PySide6.QtWidgets import QApplication

    from fairdesk.gui.context import Context
    from fairdesk.gui.items.item_panel import ItemPanel

    proj = warned[0]
    run = _audit(cli, proj, tmp_path)
    ctx = Context(proj)
    try:
        panel = ItemPanel(ctx)
        qtbot.addWidget(panel)
        panel.show()
        panel.load_run(run)
        m = panel.model
        ids = [m.data(m.index(r, m.columns.index("id"))) for r in range(m.rowCount())]
        panel.select(ids.index("inverted"))
        QApplication.processEvents()
        assert not panel.evidence.isHidden()
        assert "Audio" in panel.evidence.text() and CANCEL in panel.evidence.text()
        panel.select(ids.index("stereo"))  # an error, ordinary audio
        QApplication.processEvents()
        assert CANCEL not in panel.evidence.text() and "Audio</b>" not in panel.evidence.text()
    finally:
        ctx.close()
