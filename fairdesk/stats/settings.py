"""Per-run settings of a fairness audit (docs/METHODS.md, "Comparisons with the reference" and "Representation"; contract ``AuditSettings``).

Every default is a setting the user can change per run, and every run records the settings it
used next to its results (``AuditSettings.to_dict``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

from fairdesk.constants import MAX_RUN_ITEMS

#: Fields whose default changed: a stored settings dict without the key was written before
#: the change and reads as the old value (``from_dict``), not as today's default.
STORED_DEFAULTS = {"small_cluster_scaling": False}

#: Resampling schemes of docs/METHODS.md, "Resampling schemes" (``auto`` picks one per comparison).
RESAMPLING_CHOICES = ("auto", "two_way", "speaker", "content", "utterance")


def _check_int(name: str, value, low: int, high: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"AuditSettings.{name} must be an integer, got {value!r}.")
    if value < low or (high is not None and value > high):
        span = str(low) + ".." + str(high) if high is not None else ">= " + str(low)
        raise ValueError(f"AuditSettings.{name} must be in {span}, got {value}.")


def _check_float(
    name: str, value, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"AuditSettings.{name} must be a finite number, got {value!r}.")
    too_low = value <= low if low_open else value < low
    too_high = value >= high if high_open else value > high
    if too_low or too_high:
        lb = "(" if low_open else "["
        rb = ")" if high_open else "]"
        raise ValueError(f"AuditSettings.{name} must be in {lb}{low}, {high}{rb}, got {value}.")


@dataclass(frozen=True)
class AuditSettings:
    """Thresholds and choices of one audit run.

    Parameters
    ----------
    n_bootstrap : bootstrap resamples (200..20000).
    seed : base seed; every comparison derives its own stream from it deterministically.
    alpha : significance level applied to Holm-adjusted p-values (0 < alpha < 1).
    absolute_error_gap : a gap at least this large (absolute) is practical.
    disparity_ratio : a ratio (1/ratio for higher-is-better metrics) at least this large is
        practical (> 1).
    grounding_gap : practical gap for grounding metrics (``grounding_lift``).
    min_items : a group needs at least this many items.
    min_speakers : a group needs at least this many speakers where speaker ids exist.
    resampling : ``"auto"`` (the order of docs/METHODS.md, "Resampling schemes") or one of ``"two_way"``, ``"speaker"``,
        ``"content"`` (conditional on the speakers when speaker ids exist), ``"utterance"``.
    structure_threshold : silhouette / leakage at or above this means representation
        structure (docs/METHODS.md, "Representation").
    max_items : run cap (1..MAX_RUN_ITEMS); larger requests are refused with an offer of a
        stratified sample.
    normaliser : text normaliser name used by the metrics (recorded with the results).
    small_cluster_scaling : scale the replicate deviations of the speaker scheme by
        f = √(k/(k−1)) · t_{0.975, k−1} / z_{0.975}, k = speakers on that side
        (``stats.estimability.small_cluster_factor``), for the gap CIs and the group and corpus CIs
        drawn by speakers (per stratum); the two-way scheme is not scaled (docs/METHODS.md,
        "Small numbers of speakers"). On by default; a stored run without the key was made
        before that and reads as off (``STORED_DEFAULTS``).
    max_items_lifted : allow ``max_items`` above MAX_RUN_ITEMS (the explicit lift of
        docs/METHODS.md, "Run cap", ``--max-items N``).
    include_missing : the items with no value for a grouping column form the tested group
        ``(missing)`` (never the default reference); by default they are a descriptive row,
        not compared (docs/METHODS.md, "Missing values"; ``--include-missing``). Runs stored
        without it read as False.
    """

    n_bootstrap: int = 2000
    seed: int = 0
    alpha: float = 0.05
    absolute_error_gap: float = 0.05
    disparity_ratio: float = 1.25
    grounding_gap: float = 0.15
    min_items: int = 30
    min_speakers: int = 5
    resampling: str = "auto"
    structure_threshold: float = 0.1
    max_items: int = MAX_RUN_ITEMS
    normaliser: str = "whisper-english"
    small_cluster_scaling: bool = True
    max_items_lifted: bool = False
    include_missing: bool = False

    def __post_init__(self) -> None:
        _check_int("n_bootstrap", self.n_bootstrap, 200, 20000)
        _check_int("seed", self.seed, 0, None)
        _check_float("alpha", self.alpha, 0.0, 1.0, low_open=True, high_open=True)
        _check_float(
            "absolute_error_gap",
            self.absolute_error_gap,
            0.0,
            math.inf,
            low_open=True,
            high_open=True,
        )
        _check_float(
            "disparity_ratio", self.disparity_ratio, 1.0, math.inf, low_open=True, high_open=True
        )
        _check_float(
            "grounding_gap", self.grounding_gap, 0.0, math.inf, low_open=True, high_open=True
        )
        _check_int("min_items", self.min_items, 1, None)
        _check_int("min_speakers", self.min_speakers, 1, None)
        if self.resampling not in RESAMPLING_CHOICES:
            raise ValueError(
                f"AuditSettings.resampling must be one of {', '.join(RESAMPLING_CHOICES)}, "
                f"got {self.resampling!r}."
            )
        _check_float("structure_threshold", self.structure_threshold, -1.0, 1.0)
        if not isinstance(self.max_items_lifted, bool):
            raise ValueError(
                "AuditSettings.max_items_lifted must be True or False, got "
                f"{self.max_items_lifted!r}."
            )
        if self.max_items > MAX_RUN_ITEMS if isinstance(self.max_items, int) else False:
            if not self.max_items_lifted:
                raise ValueError(
                    f"AuditSettings.max_items must be in 1..{MAX_RUN_ITEMS} unless the cap is "
                    f"lifted explicitly (max_items_lifted=True, --max-items), got "
                    f"{self.max_items}."
                )
        _check_int("max_items", self.max_items, 1, None if self.max_items_lifted else MAX_RUN_ITEMS)
        if not isinstance(self.normaliser, str) or not self.normaliser.strip():
            raise ValueError(
                f"AuditSettings.normaliser must be a non-empty string, got {self.normaliser!r}."
            )

        if not isinstance(self.small_cluster_scaling, bool):
            raise ValueError(
                "AuditSettings.small_cluster_scaling must be True or False, got "
                f"{self.small_cluster_scaling!r}."
            )

        if not isinstance(self.include_missing, bool):
            raise ValueError(
                "AuditSettings.include_missing must be True or False, got "
                f"{self.include_missing!r}."
            )

    def with_run_cap(self, max_items: int) -> AuditSettings:
        """A copy whose run cap is ``max_items``, above MAX_RUN_ITEMS if asked (the explicit
        lift of docs/METHODS.md, "Run cap", ``--max-items``); plain construction keeps refusing it."""
        _check_int("max_items", max_items, 1, None)
        lifted = replace(self, max_items=min(int(max_items), MAX_RUN_ITEMS))
        object.__setattr__(lifted, "max_items", int(max_items))
        return lifted

    def to_dict(self) -> dict:
        """The settings as a plain JSON-ready dict (``max_items_lifted`` only when set, so
        the settings, and the cache keys, of runs under the default cap stay as they were)."""
        d = asdict(self)
        if not d["max_items_lifted"]:
            del d["max_items_lifted"]
        return d

    @classmethod
    def from_dict(cls, data: dict) -> AuditSettings:
        """Settings from a dict such as ``to_dict`` wrote; unknown keys are an error.

        A missing key takes its default, except a key of ``STORED_DEFAULTS``, which takes its
        value there (a dict written before that field's default changed:
        ``small_cluster_scaling`` reads as off); ``include_missing`` reads as False."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"Unknown AuditSettings field(s) {unknown}; known fields: {sorted(known)}."
            )
        data = {**STORED_DEFAULTS, **data}
        cap = data.get("max_items")
        if isinstance(cap, int) and not isinstance(cap, bool) and cap > MAX_RUN_ITEMS:
            return cls(**{**data, "max_items": MAX_RUN_ITEMS}).with_run_cap(cap)
        return cls(**data)
