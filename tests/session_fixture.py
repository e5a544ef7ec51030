"""A long recording segmented in ELAN, made of the embedded real speech (speechocean762
utterances of ``resources/demo/l2-english``): the session file is written as it is built,
one utterance at a time, so a 60-minute session never sits in memory.

Used by the tests of segments with a real model and by ``bench/segment_memory.py``.
"""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fairdesk.constants import SAMPLE_RATE

__all__ = ["Interval", "audit_by_tier", "write_elan_session"]


@dataclass(frozen=True)
class Interval:
    """One annotated interval of the session: tier, start and end (s), the transcript."""

    tier: str
    start: float
    end: float
    text: str


def _utterances(limit: int):
    """``(text, 16 kHz mono samples)`` of the embedded real utterances, in corpus order,
    cycling when more are asked for than the corpus holds."""
    import soundfile as sf

    from fairdesk.core.audio import resample, to_mono
    from fairdesk.core.demo import l2_english_zip

    with zipfile.ZipFile(l2_english_zip()) as z:
        rows = list(csv.DictReader(io.TextIOWrapper(z.open("metadata.csv"), encoding="utf-8")))
        rows = [r for r in rows if r.get("age_group") == "adult"] or rows
        for k in range(limit):
            r = rows[k % len(rows)]
            data, sr = sf.read(io.BytesIO(z.read(r["path"])), dtype="float32", always_2d=True)
            yield r["text"], resample(to_mono(data), sr, SAMPLE_RATE)


def write_elan_session(
    folder,
    n_intervals: int = 40,
    tiers: tuple[str, ...] = ("Ana-tx", "Ben-tx"),
    gap_s: float = 0.6,
    minutes: float | None = None,
    name: str = "session1",
) -> list[Interval]:
    """Write ``folder/<name>.wav`` and ``folder/<name>.eaf``: ``n_intervals`` real
    utterances, alternating between ``tiers`` (one per speaker, its PARTICIPANT the tier's
    name before ``-``), ``gap_s`` of silence between them, or spread evenly over ``minutes``
    when given (a long session with silence between its segments).

    Returns the intervals written, in time order.
    """
    import pympi
    import soundfile as sf

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    wav = folder / f"{name}.wav"
    utts = list(_utterances(n_intervals)) if minutes is None else None
    if minutes is not None:
        slot = minutes * 60.0 / n_intervals
    out: list[Interval] = []
    t = 0.0
    with sf.SoundFile(str(wav), "w", SAMPLE_RATE, 1, subtype="PCM_16") as f:
        source = utts if utts is not None else _utterances(n_intervals)
        for k, (text, x) in enumerate(source):
            lead = gap_s if minutes is None else 0.5
            f.write(np.zeros(int(round(lead * SAMPLE_RATE)), dtype=np.float32))
            start = t + lead
            f.write(np.clip(x, -1.0, 1.0))
            end = start + len(x) / SAMPLE_RATE
            out.append(Interval(tiers[k % len(tiers)], round(start, 3), round(end, 3), text))
            t = end
            if minutes is not None:  # silence up to the next slot
                pad = max(0.0, (k + 1) * slot - t)
                f.write(np.zeros(int(round(pad * SAMPLE_RATE)), dtype=np.float32))
                t += int(round(pad * SAMPLE_RATE)) / SAMPLE_RATE
        f.write(np.zeros(int(round(gap_s * SAMPLE_RATE)), dtype=np.float32))
    eaf = pympi.Elan.Eaf()
    eaf.remove_tier("default")
    eaf.add_linked_file(str(wav), relpath=f"./{wav.name}", mimetype="audio/x-wav")
    for tier in tiers:
        eaf.add_tier(tier, part=tier.split("-")[0])
    for iv in out:
        # ELAN's times are whole ms: the interval is rounded inward, so it never runs past
        # the utterance
        eaf.add_annotation(iv.tier, int(np.ceil(iv.start * 1000)), int(iv.end * 1000), iv.text)
    eaf.to_file(str(folder / f"{name}.eaf"))
    return [
        Interval(
            iv.tier, float(np.ceil(iv.start * 1000)) / 1000, int(iv.end * 1000) / 1000, iv.text
        )
        for iv in out
    ]


def audit_by_tier(project, dataset: str, model: str, backend=None):
    """Audit a session dataset by tier (one speaker per tier): WER only, no NLU, minimums
    low enough for one speaker a side; returns :func:`fairdesk.jobs.run_audit`'s outcome."""
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    req = AuditRequest(
        dataset=dataset,
        model=model,
        by=("tier",),
        metrics=("wer",),
        nlu="none",
        settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=1),
    )
    return run_audit(project, req, backend=backend)
