"""The result of a regression run (docs/METHODS.md, "Regression" and "Corpus-specific analyses"), typed: :class:`RegressionRun`, with its
JSON form.

``to_json()`` gives the payload stored with the run (``results`` row of kind
``"regression"``) with ``"schema": SCHEMA`` added; ``from_json()`` reads it back (any
schema up to :data:`SCHEMA`), and a payload without ``schema`` is the first layout (``run_id``, ``request``, ``result``,
``created_at``: every regression stored before the version existed; a request without
``family`` is a logistic one). Values JSON cannot hold, field by field:

- ``result``: the fitted models' own ``to_dict`` already writes an undefined number (an odds
  ratio that could not be estimated, a p-value of a model that was not fitted) as null, and
  null is read back as None ("not estimated"), which every reader shows as "–"; a NaN or
  infinity left anywhere in it is written as null too;
- ``created_at``: seconds since the epoch, null read as 0;
- everything else as stored.

Every p-value of ``result`` has its base-10 logarithm beside it (``p_value`` → ``p_log10``,
``llr_p_value`` → ``llr_p_log10``, ``p_adjusted`` → ``p_adjusted_log10``, ...; computed by
fairdesk.stats.regression.logp), which keeps the size of a p that underflowed to 0.0
(docs/METHODS.md, "Conclusions and p-values"). A result stored before those keys existed is
read with them filled in (:func:`with_p_log10`): ``log10(p)`` where p > 0, null where p is
0.0 (its size is lost; it reads ``< 1e-300``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fairdesk.core.jsonio import ResultJson

from ..core.jsonio import jsonable
from ..core.pvalues import p_log10
from ..stats.regression.linear_results import LinearResult
from ..stats.regression.poisson_mixed_result import MixedPoissonResult
from ..stats.regression.results import RegressionResult

__all__ = [
    "FAMILIES",
    "ITEM_COVARIATES",
    "SCHEMA",
    "RegressionRequest",
    "RegressionRun",
    "log10_key",
    "outcome_label",
    "with_p_log10",
]

#: The version ``to_json`` writes; ``from_json`` reads it and payloads without one.
#: 2: the logistic and OLS results' notes (cautions, data notes, problems, reasons) are
#: coded notes (``{"code", "args"}``, fairdesk.stats.regression.codes) where schema 1 and
#: before stored sentences; the layout is otherwise the same.
SCHEMA = 2
#: The model families (``request["family"]``): logistic (Sekkat et al. 2024), OLS of WER on
#: covariates (the fairness-slicing panel, docs/METHODS.md, "Sources"), and a mixed-effects Poisson of word errors with a speaker random
#: intercept.
FAMILIES = ("logit", "linear", "poisson-mixed")
#: Per-item covariates a project run stores (fairdesk.core.acoustics), and the word count.
ITEM_COVARIATES = (
    "duration_s",
    "nonspeech_share",
    "snr_db",
    "speech_rate",
    "asr_confidence",
    "n_words",
)


#: How sentences name a run's outcome (:func:`outcome_label`); any other outcome is a 0/1
#: column, named as it is.
OUTCOME_LABELS = {"em": "exact match", "correct": "recognised without error", "wer": "word errors"}


def outcome_label(outcome: str) -> str:
    """How the sentences name the outcome of a run's regression (``em`` -> exact match)."""
    return OUTCOME_LABELS.get(outcome, outcome)


#: The keys of a result's p-values other than ``*p_value``, and a p's (``p_before`` ...).
_P_KEYS = ("p_adjusted", "p_before", "p_after")


def log10_key(key: str) -> str | None:
    """The key of the logarithm stored beside the p-value ``key`` (``p_value`` ->
    ``p_log10``, ``lr_p_value`` -> ``lr_p_log10``, ``p_adjusted`` -> ``p_adjusted_log10``);
    None for a key that is not a p-value."""
    if key.endswith("p_value"):
        return key[: -len("p_value")] + "p_log10"
    return f"{key}_log10" if key in _P_KEYS else None


