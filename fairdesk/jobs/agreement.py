"""``fairdesk agreement``: the annotators' versions of a dataset's items read from the project
and handed to :func:`fairdesk.stats.agreement.agreement` (docs/METHODS.md,
"References from several annotators")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.errors import FairdeskError
from ..core.versions import said_annotator
from ..stats.agreement import AgreementItem, AgreementResult, agreement

if TYPE_CHECKING:
    from ..core.store import Project
    from .result import AuditRun

__all__ = ["dataset_agreement", "dataset_annotators", "run_agreement", "run_by"]


def _value(v) -> str | None:
    from ..stats.slicing import is_missing_value

    return None if is_missing_value(v) else str(v)


def dataset_annotators(project: Project, dataset: str) -> list[str]:
    """The annotators with a version of any of ``dataset``'s items, in name order (NFC,
    trimmed; ``unnamed`` for rows stored without a name); adjudicators are not annotators."""
    frame = project.items(project.dataset(dataset))
    if not len(frame):
        return []
    versions = project.transcript_versions(int(i) for i in frame["db_id"])
    return sorted({v.annotator for iv in versions.values() for v in iv.versions})


def dataset_agreement(
    project: Project,
    dataset: str,
    annotators: Sequence[str] | None = None,
    by: str | None = None,
    normaliser: str = "auto",
    n_bootstrap: int = 2000,
    seed: int = 0,
    top: int = 20,
) -> AgreementResult:
    """The agreement of ``annotators`` (None: every annotator with a version in the dataset)
    on the dataset's items, overall and per value of column ``by``.

    Raises
    ------
    FairdeskError
        Fewer than two annotators, an annotator without any version, or an unknown column.
    """
    from ..metrics.normalize import choose_normaliser, get_normalizer

    ds = project.dataset(dataset)
    frame = project.items(ds)
    if by is not None and by not in frame.columns:
        cols = ", ".join(c for c in frame.columns if c not in ("db_id", "audio_hash"))
        raise FairdeskError(f"--by {by}: no such column in dataset {dataset!r} (columns: {cols})")
    versions = project.transcript_versions(int(i) for i in frame["db_id"]) if len(frame) else {}
    have = sorted({v.annotator for iv in versions.values() for v in iv.versions})
    if annotators:
        names = list(dict.fromkeys(said_annotator(a) for a in annotators if str(a).strip()))
        unknown = [n for n in names if n not in have]
        if unknown:
            raise FairdeskError(
                f"--annotators: {', '.join(unknown)} annotated no item of dataset {dataset!r} "
                f"(annotators: {', '.join(have) or 'none'}; names compare after Unicode NFC "
                "and trimming)"
            )
    else:
        names = have
    if len(names) < 2:
        raise FairdeskError(
            f"agreement needs two annotators with versions of dataset {dataset!r}'s items "
            f"(annotators: {', '.join(have) or 'none'}); import another annotator's "
            "TextGrids with `fairdesk annotate --annotator NAME`"
        )
    items = []
    for key, db, spk, group in zip(
        frame["id"],
        frame["db_id"],
        frame["speaker_id"],
        frame[by] if by is not None else [None] * len(frame),
    ):
        iv = versions.get(int(db))
        texts = tuple(
            (v.text if (v := iv.version(n)) is not None else None) if iv is not None else None
            for n in names
        )
        if sum(t is not None for t in texts) >= 1:
            items.append(AgreementItem(str(key), _value(spk), _value(group), texts))
    every = [t for it in items for t in it.texts if t is not None]
    if normaliser == "auto":
        lang = ds.language if ds.language and ds.language != "auto" else None
        normaliser, _reason = choose_normaliser(every, lang)
    norm = get_normalizer(normaliser, ds.language or "und")
    return agreement(
        items,
        names,
        norm,
        normaliser,
        by=by,
        n_bootstrap=n_bootstrap,
        seed=seed,
        top=top,
    )


def run_by(run: AuditRun) -> str | None:
    """The column a run's agreement is given per value of: its grouping column when it has
    one (several columns or none: overall only)."""
    by = tuple(run.by or ())
    return by[0] if len(by) == 1 else None


def run_agreement(
    project: Project, run: AuditRun, n_bootstrap: int | None = None, seed: int = 0
) -> AgreementResult | None:
    """The agreement of every annotator of a run's dataset, overall and per value of its
    grouping column (:func:`run_by`), with ``fairdesk agreement``'s defaults
    (:data:`fairdesk.constants.AGREEMENT_BOOTSTRAP` resamples, seed 0, the normaliser chosen as an audit does): what the
    report's agreement section and the Results view show beside the diacritic comparisons.

    None when the dataset does not have two annotators' versions (or is gone, or the run
    has no dataset): there is no agreement to show.
    """
    from ..constants import AGREEMENT_BOOTSTRAP  # read now: a test may make it smaller

    if not run.dataset:
        return None
    by = run_by(run)
    try:
        ds = project.dataset(run.dataset)
        if by is not None and by not in project.items(ds).columns:
            by = None
        return dataset_agreement(
            project,
            run.dataset,
            by=by,
            n_bootstrap=AGREEMENT_BOOTSTRAP if n_bootstrap is None else n_bootstrap,
            seed=seed,
        )
    except FairdeskError:
        return None
