"""What the item view shows of the audit pitfalls (docs/METHODS.md, "Audit pitfalls"): the flags of
each item for the table, and one item's hallucination evidence and acoustic covariates."""

from __future__ import annotations

import html

import pandas as pd

from ...presentation import fmt_number, fmt_percent

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


def evidence_html(pit: dict) -> str:
    """Rich text of an item's audio warnings (``audio_warnings``), hallucination evidence
    and acoustic covariates (every value escaped: the evidence quotes the model's words)."""
    parts = []
    warns = pit.get("audio_warnings") or []  # stored with the item at import
    if warns:
        parts.append(
            "<b style='color:#b26a00'>Audio</b><ul style='margin:2px 0 4px 0'>"
            + "".join(f"<li>{html.escape(str(t))}</li>" for t in warns)
            + "</ul>"
        )
    lines = pit.get("hallucination_lines") or []
    if lines:
        parts.append(
            "<b style='color:#b71c1c'>Hallucination flags</b>"
            "<ul style='margin:2px 0 4px 0'>"
            + "".join(f"<li>{html.escape(t)}</li>" for t in lines)
            + "</ul>"
        )
    a = pit.get("acoustics") or {}
    bits = []
    if a.get("duration_s") is not None:
        bits.append(f"{a['duration_s']:.2f} s")
    if a.get("nonspeech_share") is not None:
        bits.append(
            f"non-speech {fmt_percent(a['nonspeech_share'], 0)} (shaded grey on the waveform)"
        )
    if a.get("snr_db") is not None:
        bits.append(f"SNR {a['snr_db']:.1f} dB")
    if a.get("speech_rate") is not None:
        bits.append(f"{a['speech_rate']:.2f} words/s")
    if a.get("asr_confidence") is not None:
        bits.append(f"confidence {fmt_number(a['asr_confidence'], 2)}")
    if bits and (lines or pit.get("speech_regions")):
        parts.append("<span style='color:#5f6b7a'>" + html.escape(" · ".join(bits)) + "</span>")
    return "".join(parts)
