"""The report's word-position heatmap and phone confusion section (METHODS.md §7).

Plain values for ``templates/phones.html.j2``: a heatmap table per shared content (rows are
groups, columns the reference words, each cell the group's error rate at that word, shaded),
the model-side phone confusions per group, the annotated ones, phone-error grounding and the
accentedness regression, each only when the run has it.
"""

from __future__ import annotations

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


def _heatmaps(p: dict) -> list[dict]:
    out = []
    for cid, h in list((p.get("word_positions") or {}).items())[:MAX_CONTENTS]:
        rows = [
            {
                "group": g,
                "n": h.get("n", {}).get(g),
                "cells": [{"text": _pct(r), "style": _shade(r)} for r in rates],
            }
            for g, rates in h["groups"].items()
        ]
        out.append({"content": cid, "words": h["words"], "rows": rows, "n_items": h.get("n_items")})
    return out


def _confusion_rows(groups: dict) -> list[dict]:
    out = []
    for g, t in groups.items():
        out.append(
            {
                "group": g,
                "n": t.get("n_ref_phones"),
                "per": _pct(t.get("phone_error_rate")),
                "top": [
                    f"{c['ref']}→{c['hyp']} ×{c['count']}"
                    + (f" ({_pct(c['rate'])})" if c.get("rate") is not None else "")
                    for c in t.get("top", [])[:TOP]
                ],
            }
        )
    return out


def phones_context(p: dict) -> dict | None:
    """The section's values from a run payload; None when the run has none of its blocks."""
    hm = _heatmaps(p)
    model = _confusion_rows((p.get("phone_confusion") or {}).get("groups") or {})
    ann = p.get("phone_annotations") or {}
    annotated = _confusion_rows(ann.get("confusion") or {})
    peg = (p.get("explain") or {}).get("phone_error_grounding") or {}
    grounding = [
        {
            "group": g,
            **{k: fmt_number(v.get(k), 3) for k in ("auroc", "ap", "auroc_speech")},
            "n": v.get("n_auroc"),
        }
        for g, v in peg.items()
    ]
    reg = p.get("accentedness_regression")
    regression = None
    if reg:
        regression = {
            "n": reg.get("n"),
            "reference": reg.get("reference"),
            "reason": None if reg.get("estimable", True) else reg.get("reason"),
            "beta": None,
            "groups": [],
        }
        if reg.get("estimable", True):
            b = reg["beta_accentedness"]
            regression["beta"] = (
                f"{fmt_number(b['coef'], 3)} "
                f"[{fmt_number(b['ci'][0], 3)}, {fmt_number(b['ci'][1], 3)}]"
            )
            for g, v in reg["groups"].items():
                w0, w1 = v["without"], v["with"]
                regression["groups"].append(
                    {
                        "group": g,
                        "without": f"{fmt_number(w0['coef'], 3, signed=True)} "
                        f"(p {fmt_p_exact(w0['p'])})",
                        "with": f"{fmt_number(w1['coef'], 3, signed=True)} "
                        f"(p {fmt_p_exact(w1['p'])})",
                        "reading": "absorbed by pronunciation"
                        if v["absorbed"]
                        else (
                            "survives: a penalty beyond pronunciation"
                            if v["survives"]
                            else "not significant either way"
                        ),
                    }
                )
    if not (hm or model or annotated or grounding or regression):
        return None
    return {
        "heatmaps": hm,
        "n_contents": len(p.get("word_positions") or {}),
        "model": model,
        "annotated": annotated,
        "grounding": grounding,
        "regression": regression,
    }
