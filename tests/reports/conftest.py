"""Small speech projects for the report tests: espeak-ng audio, imported predictions.

Two datasets: ``d`` (English, accents ``us`` and ``scot``, 5 speakers × 5 sentences each;
one Scottish speaker is named with a ``<script>`` tag, and that speaker's items are the worst)
and ``t`` (Yoruba transcripts with tone marks, one group, 6 items), each audited once with a
``predictions:`` CSV, so no model runs.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import espeak

SENTENCES = [
    "play the next song please",
    "turn the volume down a little",
    "what is the weather like today",
    "call my sister on the phone",
    "set an alarm for seven",
]
EVIL = '<script>alert("x")</script>'
TONE_SENTENCES = ["ọjà ni mo lọ", "ẹ kú àárọ̀", "mo fẹ́ jẹun"]
#: The tone dataset's hypotheses: the first drops a tone mark, the second changes one.
TONE_HYPS = ["ọja ni mo lọ", "ẹ kú àárọ", "mo fẹ́ jẹun"]


@dataclass
class SpeechRuns:
    project: object
    root: Path
    run: int  # English run
    tone_run: int  # Yoruba run
    items: dict  # item id -> (speaker, group, reference, hypothesis)


def _hypothesis(group: str, speaker: str, c: int, text: str) -> str:
    words = text.split()
    if speaker == EVIL:
        return " ".join(words[1:-1]) + " now"  # two deletions, one insertion
    if group == "scot" and c % 2 == 0:
        return " ".join(words[:-1])  # one deletion
    if group == "scot":
        return " ".join(["pay" if w == "play" else w for w in words]).replace("the", "a", 1)
    return text


def build_speech_runs(tmp: Path) -> SpeechRuns:
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    root = tmp / "data"
    root.mkdir(parents=True)
    voices = {"us": "en-us", "scot": "en-gb-scotland"}
    variants = ["m1", "f2", "m3", "f4", "m7"]
    rows, preds, items = [], [], {}
    for group, voice in voices.items():
        for s, var in enumerate(variants):
            speaker = EVIL if (group == "scot" and s == 4) else f"{group}{s}"
            for c, text in enumerate(SENTENCES):
                item = f"{group}-{s}-{c}"
                rel = f"{group}/{s}_{c}.wav"
                (root / group).mkdir(exist_ok=True)
                _write(espeak(text, root / group, f"{voice}+{var}", f"{s}_{c}.tmp.wav"), root / rel)
                hyp = _hypothesis(group, speaker, c, text)
                rows.append(
                    {
                        "id": item,
                        "path": rel,
                        "text": text,
                        "speaker_id": speaker,
                        "content_id": f"c{c}",
                        "accent": group,
                        "gender": "f" if var.startswith("f") else "m",
                    }
                )
                preds.append({"item_id": item, "text": hyp})
                items[item] = (speaker, group, text, hyp)
    _csv(root / "m.csv", rows)
    _csv(root / "preds.csv", preds)
    trows, tpreds = [], []
    for s in range(2):
        for c, text in enumerate(TONE_SENTENCES):
            item = f"yo-{s}-{c}"
            rel = f"yo/{s}_{c}.wav"
            (root / "yo").mkdir(exist_ok=True)
            _write(
                espeak(text, root / "yo", "en-us+m2" if s else "en-us+f3", f"{s}_{c}.tmp.wav"),
                root / rel,
            )
            trows.append(
                {
                    "id": item,
                    "path": rel,
                    "text": text,
                    "speaker_id": f"yo{s}",
                    "content_id": f"t{c}",
                    "accent": "yoruba",
                }
            )
            tpreds.append({"item_id": item, "text": TONE_HYPS[c]})
            items[item] = (f"yo{s}", "yoruba", text, TONE_HYPS[c])
    _csv(root / "t.csv", trows)
    _csv(root / "tpreds.csv", tpreds)
    for f in root.rglob("*.tmp.wav"):
        f.unlink()
    p = Project(tmp / "proj")
    assert import_dataset(p, "d", root / "m.csv", id_col="id").imported == 50
    assert import_dataset(p, "t", root / "t.csv", language="yo", id_col="id").imported == 6
    settings = AuditSettings(n_bootstrap=400, min_items=10, min_speakers=3, normaliser="auto")
    out = run_audit(
        p,
        AuditRequest(
            dataset="d",
            model=f"predictions:{root / 'preds.csv'}",
            by=("accent",),
            settings=settings,
            nlu="none",
            reference="us",
        ),
    )
    tsettings = AuditSettings(n_bootstrap=200, min_items=2, min_speakers=1, normaliser="auto")
    tout = run_audit(
        p,
        AuditRequest(
            dataset="t",
            model=f"predictions:{root / 'tpreds.csv'}",
            by=("accent",),
            settings=tsettings,
            nlu="none",
        ),
    )
    return SpeechRuns(p, root, out.run_id, tout.run_id, items)


def _write(samples, path: Path) -> None:
    import soundfile as sf

    sf.write(str(path), samples, 16000, subtype="PCM_16")


def _csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


@pytest.fixture(scope="session")
def speech_runs(tmp_path_factory) -> SpeechRuns:
    return build_speech_runs(tmp_path_factory.mktemp("reports"))


def with_interval_fields(payload: dict) -> dict:
    """A copy of a stored result with the fields newer fairdesk versions add: per-group CIs
    (``groups[i].ci``, ``ci_scheme``), the corpus-wide value with its CI
    (``summary[m].overall``), and one ``not_estimable`` and one ``no_variation`` comparison.
    The interval numbers are planted test inputs (this module renders them; the statistics
    tests check how they are computed)."""
    import copy

    p = copy.deepcopy(payload)
    for g in p["groups"]:
        g["ci"], g["ci_scheme"] = {}, {}
        for m in p["tested_metrics"]:
            v = g["values"][m]
            g["ci"][m] = [max(v - 0.05, 0.0), v + 0.07]
            g["ci_scheme"][m] = "two_way"
    for s in p["summary"].values():
        s["overall"] = {"value": 0.1, "ci": [0.07, 0.14], "scheme": "two_way"}
    base = p["comparisons"][0]
    p["comparisons"].append(
        {
            **base,
            "metric": "der",
            "verdict": "not_estimable",
            "p_value": None,
            "p_adjusted": None,
            "ci_low": None,
            "ci_high": None,
            "reason": "the group has 1 speaker; the "
            "speaker bootstrap needs at least 2 on each side",
            "reading": "DER cannot be compared: too few speakers.",
        }
    )
    p["comparisons"].append(
        {
            **base,
            "metric": "ter",
            "verdict": "no_variation",
            "reason": None,
            "no_variation": {
                "value": 0.0,
                "unit": "items",
                "n_group": 25,
                "n_reference": 25,
                "bound_group": 0.12,
                "bound_reference": 0.12,
            },
            "reading": "TER is 0 in both groups.",
        }
    )
    return p
