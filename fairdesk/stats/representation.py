"""Representation structure of embeddings and its link with disparity (docs/METHODS.md, "Representation").

- **Silhouette**: sklearn silhouette score of the embeddings labelled by group (cosine).
- **Leakage**: balanced accuracy of a logistic-regression probe predicting the group from
  the embedding, cross-validated with folds split by speaker (never a speaker in both train
  and test), minus chance 1 / number of groups.
- **Case** per metric: structure (silhouette ≥ t or leakage ≥ t) × disparity (any
  ``disparity_detected`` comparison on that metric).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fairdesk.core.jsonio import ResultJson
from fairdesk.stats.notices import Notice, notice

CASES = (
    "representation_linked_disparity",
    "representation_only",
    "disparity_not_representation_linked",
    "no_structure_no_disparity",
)


def _labels(groups) -> np.ndarray:
    return np.asarray([str(g) for g in groups], dtype=object)


def silhouette(embeddings, groups, *, max_items: int = 5000, seed: int = 0) -> float:
    """Cosine silhouette score of the embeddings labelled by group.

    Parameters
    ----------
    embeddings : ``(n_items, dim)`` array.
    groups : group label per item.
    max_items : above this many items the score is computed on a seeded random sample of
        this size (sklearn ``sample_size``), since the exact score is quadratic in items.
    seed : seed of that sample.

    Returns
    -------
    float
        In [-1, 1]; NaN with fewer than two groups or fewer items than groups + 1.
    """
    from sklearn.metrics import silhouette_score

    X = np.asarray(embeddings, dtype=float)
    y = _labels(groups)
    n_groups = len(set(y.tolist()))
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError(
            f"embeddings must be (n_items, dim) with one group per item; got {X.shape} "
            f"embeddings and {len(y)} group labels."
        )
    if n_groups < 2 or len(X) <= n_groups:
        return math.nan
    sample = max_items if len(X) > max_items else None
    return float(silhouette_score(X, y, metric="cosine", sample_size=sample, random_state=seed))


@dataclass(frozen=True)
class Leakage:
    """Result of the group-prediction probe.

    Attributes
    ----------
    leakage : balanced accuracy − chance.
    balanced_accuracy : out-of-fold balanced accuracy.
    chance : 1 / number of groups.
    n_folds : folds used.
    split : ``speaker`` (folds split by speaker) or ``item`` (no speaker ids).
    note : why the probe used fewer folds than asked, or was not run (NaN values): a coded
        note (``representation.*``, worded by fairdesk.presentation.representation_words);
        None when it ran as asked. A run stored before the notes were coded kept the
        sentence (``stored.sentence``; ``""`` when there was none).
    """

    leakage: float
    balanced_accuracy: float
    chance: float
    n_folds: int
    split: str
    note: Notice | None = None


#: Note codes of the probe (worded by fairdesk.presentation.representation_words): not run,
#: a group has one speaker (``groups``: the first five); not run, fewer than 2 folds
#: possible; run with fewer folds than asked.
SINGLE_SPEAKER_GROUPS = "representation.single_speaker_groups"
TOO_FEW_FOLDS = "representation.too_few_folds"
FEWER_FOLDS = "representation.fewer_folds"


def leakage(
    embeddings, groups, speakers: Sequence | None = None, *, n_splits: int = 5, seed: int = 0
) -> Leakage:
    """Balanced accuracy above chance of a logistic probe predicting group from embedding.

    Out-of-fold predictions from ``StratifiedGroupKFold`` with speakers as the groups, so no
    speaker is ever in both train and test; without speaker ids, ``StratifiedKFold`` over
    items. The probe is ``StandardScaler`` + ``LogisticRegression``.

    Parameters
    ----------
    embeddings : ``(n_items, dim)`` array.
    groups : group label per item.
    speakers : speaker id per item (None or all missing: item-level folds; a missing id is
        its own speaker).
    n_splits : folds (reduced to the number of speakers when fewer).
    seed : fold shuffling seed.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = np.asarray(embeddings, dtype=float)
    y = _labels(groups)
    classes = sorted(set(y.tolist()))
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError(
            f"embeddings must be (n_items, dim) with one group per item; got {X.shape} "
            f"embeddings and {len(y)} group labels."
        )
    chance = 1.0 / len(classes) if classes else math.nan
    if len(classes) < 2:
        return Leakage(math.nan, math.nan, chance, 0, "none")
    spk = None
    if speakers is not None:
        s = np.asarray(speakers, dtype=object)
        miss = np.array([v is None or (isinstance(v, float) and math.isnan(v)) for v in s])
        if not miss.all():
            s = np.where(
                miss, np.array(["\0item" + str(i) for i in range(len(s))], dtype=object), s
            )
            spk = np.array([str(v) for v in s], dtype=object)
    _, counts = np.unique(y.astype(str), return_counts=True)
    if spk is not None:
        # Folds need two speakers, and a group with at least k items (sklearn refuses k
        # folds when every group has fewer items): small groups give fewer folds, or none.
        k = int(min(n_splits, len(set(spk.tolist())), counts.max()))
        lone = sorted(c for c in classes if len(set(spk[y == c].tolist())) < 2)
        if lone:  # its one speaker is always in the test fold: the probe never sees the group
            return Leakage(
                math.nan,
                math.nan,
                chance,
                0,
                "speaker",
                notice(SINGLE_SPEAKER_GROUPS, groups=tuple(str(g) for g in lone[:5])),
            )
        if k < 2:
            return Leakage(
                math.nan,
                math.nan,
                chance,
                0,
                "speaker",
                _few(n_splits, counts, len(set(spk.tolist()))),
            )
        cv = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
        splits = list(cv.split(X, y, groups=spk))
        split = "speaker"
    else:
        k = int(min(n_splits, counts.min()))
        if k < 2:
            return Leakage(math.nan, math.nan, chance, 0, "item", _few(n_splits, counts, None))
        cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        splits = list(cv.split(X, y))
        split = "item"
    pred = np.empty(len(y), dtype=object)
    for train, test in splits:
        train_classes = set(y[train].tolist())
        if len(train_classes) < 2:
            pred[test] = next(iter(train_classes))
            continue
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        model.fit(X[train], y[train])
        pred[test] = model.predict(X[test])
    bacc = float(balanced_accuracy_score(y.astype(str), pred.astype(str)))
    note = (
        None
        if k == n_splits
        else notice(
            FEWER_FOLDS,
            k=k,
            n_splits=n_splits,
            min_items=int(counts.min()),
            max_items=int(counts.max()),
            n_speakers=len(set(spk.tolist())) if spk is not None else None,
        )
    )
    return Leakage(bacc - chance, bacc, chance, k, split, note)


