"""The audit's blocks from phone-level annotations (docs/METHODS.md, "Phone confusions" and "Accentedness regression").

Where the audited items carry ``phone_error`` annotations (L2-ARCTIC's ``CPL,PPL,type``
marks, :mod:`fairdesk.core.importers_l2arctic`) and ``phone_counts``:

* ``phone_annotations``: the annotated canonical → perceived confusions per group
  (:func:`fairdesk.stats.phone_confusion.annotated_phone_confusion`), with the items,
  phones and errors behind them and each group's mean accentedness;
* ``accentedness_regression``: OLS ``WER ~ accentedness + C(group)`` on the annotated
  items (:func:`fairdesk.stats.phone_confusion.accentedness_regression`), accentedness =
  annotated errors ÷ canonical phones of the item.

Only items with a ``phone_counts`` annotation count as annotated: an utterance without
errors is then an item with accentedness 0, not a missing one.
"""

from __future__ import annotations

from collections import Counter, defaultdict

PHONE_KINDS = ("phone_error", "phone_counts")


def load_phone_annotations(project, db_ids) -> dict[int, dict]:
    """``{item db id: {"errors": [value, ...], "counts": value}}`` of the annotated items."""
    ids = sorted({int(i) for i in db_ids if i == i and i is not None})
    out: dict[int, dict] = {}
    for r in project.annotations_of_kinds(ids, PHONE_KINDS):
        d = out.setdefault(r["item_id"], {"errors": [], "counts": None})
        if r["kind"] == "phone_error":
            d["errors"].append(r["value"])
        else:
            d["counts"] = r["value"]  # the latest wins
    return {i: d for i, d in out.items() if d["counts"] is not None}


def annotation_blocks(project, frame, reference=None, alpha: float = 0.05) -> dict:
    """The ``phone_annotations`` (typed) and ``accentedness_regression`` blocks, keyed by
    their ``AuditRun`` field (empty dict when no audited item is annotated); ``reference``
    is the run's reference group."""
    import pandas as pd

    from ..stats.phone_confusion import accentedness_regression, annotated_phone_confusion
    from .result_blocks import AccentednessRegression, PhoneAnnotations
    from .result_codec import canonical

    if "db_id" not in frame.columns:
        return {}
    anns = load_phone_annotations(project, frame["db_id"])
    if not anns:
        return {}
    errors = []
    n_phones: defaultdict[str, Counter] = defaultdict(Counter)
    rows = []
    for db, g, n, s, d, i in zip(
        frame["db_id"],
        frame["group"].astype(str),
        frame["n_words"],
        frame["n_sub"],
        frame["n_del"],
        frame["n_ins"],
        strict=True,
    ):
        a = anns.get(int(db)) if db == db else None
        if a is None:
            continue
        for e in a["errors"]:
            errors.append((g, e.get("canonical"), e.get("perceived")))
        n_phones[g].update(a["counts"].get("phones", {}))
        nph = int(a["counts"].get("n_phones") or 0)
        rows.append(
            {
                "group": g,
                "wer": (s + d + i) / n if n else float("nan"),
                "accentedness": len(a["errors"]) / nph if nph else float("nan"),
                "n_errors": len(a["errors"]),
                "n_phones": nph,
            }
        )
    df = pd.DataFrame(rows)
    per_group = {
        g: {
            "n_items": int(len(x)),
            "n_phones": int(x["n_phones"].sum()),
            "n_errors": int(x["n_errors"].sum()),
            "accentedness": float(x["n_errors"].sum() / x["n_phones"].sum())
            if x["n_phones"].sum()
            else None,
        }
        for g, x in df.groupby("group")
    }
    ref = reference
    return {
        "phone_annotations": canonical(
            {
                "groups": per_group,
                "confusion": annotated_phone_confusion(
                    errors, {g: dict(c) for g, c in n_phones.items()}
                ),
                "source": "phone_error annotations (canonical, perceived, type) and phone_counts",
            },
            PhoneAnnotations,
        ),
        "accentedness_regression": canonical(
            accentedness_regression(df, reference=ref, alpha=alpha),
            AccentednessRegression | None,
        ),
    }
