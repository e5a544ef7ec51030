"""pocketsphinx-en-us on one synthetic sentence."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.models import get_backend

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sphinx():
    pytest.importorskip("pocketsphinx")
    with get_backend("pocketsphinx-en-us") as b:
        yield b


def test_transcribes_one_clip(sphinx, speech):
    audio, _ = speech[1]
    (t,) = sphinx.transcribe([audio])
    assert t.text.strip()
    assert t.language == "en"
    assert t.words and " ".join(w.text for w in t.words) == t.text
    assert all("(" not in w.text and not w.text.startswith("<") for w in t.words)
    starts = [w.start for w in t.words]
    assert starts == sorted(starts)
    assert all(0 <= w.start < w.end <= audio.size / 16000 + 0.02 for w in t.words)
    assert 0.0 <= t.confidence <= 1.0


def test_empty_clip_and_unsupported(sphinx):
    assert sphinx.transcribe([np.zeros(0, np.float32)])[0].text == ""
    with pytest.raises(NotImplementedError, match="pocketsphinx-en-us"):
        sphinx.embed([np.zeros(1600, np.float32)])
    with pytest.raises(NotImplementedError, match="score"):
        sphinx.score(np.zeros(1600, np.float32), "hello")
    assert sphinx.capabilities == {"transcribe"}
    assert len(sphinx.fingerprint) == 64
    with pytest.raises(ValueError, match="CPU"):
        get_backend("pocketsphinx-en-us", device="cuda")


def test_audit_with_pocketsphinx_stores_what_jiwer_recomputes(tmp_path, capsys):
    """An audit run with the real backend: whatever pocketsphinx heard, the per-item counts and
    group values fairdesk stores equal jiwer's on the stored reference and hypothesis (never a
    check of the model's accuracy)."""
    import json

    import jiwer

    from fairdesk.cli import main
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.runs import run_items_frame
    from fairdesk.core.store import Project
    from fairdesk.metrics import english
    from tests.conftest import espeak

    pytest.importorskip("pocketsphinx")
    from tests.models.conftest import SENTENCES

    data = tmp_path / "data"
    data.mkdir()
    lines = ["path,text,accent"]
    for voice in ("en-us", "en-gb-scotland"):
        for i, text in enumerate(SENTENCES):
            espeak(text, data, voice=voice, name=f"{voice}_{i}.wav")
            lines.append(f'{voice}_{i}.wav,"{text}",{voice}')
    (data / "m.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    proj = Project(tmp_path / "proj")
    assert import_dataset(proj, "d", data / "m.csv").imported == 6
    out = tmp_path / "a.json"
    assert (
        main(
            [
                "audit",
                "--project",
                str(proj.folder),
                "--dataset",
                "d",
                "--model",
                "pocketsphinx-en-us",
                "--by",
                "accent",
                "--metric",
                "wer",
                "--metric",
                "cer",
                "--min-items",
                "3",
                "--n-bootstrap",
                "200",
                "--json",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    res = json.loads(out.read_text())
    assert res["failures"] == [] and res["counts"]["n_inferred"] == 6
    rows = run_items_frame(proj, res["run_id"])
    assert len(rows) == 6 and set(rows["reference"]) == set(SENTENCES)
    for _, r in rows.iterrows():  # per item: S, D, I, N as jiwer counts them
        o = jiwer.process_words(english(r["reference"]), english(r["hypothesis"] or ""))
        assert (r["n_sub"], r["n_del"], r["n_ins"], r["n_words"]) == (
            o.substitutions,
            o.deletions,
            o.insertions,
            o.substitutions + o.deletions + o.hits,
        )
    groups = {g["group"]: g for g in res["groups"]}
    for voice in ("en-us", "en-gb-scotland"):  # pooled per group, as METHODS.md §2 says
        g = rows[rows["accent"] == voice]
        refs = [english(t) for t in g["reference"]]
        hyps = [english(t or "") for t in g["hypothesis"]]
        assert groups[voice]["values"]["wer"] == pytest.approx(jiwer.wer(refs, hyps), abs=1e-12)
        assert groups[voice]["values"]["cer"] == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)
    (c,) = [c for c in res["comparisons"] if c["metric"] == "wer"]
    assert c["gap"] == pytest.approx(c["value"] - c["reference_value"], abs=1e-12)