def with_p_log10(obj):
    """``obj`` (a stored result: dicts and lists) with each p-value's missing logarithm
    filled in: ``log10(p)``, or None where p is 0.0 or missing. Logarithms already there are
    kept."""
    if isinstance(obj, list):
        return [with_p_log10(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out = {k: with_p_log10(v) for k, v in obj.items()}
    for k, v in obj.items():
        lk = log10_key(str(k))
        if lk is not None and lk not in out and (v is None or isinstance(v, (int, float))):
            out[lk] = p_log10(v)
    return out


def _no_references() -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class RegressionRequest:
    """What a regression fitted: ``family`` (one of :data:`FAMILIES`), ``outcome``,
    ``variables``, ``covariates``, ``filters`` (``COL=VAL``), ``cluster`` (None: none),
    ``alpha`` and ``references`` (variable → reference level)."""

    family: str = "logit"
    outcome: str = ""
    variables: tuple[str, ...] = ()
    covariates: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    cluster: str | None = None
    alpha: float = 0.05
    references: Mapping[str, str] = field(default_factory=_no_references)

    def to_json(self) -> ResultJson:
        """The stored ``request`` dict."""
        return ResultJson(
            {
                "family": self.family,
                "outcome": self.outcome,
                "variables": list(self.variables),
                "covariates": list(self.covariates),
                "filters": list(self.filters),
                "cluster": self.cluster,
                "alpha": float(self.alpha),
                "references": dict(self.references),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any], family: str | None = None) -> RegressionRequest:
        """A stored ``request`` (keys missing in older ones take their defaults; ``family``:
        the one to use when the request does not name it)."""
        cluster = d.get("cluster")
        return cls(
            family=str(d.get("family") or family or "logit"),
            outcome=str(d.get("outcome") or ""),
            variables=tuple(str(v) for v in d.get("variables") or ()),
            covariates=tuple(str(c) for c in d.get("covariates") or ()),
            filters=tuple(str(f) for f in d.get("filters") or ()),
            cluster=None if cluster is None else str(cluster),
            alpha=float(d.get("alpha", 0.05)),
            references={str(k): str(v) for k, v in (d.get("references") or {}).items()},
        )


#: A fitted result: the logistic (or binomial) family's, the OLS family's, or the mixed
#: Poisson family's stored dict.
FamilyResult = RegressionResult | LinearResult | MixedPoissonResult


def decode_result(request: RegressionRequest, d: Mapping[str, Any]) -> FamilyResult:
    """The typed result of a stored ``result`` dict of ``request``'s family."""
    full: dict = with_p_log10(dict(d))
    if request.family == "linear":
        return LinearResult.from_json(full)
    if request.family == "logit":
        return RegressionResult.from_json(full, request.outcome, request.alpha)
    return MixedPoissonResult.from_json(full)


def encode_result(result: FamilyResult) -> dict[str, Any]:
    """The stored ``result`` dict (the notes as codes)."""
    if isinstance(result, RegressionResult):
        return result.to_json(detail=True)
    if isinstance(result, LinearResult):
        return result.to_json()
    return dict(result.to_json())


@dataclass(frozen=True)
class RegressionRun:
    """One regression of a run's (or a table's) items.

    Attributes
    ----------
    request : what was fitted (:class:`RegressionRequest`).
    result : the fitted models: :class:`~fairdesk.stats.regression.RegressionResult`
        (logistic family), :class:`~fairdesk.stats.regression.linear_results.LinearResult`
        (OLS), :class:`~fairdesk.stats.regression.poisson_mixed_result.MixedPoissonResult`
        (mixed Poisson).
    created_at : when it was fitted (seconds since the epoch).
    run_id : the regressed run (None for a table).
    result_id : its stored ``results`` row (None when not stored).
    table_rows, table_problems : a table's rows (not stored).
    """

    request: RegressionRequest
    result: FamilyResult
    created_at: float = 0.0
    run_id: int | None = None
    result_id: int | None = None
    #: A table's rows used and refused (:class:`~fairdesk.jobs.result_parts.TableRows`) and
    #: the refused rows (``line``, ``reason``, ``source``); None / () for a stored run.
    table_rows: object = field(default=None, compare=False)
    table_problems: tuple = field(default=(), compare=False)

    @property
    def family(self) -> str:
        """``logit``, ``linear`` or ``poisson-mixed``."""
        return self.request.family

    @property
    def outcome(self) -> str:
        """The fitted outcome (``em``, ``correct``, ``wer``, a column ...)."""
        return self.request.outcome

    @property
    def variables(self) -> list[str]:
        """The demographic variables regressed on."""
        return list(self.request.variables)

    @property
    def alpha(self) -> float:
        """The significance level (CIs at ``1 - alpha``)."""
        return float(self.request.alpha)

    def with_result_id(self, result_id: int | None) -> RegressionRun:
        """This regression, stored as ``results`` row ``result_id``."""
        return replace(self, result_id=None if result_id is None else int(result_id))

    def to_json(self) -> ResultJson:
        """The JSON-ready payload stored with the run (see the module docstring)."""
        return ResultJson(
            jsonable(
                {
                    "schema": SCHEMA,
                    "run_id": self.run_id,
                    "request": self.request.to_json(),
                    "result": encode_result(self.result),
                    "created_at": self.created_at,
                }
            )
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any], result_id: int | None = None) -> RegressionRun:
        """The regression of a stored payload (any schema up to :data:`SCHEMA`, or none).

        Raises
        ------
        ValueError
            A schema newer than this fairdesk reads.
        """
        v = d.get("schema")
        if v is not None and (not isinstance(v, int) or v > SCHEMA):
            raise ValueError(
                f"this regression result has schema {v!r}; this fairdesk reads schema "
                f"{SCHEMA} or older (a newer fairdesk wrote it: update fairdesk)"
            )
        rid = d.get("result_id") if result_id is None else result_id
        stored = dict(d.get("result") or {})
        request = RegressionRequest.from_json(
            d.get("request") or {}, family=stored.get("family") or "logit"
        )
        return cls(
            request=request,
            result=decode_result(request, stored),
            created_at=float(d.get("created_at") or 0.0),
            run_id=None if d.get("run_id") is None else int(d["run_id"]),
            result_id=None if rid is None else int(rid),
        )