def _few(n_splits: int, counts, n_speakers: int | None) -> Notice:
    return notice(
        TOO_FEW_FOLDS,
        n_splits=n_splits,
        n_speakers=n_speakers,
        min_items=int(counts.min()),
        max_items=int(counts.max()),
    )


def case_label(structure: bool, disparity: bool) -> str:
    """The case (docs/METHODS.md, "Representation") of one metric from structure and disparity."""
    if structure and disparity:
        return "representation_linked_disparity"
    if structure:
        return "representation_only"
    if disparity:
        return "disparity_not_representation_linked"
    return "no_structure_no_disparity"


@dataclass(frozen=True)
class RepresentationResult:
    """Representation analysis of one run.

    Attributes
    ----------
    silhouette : cosine silhouette of embeddings by group.
    leakage : the probe result.
    threshold : structure threshold used.
    structure : silhouette ≥ threshold or leakage ≥ threshold.
    cases : metric id → case label.
    """

    silhouette: float
    leakage: Leakage
    threshold: float
    structure: bool
    cases: dict

    def to_dict(self) -> ResultJson:
        """JSON-ready dict (NaN → None)."""
        from fairdesk.core.jsonio import jsonable

        return ResultJson(jsonable(self))


def representation_analysis(
    embeddings,
    groups,
    speakers=None,
    *,
    result=None,
    disparity: dict | None = None,
    threshold: float | None = None,
    n_splits: int = 5,
    seed: int = 0,
) -> RepresentationResult:
    """Silhouette, leakage and the case label of every metric.

    Parameters
    ----------
    embeddings, groups, speakers : one embedding, group and speaker id per item (use the
        analysed groups only).
    result : an ``AuditResult``; disparity of a metric = any comparison with verdict
        ``disparity_detected``; its settings give the default threshold and seed.
    disparity : alternatively ``{metric id: bool}`` (overrides ``result``'s).
    threshold : structure threshold (default ``settings.structure_threshold`` or 0.1).
    n_splits, seed : probe folds and seed.
    """
    if threshold is None:
        threshold = result.settings.structure_threshold if result is not None else 0.1
    if result is not None and seed == 0:
        seed = result.settings.seed
    flags: dict[str, bool] = {}
    if result is not None:
        for c in result.comparisons:
            flags[c.metric] = flags.get(c.metric, False) or c.verdict == "disparity_detected"
        for m in result.summary:
            flags.setdefault(m, False)
    flags.update(disparity or {})
    sil = silhouette(embeddings, groups, seed=seed)
    leak = leakage(embeddings, groups, speakers, n_splits=n_splits, seed=seed)
    structure = bool(
        (math.isfinite(sil) and sil >= threshold)
        or (math.isfinite(leak.leakage) and leak.leakage >= threshold)
    )
    cases = {m: case_label(structure, d) for m, d in flags.items()}
    return RepresentationResult(sil, leak, threshold, structure, cases)
