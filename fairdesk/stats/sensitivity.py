"""Statistics of the normaliser sensitivity (docs/METHODS.md, "Normaliser sensitivity"; after Mei, Choi et al. 2025): does a verdict survive a
different text normalisation?

:func:`normaliser_sensitivity` re-scores a finished run's per-item frame (references and
hypotheses as decoded; nothing is decoded again) under each normaliser of
:data:`SENSITIVITY_NORMALISERS`, reruns the comparisons of the tested text metrics with the
run's statistics settings (same seed, same Holm family), and reports per comparison whether
the verdict is the same under all of them.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from .notices import notice
from .sensitivity_types import NO_TEXT_METRIC, NormaliserSensitivity, SensitivityRow

__all__ = ["SENSITIVITY_NORMALISERS", "no_normalisation", "normaliser_sensitivity"]

#: The normalisers compared, by settings name (``none``: whitespace collapsed, nothing else).
SENSITIVITY_NORMALISERS = ("whisper-english", "whisper-basic", "tone-preserving", "none")
#: Metrics whose value depends on the normaliser (the others are left out of the table).
TEXT_METRICS = (
    "wer",
    "cer",
    "sub_rate",
    "del_rate",
    "ins_rate",
    "insertion_ratio",
    "hallucination_rate",
    "wer_unflagged",
)
#: The frame columns a re-scoring needs or keeps (everything else is recomputed).
_INPUT_COLUMNS = (
    "group",
    "reference",
    "hypothesis",
    "speaker_id",
    "content_id",
    "item_id",
    "nonspeech_words",
    "hypothesis_sampled_a",
    "hypothesis_sampled_b",
)


def no_normalisation(text) -> str:
    """The ``none`` normaliser: the text as written, whitespace collapsed."""
    from ..metrics.normalize import as_text

    return " ".join(as_text(text).split())


def _normaliser(name):
    return no_normalisation if name == "none" else name


def _rescore(frame, specs_ids, settings, reference, language, name):
    from ..metrics import compute_item_stats, metric_specs
    from .compare import compare_groups
    from .pitfalls import add_pitfall_columns

    base = frame[[c for c in _INPUT_COLUMNS if c in frame.columns]].reset_index(drop=True)
    norm = _normaliser(name)
    stats = compute_item_stats(
        base[["reference", "hypothesis"]], language=language, normalizer=norm
    )
    base, stats = add_pitfall_columns(base, stats, norm, language)
    full = pd.concat([base, stats.reset_index(drop=True)], axis=1)
    specs = metric_specs(stats, list(specs_ids))
    return compare_groups(full, specs, replace(settings, normaliser=name), reference=reference)


def normaliser_sensitivity(
    frame: pd.DataFrame,
    settings,
    reference=None,
    metrics=None,
    language: str = "en",
    normalisers=SENSITIVITY_NORMALISERS,
) -> NormaliserSensitivity:
    """Verdicts of every tested text comparison under each normaliser.

    Parameters
    ----------
    frame : the run's per-item frame: ``group``, ``reference``, ``hypothesis`` (raw, as
        decoded), optional ``speaker_id``, ``content_id``, ``item_id`` (other columns are
        ignored: the stats are recomputed).
    settings : the run's ``AuditSettings`` (its ``normaliser`` is the run's own choice).
    reference : the run's reference group (None: the largest).
    metrics : the run's tested metric ids; those in :data:`TEXT_METRICS` are re-scored
        (None: ``wer``).
    language : transcript language.
    normalisers : names to compare (``none`` = whitespace only).

    Returns
    -------
    NormaliserSensitivity
        One row per tested text comparison (its verdict and numbers under each
        normaliser, and whether the verdict holds), or no row and the coded note
        :data:`~fairdesk.stats.sensitivity_types.NO_TEXT_METRIC`.
    """
    from ..metrics.normalize import is_english

    if settings.normaliser == "auto":
        settings = replace(
            settings, normaliser="whisper-english" if is_english(language) else "whisper-basic"
        )
    ids = [m for m in (metrics or ["wer"]) if m in TEXT_METRICS]
    if not ids:
        return NormaliserSensitivity(
            normalisers=tuple(normalisers),
            run_normaliser=settings.normaliser,
            note=notice(NO_TEXT_METRIC),
        )
    for c in ("group", "reference", "hypothesis"):
        if c not in frame.columns:
            raise ValueError(
                f"normaliser sensitivity needs the per-item column {c!r}; "
                f"the frame has {', '.join(map(str, frame.columns))}"
            )
    results = {
        name: _rescore(frame, ids, settings, reference, language, name) for name in normalisers
    }
    rows: dict[tuple, dict] = {}
    for name, res in results.items():
        for comp in res.comparisons:
            c = comp.to_dict()  # NaN and inf as None, as the table is stored
            r = rows.setdefault(
                (c["metric"], c["group"]),
                {
                    "metric": c["metric"],
                    "group": c["group"],
                    "reference": c["reference"],
                    "verdict": {},
                    "value": {},
                    "reference_value": {},
                    "gap": {},
                    "p_adjusted": {},
                },
            )
            for k in ("verdict", "value", "reference_value", "gap", "p_adjusted"):
                r[k][name] = c[k]
    out_rows = []
    for r in rows.values():
        r["holds"] = len(r["verdict"]) == len(normalisers) and len(set(r["verdict"].values())) == 1
        out_rows.append(SensitivityRow.from_json(r))
    out_rows.sort(key=lambda r: (ids.index(r.metric), str(r.group)))
    return NormaliserSensitivity(
        normalisers=tuple(normalisers),
        run_normaliser=settings.normaliser,
        metrics=tuple(ids),
        rows=tuple(out_rows),
        n_comparisons=len(out_rows),
        n_flipped=sum(not r.holds for r in out_rows),
        reference_by_normaliser={n: res.reference for n, res in results.items()},
    )
