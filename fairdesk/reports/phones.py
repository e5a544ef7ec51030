"""The report's word-position heatmap and phone confusion section (METHODS.md §7).

Plain values for ``templates/phones.html.j2``, read from the typed result
(:class:`fairdesk.jobs.result.AuditRun`): a heatmap table per shared content (rows are
groups, columns the reference words, each cell the group's error rate at that word, shaded),
the model-side phone confusions per group, the annotated ones, phone-error grounding and the
accentedness regression, each only when the run has it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..jobs.result import AuditRun
from ..jobs.result_blocks import PhoneTable
from ..jobs.result_parts import WordPosition
from ..presentation import fmt_number, fmt_p_exact, fmt_percent

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


def _grounding_rows(peg) -> list[dict]:
    """AUROC, AP and AUROC within speech per group (the one reader of the free-form
    ``Explain.phone_error_grounding``)."""
    return [
        {
            "group": g,
            **{k: fmt_number(v.get(k), 3) for k in ("auroc", "ap", "auroc_speech")},
            "n": fmt_number(v.get("n_auroc"), 0),
        }
        for g, v in (peg or {}).items()
    ]


def _regression(reg) -> dict | None:
    """The accentedness regression's view (the one reader of the free-form
    ``run.accentedness_regression``); None without it."""
    if not reg:
        return None
    regression = {
        "n": fmt_number(reg.get("n"), 0),
        "reference": reg.get("reference"),
        "reason": None if reg.get("estimable", True) else reg.get("reason"),
        "beta": None,
        "groups": [],
    }
    if reg.get("estimable", True):
        b = reg["beta_accentedness"]
        regression["beta"] = (
            f"{fmt_number(b['coef'], 3)} [{fmt_number(b['ci'][0], 3)}, {fmt_number(b['ci'][1], 3)}]"
        )
        for g, v in reg["groups"].items():
            w0, w1 = v["without"], v["with"]
            regression["groups"].append(
                {
                    "group": g,
                    "without": f"{fmt_number(w0['coef'], 3, signed=True)} "
                    f"(p {fmt_p_exact(w0['p'])})",
                    "with": f"{fmt_number(w1['coef'], 3, signed=True)} (p {fmt_p_exact(w1['p'])})",
                    "reading": "absorbed by pronunciation"
                    if v["absorbed"]
                    else (
                        "survives: a penalty beyond pronunciation"
                        if v["survives"]
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
