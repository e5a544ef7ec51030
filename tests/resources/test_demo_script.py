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
            "reading": "Word error rate (WER) is 0.41 for child vs 0.376 ...",
        },
        {
            "metric": "cer",
            "group": "child",
            "reference": "adult",
            "estimator": "speaker",
            "verdict": "inconclusive_underpowered",
            "flags": [],
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
    assert "  Word error rate (WER) is 0.41" in text and "CER ..." not in text
    assert "teen: not compared (20 items < min_items 30)" in text


def test_reading_command_line(tmp_path):
    f = tmp_path / "a.json"
    f.write_text(json.dumps(RESULT))
    r = subprocess.run(
        [sys.executable, str(ROOT / "installer" / "demo_reading.py"), str(f), "cer"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "CER ..." in r.stdout and "Word error" not in r.stdout


def test_demo_script_parses_and_audits_real_speech():
    script = ROOT / "installer" / "demo.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text()
    assert "--dataset l2-english --model whisper-tiny.en" in text
    assert "--by age_group" in text and "--by gender --filter age_group=adult" in text
