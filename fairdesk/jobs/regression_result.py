"""The result of a regression run (docs/METHODS.md, "Regression" and "Corpus-specific analyses"), typed: :class:`RegressionRun`, with its
JSON form.

``to_json()`` gives the payload stored with the run (``results`` row of kind
``"regression"``) with ``"schema": SCHEMA`` added; ``from_json()`` reads it back, and a
payload without ``schema`` is today's layout (``run_id``, ``request``, ``result``,
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

from dataclasses import dataclass, field, replace

from ..core.jsonio import jsonable
from ..core.pvalues import p_log10

__all__ = [
    "FAMILIES",
    "ITEM_COVARIATES",
    "SCHEMA",
    "RegressionRun",
    "log10_key",
    "outcome_label",
    "with_p_log10",
]

#: The version ``to_json`` writes; ``from_json`` reads it and payloads without one.
SCHEMA = 1
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


@dataclass(frozen=True)
class RegressionRun:
    """One regression of a run's (or a table's) items.

    Attributes
    ----------
    request : what was fitted: ``family``, ``outcome``, ``variables``, ``covariates``,
        ``filters`` (``COL=VAL``), ``cluster``, ``alpha``, ``references``.
    result : the fitted models with details (what is stored and shown).
    created_at : when it was fitted (seconds since the epoch).
    run_id : the regressed run (None for a table).
    result_id : its stored ``results`` row (None when not stored).
    summary : the result as ``fairdesk regress --json`` writes it (the logistic family's
        without details; not stored: a stored run gives ``result``).
    fit : the fitted :class:`fairdesk.stats.regression.RegressionResult` of the logistic
        family (for the odds-ratio table file; not stored).
    table_rows, table_problems : a table's rows (not stored; also in ``summary``).
    """

    request: dict
    result: dict
    created_at: float = 0.0
    run_id: int | None = None
    result_id: int | None = None
    summary: dict | None = field(default=None, compare=False)
    fit: object = field(default=None, compare=False, repr=False)
    #: A table's rows used and refused (:class:`~fairdesk.jobs.result_parts.TableRows`) and
    #: the refused rows (``line``, ``reason``, ``source``); None / () for a stored run.
    table_rows: object = field(default=None, compare=False)
    table_problems: tuple = field(default=(), compare=False)

    @property
    def family(self) -> str:
        """``logit``, ``linear`` or ``poisson-mixed``."""
        return self.request.get("family") or self.result.get("family") or "logit"

    @property
    def outcome(self) -> str:
        """The fitted outcome (``em``, ``correct``, ``wer``, a column ...)."""
        return str(self.request.get("outcome") or "")

    @property
    def variables(self) -> list[str]:
        """The demographic variables regressed on."""
        return list(self.request.get("variables") or [])

    @property
    def alpha(self) -> float:
        """The significance level (CIs at ``1 - alpha``)."""
        return float(self.request.get("alpha", 0.05))

    @property
    def conclusions(self) -> list[str]:
        """The conclusions the fit stored in words; every view shows
        :func:`fairdesk.presentation.regression_words.regression_conclusions` (these and the
        sentences written from the stored numbers)."""
        return list(self.result.get("conclusions") or [])

    @property
    def problems(self) -> list[str]:
        """What the fit reports as problems (levels left out, models not fitted)."""
        return list(self.result.get("problems") or [])

    def with_result_id(self, result_id: int | None) -> RegressionRun:
        """This regression, stored as ``results`` row ``result_id``."""
        return replace(self, result_id=None if result_id is None else int(result_id))

    def to_json(self) -> dict:
        """The JSON-ready payload stored with the run (see the module docstring)."""
        return jsonable(
            {
                "schema": SCHEMA,
                "run_id": self.run_id,
                "request": self.request,
                "result": self.result,
                "created_at": self.created_at,
            }
        )

    @classmethod
    def from_json(cls, d: dict, result_id: int | None = None) -> RegressionRun:
        """The regression of a stored payload (``to_json()`` or today's layout).

        Raises
        ------
        ValueError
            A schema newer than this fairdesk reads.
        """
        v = d.get("schema")
        if v is not None and (not isinstance(v, int) or v > SCHEMA):
            raise ValueError(
                f"this regression result has schema {v!r}; this fairdesk reads schema "
                f"{SCHEMA} or none (a newer fairdesk wrote it: update fairdesk)"
            )
        rid = d.get("result_id") if result_id is None else result_id
        return cls(
            request=dict(d.get("request") or {}),
            result=with_p_log10(dict(d.get("result") or {})),
            created_at=float(d.get("created_at") or 0.0),
            run_id=None if d.get("run_id") is None else int(d["run_id"]),
            result_id=None if rid is None else int(rid),
        )
