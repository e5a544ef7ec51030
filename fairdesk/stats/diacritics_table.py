"""The Igbo tone-mark study's descriptive table: each category's diacritic loss with an utterance bootstrap.

The study (a tonal-diacritic methodology, one speaker, 21 recordings in four categories)
reports per category the diacritic loss with a 10,000-resample, utterance-level percentile
bootstrap 95% CI and the bootstrap mean, and the overall loss across categories. Here:

* per category: E, P, D, H summed over its items (docs/METHODS.md, "Diacritic and tone metrics": letters or marks), the
  study's headline *net loss* (ΣE−ΣP)/ΣE, RDD = ΣD/ΣE and DER = (ΣD+ΣH)/ΣE, each pooled and
  recomputed pooled on every replicate (docs/METHODS.md, "Per-item metrics": never the mean of per-item rates);
* a category whose references carry no diacritic (ΣE = 0, the study's first category) has no
  loss, RDD or DER: it reports the diacritics the model added there, in all and per 100
  reference letters, with the same bootstrap;
* overall: every item pooled; a replicate redraws utterances within each category (strata).

The bootstrap mean is the mean of the pooled replicate values, so it stays near the pooled
value. The study's own example (raw 30/49 = 61.2%, bootstrap mean 75.5%, "resampling at
utterance level gives more weight to samples with extreme loss rates") looks like a mean of
per-utterance rates, which docs/METHODS.md, "Per-item metrics" rules out; fairdesk's numbers will differ there.
"Reference letters" are the Unicode letters of the tone-preserving reference (no spaces,
digits or punctuation).

Resampling utterances of a single speaker's recordings is what the study did; docs/METHODS.md, "Resampling schemes"
allows it only when asked for, and says what it means: the interval describes *these
recordings* (this speaker, these sentences), not other speakers or sentences; the command's
output carries that reading in ``scheme_reading`` (fairdesk.presentation.diacritics_words).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.jsonio import json_number
from ..metrics.registry import MetricSpec, _ratio
from .groupci import ONE_UTTERANCE, bootstrap_value, percentile_ci
from .notices import notice
from .slicing import MISSING_LABEL, missing_mask, no_value_label

__all__ = [
    "NODIA_SPECS",
    "REPLICATES_DROPPED",
    "diacritic_table",
    "nodia_summary",
]

#: Note code: replicates whose rate was undefined were left out (``n``: how many;
#: ``without``: the rate needs items without diacritics, else with them); worded by
#: fairdesk.presentation.diacritics_words.
REPLICATES_DROPPED = "diacritics.replicates_dropped"

_STATS = (
    "dia_expected",
    "dia_produced",
    "dia_dropped",
    "dia_added",
    "nodia_items",
    "nodia_added",
    "nodia_letters",
    "ref_letters",
    "n_items",
)
_I = {c: k for k, c in enumerate(_STATS)}


def _spec(id, label, value, den):
    return MetricSpec(id, label, _STATS, value, False, "rate", "diacritic", den)


#: The rates of the table as metric specs over the summed ``_STATS`` columns.
_RATES = {
    "net_loss": _spec(
        "net_loss",
        "net loss (E-P)/E",
        lambda s: _ratio(
            s[..., _I["dia_expected"]] - s[..., _I["dia_produced"]], s[..., _I["dia_expected"]]
        ),
        ("dia_expected",),
    ),
    "rdd": _spec(
        "rdd",
        "RDD D/E",
        lambda s: _ratio(s[..., _I["dia_dropped"]], s[..., _I["dia_expected"]]),
        ("dia_expected",),
    ),
    "der": _spec(
        "der",
        "DER (D+H)/E",
        lambda s: _ratio(
            s[..., _I["dia_dropped"]] + s[..., _I["dia_added"]], s[..., _I["dia_expected"]]
        ),
        ("dia_expected",),
    ),
    "added_per_100_letters": _spec(
        "added_per_100_letters",
        "diacritics added per 100 reference letters (items without diacritics)",
        lambda s: 100.0 * _ratio(s[..., _I["nodia_added"]], s[..., _I["nodia_letters"]]),
        ("nodia_letters",),
    ),
}

#: Group metrics of the no-diacritic items (the Igbo tone-mark study's first category), for audit payloads:
#: the diacritics the model added on items whose reference has none, in all and per 100
#: reference letters of those items. Descriptive (never tested).
NODIA_SPECS = (
    MetricSpec(
        "dia_added_no_dia",
        "Diacritics added on items without diacritics",
        ("nodia_added", "nodia_items"),
        lambda s: np.where(s[..., 1] > 0, s[..., 0], np.nan),
        False,
        "rate",
        "diacritic",
        ("nodia_items",),
    ),
    MetricSpec(
        "dia_added_per_100_letters",
        "Diacritics added per 100 reference letters (items without diacritics)",
        ("nodia_added", "nodia_letters"),
        lambda s: 100.0 * _ratio(s[..., 0], s[..., 1]),
        False,
        "rate",
        "diacritic",
        ("nodia_letters",),
    ),
)


def nodia_summary(stats: pd.DataFrame) -> dict | None:
    """Diacritics added on the items whose reference carries none (the Igbo tone-mark study's category 1).

    Parameters
    ----------
    stats : per-item stats with the ``nodia_*`` columns (``compute_item_stats``).

    Returns
    -------
    dict or None
        ``n_items`` (items without diacritics), ``added`` (diacritics the model produced on
        them), ``letters`` (their reference letters), ``per_100_letters``; None when no item
        is without diacritics.
    """
    if "nodia_items" not in stats.columns:
        return None
    n = int(stats["nodia_items"].sum())
    if n == 0:
        return None
    added = int(stats["nodia_added"].sum())
    letters = int(stats["nodia_letters"].sum())
    return {
        "n_items": n,
        "added": added,
        "letters": letters,
        "per_100_letters": 100.0 * added / letters if letters else None,
    }


def _rate_block(spec, vb, idx_rows) -> dict:
    value = json_number(np.asarray(spec.compute(vb.point)))
    if value is None:
        return {"value": None, "ci": None, "bootstrap_mean": None, "n_replicates": 0}
    reps = np.asarray(spec.compute(vb.reps), dtype=float) if vb.reps is not None else None
    if reps is None:
        return {
            "value": value,
            "ci": None,
            "bootstrap_mean": None,
            "n_replicates": 0,
            "note": None if vb.problem is None else vb.problem.to_json(),
        }
    finite = reps[np.isfinite(reps)]
    out = {"value": value, "ci": None, "bootstrap_mean": None, "n_replicates": int(finite.size)}
    if finite.size >= 2:
        lo, hi = percentile_ci(finite)
        out["ci"] = [lo, hi]
        out["bootstrap_mean"] = float(finite.mean())
    if finite.size < reps.size:
        # the rate's denominator was 0 there: no item with diacritics (E) or, for the
        # added-per-100-letters rate, no item without them
        out["note"] = notice(
            REPLICATES_DROPPED,
            n=int(reps.size - finite.size),
            without=spec.id == "added_per_100_letters",
        ).to_json()
    return out


def _counts(X: np.ndarray) -> dict:
    s = X.sum(axis=0)
    return {
        "n_items": int(s[_I["n_items"]]),
        "expected": int(s[_I["dia_expected"]]),
        "produced": int(s[_I["dia_produced"]]),
        "dropped": int(s[_I["dia_dropped"]]),
        "added": int(s[_I["dia_added"]]),
        "letters": int(s[_I["ref_letters"]]),
        "items_without_diacritics": int(s[_I["nodia_items"]]),
        "added_on_items_without_diacritics": int(s[_I["nodia_added"]]),
    }


def _rates_for(X, strata, n_bootstrap, seed) -> tuple[dict, dict | None]:
    n = sum(len(s) for s in strata)
    if n < 2:
        return {
            k: {
                "value": json_number(np.asarray(spec.compute(X[np.concatenate(strata)].sum(0)))),
                "ci": None,
                "bootstrap_mean": None,
                "n_replicates": 0,
            }
            for k, spec in _RATES.items()
        }, notice(ONE_UTTERANCE).to_json()
    vb = bootstrap_value(
        X, strata, None, None, "utterance", n_bootstrap, np.random.default_rng(seed)
    )
    return {k: _rate_block(spec, vb, None) for k, spec in _RATES.items()}, None


def diacritic_table(
    frame: pd.DataFrame,
    by: str,
    count: str = "letters",
    n_bootstrap: int = 10_000,
    seed: int = 0,
    include_missing: bool = False,
) -> dict:
    """The Igbo tone-mark study's per-category table (see the module notes).

    Parameters
    ----------
    frame : one row per utterance with ``reference``, ``hypothesis`` and the column ``by``.
    by : the category column (e.g. ``category``).
    count : ``"letters"`` (diacritic-bearing letters, default; docs/METHODS.md, "Diacritic and tone metrics") or ``"marks"``.
    n_bootstrap : utterance resamples (the study's 10,000).
    seed : every category's replicates come from ``numpy.random.default_rng(seed)`` (a fresh
        generator per category, so a category's interval does not depend on the others; the
        overall one draws the categories in table order from its own fresh generator).
    include_missing : the items with no category value (:func:`~.slicing.is_missing_value`:
        empty, only whitespace, a list or dict) form the category ``(missing)``; by default
        they are the row ``no value for <by>`` (``missing`` True) after the categories, a
        description of those items, not a category (docs/METHODS.md, "Missing values").
        The overall row includes them either way (``n_missing``).

    Returns
    -------
    dict
        ``categories`` (one entry per category, sorted: ``category``, counts, ``rates`` with
        ``net_loss``, ``rdd``, ``der``, ``added_per_100_letters``, each ``value``, ``ci``,
        ``bootstrap_mean``, ``n_replicates``; ``no_diacritics`` True when ΣE = 0),
        ``overall`` (the same over every item, strata = categories) and ``settings``. A
        ``note`` (on a category, the overall row or a rate) is a coded note's JSON
        (``Notice.to_json``). The words (the notes, the reading of the scheme, the console
        lines) are :mod:`fairdesk.presentation.diacritics_words`'.

    Raises
    ------
    ValueError
        When a needed column is missing, ``count`` is unknown or ``n_bootstrap`` < 200.
    """
    from ..metrics.items import compute_item_stats

    missing = [c for c in ("reference", "hypothesis", by) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"the items lack the column(s) {missing}; the table needs "
            f"'reference', 'hypothesis' and the category column {by!r} "
            f"(columns: {', '.join(map(str, frame.columns))})"
        )
    if count not in ("letters", "marks"):
        raise ValueError(f"--count must be 'letters' or 'marks', got {count!r}")
    if not 200 <= int(n_bootstrap) <= 20_000:
        raise ValueError(
            f'n_bootstrap must be within 200-20,000 (docs/METHODS.md, "Diacritics by category"), got {n_bootstrap}'
        )
    f = frame[~frame["reference"].isna()].reset_index(drop=True)
    no_value = missing_mask(f[by])
    if len(f) and no_value.all():
        raise ValueError(
            f"the category column {by!r} has no values: all {len(f):,} items have none "
            "(empty, only whitespace, or a list or dict)"
        )
    label = MISSING_LABEL if include_missing else no_value_label([by])
    cats = f[by].astype(object).map(str).str.strip()
    cats[no_value] = label
    stats = compute_item_stats(
        f[["reference", "hypothesis"]],
        language="und",
        diacritic_count=count,
        normalizer="tone-preserving",
    )
    X = stats[list(_STATS)].to_numpy(float)
    labels = sorted(
        set(cats[~no_value]) | ({label} if include_missing and no_value.any() else set())
    )
    if not include_missing and no_value.any():
        labels.append(label)  # the row of the items with no value, after the categories
    rows = []
    strata = []
    for lab in labels:
        idx = np.flatnonzero((cats == lab).to_numpy())
        strata.append(idx)
        rates, problem = _rates_for(X, [idx], n_bootstrap, seed)
        counts = _counts(X[idx])
        entry = {
            "category": lab,
            **counts,
            "no_diacritics": counts["expected"] == 0,
            "rates": rates,
        }
        if problem:
            entry["note"] = problem
        if lab == label and not include_missing:
            entry["missing"] = True
        rows.append(entry)
    rates, problem = _rates_for(X, strata, n_bootstrap, seed)
    overall = {**_counts(X), "rates": rates, "n_missing": int(no_value.sum())}
    if problem:
        overall["note"] = problem
    return {
        "by": by,
        "categories": rows,
        "overall": overall,
        "settings": {
            "count": count,
            "include_missing": bool(include_missing),
            "n_bootstrap": int(n_bootstrap),
            "seed": int(seed),
            "resampling": "utterance",
            "ci": "percentile 95%",
            "normaliser": "tone-preserving",
        },
    }
