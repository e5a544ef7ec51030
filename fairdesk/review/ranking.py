"""Ranking a run's items worst first (``fairdesk show`` and the GUI's Items view)."""

from __future__ import annotations


def rank_failures(df):
    """Items ranked worst first: most word errors per reference word, then EM failures."""
    import pandas as pd

    errs = sum(df[c].fillna(0) for c in ("n_sub", "n_del", "n_ins") if c in df.columns)
    words = df["n_words"].clip(lower=1) if "n_words" in df.columns else 1
    rate = errs / words if isinstance(errs, pd.Series) else pd.Series(0.0, index=df.index)
    em_fail = (1 - df["em"].fillna(1)) if "em" in df.columns else 0
    key = pd.DataFrame(
        {"rate": rate, "em": em_fail, "errs": errs if isinstance(errs, pd.Series) else 0},
        index=df.index,
    )
    order = key.sort_values(["rate", "em", "errs"], ascending=False, kind="stable").index
    return df.loc[order]


def _word_errors(df):
    return sum(df[c].fillna(0) for c in ("n_sub", "n_del", "n_ins") if c in df.columns)


def disagreements(frames, per_group: int = 5):
    """The common items where systems disagree most, per group (``fairdesk show`` of a
    comparison of systems, the GUI's Systems view).

    ``frames``: system name → that system's per-item rows (baseline first; ``item_id``,
    ``group``, ``reference``, ``hypothesis`` and the word-error counts). Per item and per
    other system B against the baseline A, the key is: one system right and the other wrong
    first, then the larger difference in word errors per reference word, then in errors.

    Returns
    -------
    dict
        group → list of rows ``{item_id, speaker_id, reference, system, baseline,
        hypotheses: {name: text}, errors: {name: n}, n_words, one_right}``, at most
        ``per_group`` per group, the strongest disagreement first.
    """
    import pandas as pd

    names = list(frames)
    base = names[0]
    keyed = {}
    for n in names:
        f = frames[n].copy()
        f["item_id"] = f["item_id"].astype(str)
        f = f.drop_duplicates("item_id").set_index("item_id")
        f["_errs"] = _word_errors(f)
        keyed[n] = f
    common = keyed[base].index
    for n in names[1:]:
        common = common.intersection(keyed[n].index)
    a = keyed[base].loc[common]
    rows = []
    for n in names[1:]:
        b = keyed[n].loc[common]
        words = a["n_words"].clip(lower=1) if "n_words" in a.columns else 1
        key = pd.DataFrame(
            {
                "one_right": ((a["_errs"] == 0) != (b["_errs"] == 0)).astype(int),
                "rate": (b["_errs"] - a["_errs"]).abs() / words,
                "errs": (b["_errs"] - a["_errs"]).abs(),
            },
            index=common,
        )
        key = key[key["errs"] > 0]
        for item_id, k in key.iterrows():
            meta = a.loc[item_id]
            rows.append(
                {
                    "item_id": item_id,
                    "group": str(meta.get("group")),
                    "speaker_id": meta.get("speaker_id"),
                    "reference": meta.get("reference"),
                    "system": n,
                    "baseline": base,
                    "hypotheses": {
                        base: meta.get("hypothesis"),
                        n: b.loc[item_id].get("hypothesis"),
                    },
                    "errors": {base: int(meta["_errs"]), n: int(b.loc[item_id]["_errs"])},
                    "n_words": int(meta.get("n_words") or 0),
                    "one_right": bool(k["one_right"]),
                    "_key": (int(k["one_right"]), float(k["rate"]), float(k["errs"])),
                }
            )
    out: dict[str, list[dict]] = {}
    for r in sorted(rows, key=lambda r: r["_key"], reverse=True):
        lst = out.setdefault(r["group"], [])
        if len(lst) < per_group:
            lst.append({k: v for k, v in r.items() if k != "_key"})
    return out
