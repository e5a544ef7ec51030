"""The report's word-position heatmap and phone confusion section (docs/METHODS.md, "Word-position heatmap" and "Phone confusions").

Plain values for ``templates/phones.html.j2``, read from the typed result
(:class:`fairdesk.jobs.result.AuditRun`): a heatmap table per shared content (rows are
groups, columns the reference words, each cell the group's error rate at that word, shaded),
the model-side phone confusions per group, the annotated ones, phone-error grounding and the
accentedness regression, each only when the run has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..jobs.result import AuditRun
from ..jobs.result_blocks import (
    AccentednessRegression,
    Coefficient,
    GroupGrounding,
    PhoneTable,
)
from ..jobs.result_parts import WordPosition
from ..presentation import fmt_estimate_ci, fmt_number, fmt_p_exact, fmt_percent
from ..presentation.notices import notice_text

#: Contents shown in the heatmap (the most-read first); the JSON has them all.
MAX_CONTENTS = 6
#: Confusions listed per group.
TOP = 6


def _pct(v) -> str:
    return fmt_percent(v, 0)


def _shade(v) -> str:
    """Cell background: white at 0, red at 1 (the rate)."""
    a = 0.0 if v is None else max(0.0, min(1.0, float(v)))
    return f"background: rgba(200, 40, 40, {a * 0.85:.2f})"


def _heatmaps(positions: Mapping[str, WordPosition]) -> list[dict]:
    out = []
    for cid, h in list(positions.items())[:MAX_CONTENTS]:
        rows = [
            {
                "group": g,
                "n": fmt_number(h.n.get(g), 0),
                "cells": [{"text": _pct(r), "style": _shade(r)} for r in rates],
            }
            for g, rates in h.groups.items()
        ]
        out.append(
            {"content": cid, "words": h.words, "rows": rows, "n_items": fmt_number(h.n_items, 0)}
        )
    return out


def _confusion_rows(groups: Mapping[str, PhoneTable]) -> list[dict]:
    out = []
    for g, t in groups.items():
        out.append(
            {
                "group": g,
                "n": fmt_number(t.n_ref_phones, 0),
                "per": _pct(t.phone_error_rate),
                "top": [
                    f"{c.ref}→{c.hyp} ×{fmt_number(c.count, 0)}"
                    + (f" ({_pct(c.rate)})" if c.rate is not None else "")
                    for c in t.top[:TOP]
                ],
            }
        )
    return out


def _grounding_rows(peg: Mapping[str, GroupGrounding] | None) -> list[dict]:
    """AUROC, AP and AUROC within speech per group, and the items the AUROC is over."""
    return [
        {
            "group": g,
            **{k: fmt_number(getattr(v, k), 3) for k in ("auroc", "ap", "auroc_speech")},
            "n": fmt_number(v.n_auroc, 0),
        }
        for g, v in (peg or {}).items()
    ]


def _effect(c: Coefficient | None) -> str:
    """``+0.123 (p 0.045)``: a group's coefficient and its p."""
    coef, p = (c.coef, c.p) if c is not None else (None, None)
    return f"{fmt_number(coef, 3, signed=True)} (p {fmt_p_exact(p)})"


def _regression(reg: AccentednessRegression | None) -> dict | None:
    """The accentedness regression's view; None without it."""
    if reg is None or reg == AccentednessRegression():
        return None
    regression: dict[str, Any] = {
        "n": fmt_number(reg.n, 0),
        "reference": reg.reference,
        "reason": None if reg.estimable or reg.reason is None else notice_text(reg.reason),
        "beta": None,
        "groups": [],
    }
    if reg.estimable:
        b = reg.beta_accentedness or Coefficient()
        lo, hi = b.ci or (None, None)
        regression["beta"] = f"{fmt_number(b.coef, 3)} {fmt_estimate_ci(lo, hi, 3)}"
        for g, v in (reg.groups or {}).items():
            regression["groups"].append(
                {
                    "group": g,
                    "without": _effect(v.without),
                    "with": _effect(v.with_),
                    "reading": "absorbed by pronunciation"
                    if v.absorbed
                    else (
                        "survives: a penalty beyond pronunciation"
                        if v.survives
                        else "not significant either way"
                    ),
                }
            )
    return regression


def phones_context(run: AuditRun) -> dict | None:
    """The section's values from a run; None when the run has none of its blocks."""
    positions = run.word_positions or {}
    hm = _heatmaps(positions)
    model = _confusion_rows(run.phone_confusion.groups if run.phone_confusion else {})
    annotated = _confusion_rows(run.phone_annotations.confusion if run.phone_annotations else {})
    grounding = _grounding_rows(run.explain.phone_error_grounding if run.explain else None)
    regression = _regression(run.accentedness_regression)
    if not (hm or model or annotated or grounding or regression):
        return None
    return {
        "heatmaps": hm,
        "n_contents": len(positions),
        "model": model,
        "annotated": annotated,
        "grounding": grounding,
        "regression": regression,
    }
