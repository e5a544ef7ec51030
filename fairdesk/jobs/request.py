"""The request and the outcome of an audit (:mod:`.audit`): plain frozen data, so that the
GUI, the command line and the cache key all read the same fields."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from fairdesk.core.jsonio import ResultJson

from ..stats.settings import AuditSettings

if TYPE_CHECKING:
    import pandas as pd

    from .result import AuditRun
    from .result_parts import ItemFailure

__all__ = ["AuditOutcome", "AuditRequest", "request_filters", "with_settings"]


@dataclass(frozen=True)
class AuditRequest:
    """Everything that defines an audit run (and its cache key).

    Parameters
    ----------
    dataset : dataset name in the project (the one the run is filed under).
    model : model id (``whisper-tiny.en``, ``pocketsphinx-en-us``, ``hf:<folder>``,
        ``predictions:<file>``).
    by : one or two grouping columns.
    filters : ``((column, (value, ...)), ...)``.
    reference : reference group label (None: the largest group).
    metrics : metric ids to compare (None: every metric the data supports).
    sample : stratified sample of this many items per group (None: all).
    device : ``auto``, ``cpu`` or ``cuda``.
    nlu : ``auto`` (the embedded music NLU when the dataset has intent labels the NLU
        knows), ``none``, or an NLU spec (``demo-music``, ``hf:<folder>``, ``table:<file>``).
    representation : also embed every item and compute silhouette and leakage.
    explain : run the explain stage (saliency on a speaker-balanced sample, grounding lift);
        also switched on by asking for the metric ``grounding_lift``.
    explain_per_group : items per group in the explain sample.
    explain_method : ``occlusion`` (any model that scores text), ``gradxinput`` or
        ``integrated_gradients`` (differentiable hf models).
    unstable : decode every item twice more with sampling for the ``unstable``
        hallucination flag (backends with ``transcribe_sampled`` only).
    model_based : also fit the mixed-effects Poisson model of word errors per grouping
        column (:mod:`fairdesk.jobs.model_based`; result under ``model_based``).
    covariates : covariate columns of that model (per-item acoustic covariates, ``n_words``
        or numeric metadata).
    settings : statistics settings.
    shard_size : items per inference shard.
    workers : inference worker threads (None: the backend's preference); with
        ``engine="ray"``, model actors (None: one per free CPU slot / GPU of the cluster).
    engine : ``local`` (threads in this process) or ``ray`` (actors on a Ray cluster,
        :mod:`fairdesk.jobs.engines`, for inference, the explain stage's saliency and the
        representation stage's embeddings); not part of the cache key (same answers).
    ray_address : ``None`` (start a local Ray), ``auto`` or ``ray://HOST:10001``.
    audio_transport : ``bytes`` (the driver decodes and ships the samples) or ``path``
        (workers read the files from a path the cluster shares).
    more_datasets : further datasets audited with it as one set (a pilot and its new
        recordings; :mod:`fairdesk.core.dataset_sets`: items keyed by dataset).
    reference_text : which reference text is scored
        (docs/METHODS.md, "References from several annotators"): ``latest`` (default), ``imported``, ``annotator:NAME``,
        ``adjudicated`` or ``resample`` (:mod:`fairdesk.jobs.reference_text`).
    """

    dataset: str
    model: str
    by: tuple[str, ...]
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    reference: str | None = None
    metrics: tuple[str, ...] | None = None
    sample: int | None = None
    device: str = "auto"
    nlu: str = "auto"
    representation: bool = False
    explain: bool = False
    explain_per_group: int = 12
    explain_method: str = "occlusion"
    unstable: bool = False
    model_based: bool = False
    covariates: tuple[str, ...] = ()
    settings: AuditSettings = field(default_factory=AuditSettings)
    shard_size: int = 8
    workers: int | None = None
    engine: str = "local"
    ray_address: str | None = None
    audio_transport: str = "bytes"
    more_datasets: tuple[str, ...] = ()
    reference_text: str = "latest"

    def __post_init__(self) -> None:
        from .reference_text import parse_reference_text

        object.__setattr__(self, "reference_text", parse_reference_text(self.reference_text))

    @property
    def dataset_names(self) -> tuple[str, ...]:
        """Every dataset of the audit, ``dataset`` first, each once."""
        return tuple(dict.fromkeys((self.dataset, *self.more_datasets)))

    def filters_dict(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in self.filters}

    @property
    def wants_explain(self) -> bool:
        """Whether the explain stage runs (``explain``, or ``grounding_lift`` asked for)."""
        return bool(self.explain) or "grounding_lift" in (self.metrics or ())


@dataclass(frozen=True)
class AuditOutcome:
    """What a run produced: the per-item frame, failures and the typed result.

    Attributes
    ----------
    run_id : the run's id in the project.
    request : the request.
    frame : one row per analysed item with hypothesis and stats (None when answered from
        the result cache or when every item failed).
    failures : the items that could not be processed.
    result : the typed result (:class:`~fairdesk.jobs.result.AuditRun`; its ``to_json()``
        is what the store keeps).
    from_cache : answered from the stored results.
    timings : wall seconds of the stages.
    """

    run_id: int
    request: AuditRequest
    frame: pd.DataFrame | None
    failures: tuple[ItemFailure, ...]
    result: AuditRun
    from_cache: bool
    timings: dict

    def to_dict(self) -> ResultJson:
        """The result's JSON payload (``AuditRun.to_json``)."""
        return ResultJson(self.result.to_json())


def request_filters(
    filters: Mapping[str, Sequence[str]] | None, by: Sequence[str] = ()
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``AuditRequest.filters`` of ``{column: [value, ...]}``: sorted by column, each
    column's values in the order given without repeats (an item passes when its value is one
    of them; several columns must all pass). The command line's ``--filter`` and the GUI's
    filter rows both build the request's filters here.

    Raises
    ------
    ValueError
        A column is also a grouping column, or a column has no value.
    """
    out = []
    for col, values in sorted((filters or {}).items()):
        vals = tuple(dict.fromkeys(str(v) for v in values))
        if not vals:
            raise ValueError(f"filter on {col!r} has no value: give COLUMN=VALUE")
        out.append((str(col), vals))
    both = sorted({c for c, _ in out} & set(by))
    if both:
        raise ValueError(f"column(s) {both} can't be both a filter and a grouping key")
    return tuple(out)


def with_settings(req: AuditRequest, **changes) -> AuditRequest:
    """A copy of ``req`` with statistics settings changed."""
    return replace(req, settings=replace(req.settings, **changes))
