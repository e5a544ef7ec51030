"""What the item view shows of the audit pitfalls (docs/METHODS.md, "Audit pitfalls"): the flags of
each item for the table, and one item's hallucination evidence and acoustic covariates."""

from __future__ import annotations

import html

import pandas as pd

from ...presentation import fmt_number, fmt_percent, number
from ...presentation.pitfalls import evidence_lines

#: Hallucination flag columns and their short name in the "Halluc." column.
HALL_FLAGS = {
    "hall_loop": "loop",
    "hall_runaway": "runaway",
    "hall_over_nonspeech": "non-speech",
    "hall_unstable": "unstable",
}


def hallucination_labels(df) -> list[str]:
    """The "Halluc." column: the flags set on each item (``loop``, ``runaway``,
    ``non-speech``, ``unstable``), empty when none."""
    cols = [(c, name) for c, name in HALL_FLAGS.items() if c in df.columns]
    if not cols:
        return [""] * len(df)
    flags = {c: pd.to_numeric(df[c], errors="coerce").fillna(0).to_numpy() > 0 for c, _ in cols}
    return [", ".join(name for c, name in cols if flags[c][i]) for i in range(len(df))]


def evidence_html(pit, warnings=()) -> str:
    """Rich text of an item's audio warnings (stored with the item at import), hallucination
    evidence and acoustic covariates (``pit``: its
    :class:`~fairdesk.metrics.hallucination.ItemPitfalls`; every value escaped: the
    evidence quotes the model's words)."""
    parts = []
    warns = list(warnings or ())
    if warns:
        parts.append(
            "<b style='color:#b26a00'>Audio</b><ul style='margin:2px 0 4px 0'>"
            + "".join(f"<li>{html.escape(str(t))}</li>" for t in warns)
            + "</ul>"
        )
    lines = evidence_lines(pit.evidence)
    if lines:
        parts.append(
            "<b style='color:#b71c1c'>Hallucination flags</b>"
            "<ul style='margin:2px 0 4px 0'>"
            + "".join(f"<li>{html.escape(t)}</li>" for t in lines)
            + "</ul>"
        )
    a = pit.acoustics  # column -> value
    bits = []
    if a.get("duration_s") is not None:
        bits.append(f"{number(a['duration_s'], 2)} s")
    if a.get("nonspeech_share") is not None:
        bits.append(
            f"non-speech {fmt_percent(a['nonspeech_share'], 0)} (shaded grey on the waveform)"
        )
    if a.get("snr_db") is not None:
        bits.append(f"SNR {number(a['snr_db'], 1)} dB")
    if a.get("speech_rate") is not None:
        bits.append(f"{number(a['speech_rate'], 2)} words/s")
    if a.get("asr_confidence") is not None:
        bits.append(f"confidence {fmt_number(a['asr_confidence'], 2)}")
    if bits and (lines or pit.speech_regions):
        parts.append("<span style='color:#5f6b7a'>" + html.escape(" · ".join(bits)) + "</span>")
    return "".join(parts)
