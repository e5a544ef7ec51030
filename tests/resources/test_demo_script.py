"""installer/demo.sh's reading of an audit (installer/demo_reading.py) and its syntax."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location(
        "demo_reading", ROOT / "installer" / "demo_reading.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


RESULT = {
    "design": "unmatched",
    "comparisons": [
        {
            "metric": "wer",
            "group": "child",
            "reference": "adult",
            "estimator": "speaker",
            "verdict": "inconclusive_underpowered",
            "flags": ["content_confounded"],
            "value": 0.41,
            "reference_value": 0.376,
            "gap": 0.034,
            "ci_low": -0.02,
            "ci_high": 0.09,
            "p_adjusted": 0.4,
            "mde": 0.08,
            "design": "unmatched",
            "n_blocks": {"group_speakers": 6, "reference_speakers": 8},
            # a stored sentence is not read back: the reading is written in today's words
            "reading": "Word error rate (WER) is 0.41 for child vs 0.376 ...",
        },
        {
            "metric": "cer",
            "group": "child",
            "reference": "adult",
            "estimator": "speaker",
            "verdict": "inconclusive_underpowered",
            "flags": [],
            "value": 0.2,
            "reference_value": 0.19,
            "reading": "CER ...",
        },
    ],
    "excluded": [{"group": "teen", "reason": "20 items < min_items 30"}],
}


def test_reading_says_design_scheme_and_verdicts():
    lines = _module().reading(RESULT)
    text = "\n".join(lines)
    assert lines[0].startswith("Design: unmatched: the groups read different sentences")
    assert "speakers resampled" in text
    assert "child vs adult: inconclusive_underpowered (flags: content_confounded)" in text
    assert "  Word error rate (WER) is 41.0% for child vs 37.6% for the reference adult" in text
    assert "6 + 8 speakers" in text and "not causal" in text
    assert "Character error rate" not in text and "0.376" not in text
    assert "teen: not compared (20 items < min_items 30)" in text


def test_reading_command_line(tmp_path):
    f = tmp_path / "a.json"
    f.write_text(json.dumps(RESULT))
    r = subprocess.run(
        [sys.executable, str(ROOT / "installer" / "demo_reading.py"), str(f), "cer"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "Character error rate (CER) is 20.0% for child" in r.stdout
    assert "Word error" not in r.stdout


def test_demo_script_parses_and_audits_real_speech():
    script = ROOT / "installer" / "demo.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text()
    assert "--dataset l2-english --model whisper-tiny.en" in text
    assert "--by age_group" in text and "--by gender --filter age_group=adult" in text
