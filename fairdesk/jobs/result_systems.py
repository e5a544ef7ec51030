"""The typed stored result of a comparison of systems (``results.kind``
``system_comparison``): which run holds each system's own audit, and the system and gap
differences of :func:`fairdesk.stats.systems.compare_systems`, round-tripping through JSON
with the one codec (:mod:`fairdesk.jobs.result_codec`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdesk.jobs.result_codec import canonical, decode_dataclass, encode_dataclass
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.system_results import (
    ClassicalTests,
    CommonItems,
    GapDifference,
    SystemComparisonResult,
    SystemDifference,
)

#: ``results.kind`` of a stored comparison of systems.
KIND = "system_comparison"
#: Version of this part's layout.
SCHEMA_VERSION = 1


def _empty() -> dict:
    return {}


@dataclass(frozen=True)
class SystemComparisonRun:
    """A stored comparison of systems on the same items.

    Attributes
    ----------
    kind : always :data:`KIND`.
    schema_version : :data:`SCHEMA_VERSION` of the layout.
    systems : the system names, the baseline first.
    baseline : the baseline A.
    runs : system name → the id of the run that holds its own audit on the common items
        (None where it was not stored).
    reference : the reference group of the gaps.
    groups : the analysed groups.
    common : the common item set and each system's failures.
    differences, gap_differences, classical : as in
        :class:`fairdesk.stats.system_results.SystemComparisonResult`.
    bootstrap : B used and its rule (free-form).
    settings : the run settings.
    extra : keys a later release adds (kept as they came).
    """

    kind: str = KIND
    schema_version: int = SCHEMA_VERSION
    systems: tuple[str, ...] = ()
    baseline: str | None = None
    runs: Mapping[str, int | None] = field(default_factory=_empty)
    reference: str | None = None
    groups: tuple[str, ...] = ()
    common: CommonItems | None = None
    differences: tuple[SystemDifference, ...] = ()
    gap_differences: tuple[GapDifference, ...] = ()
    classical: tuple[ClassicalTests, ...] = ()
    bootstrap: Any = None
    settings: AuditSettings | None = None
    extra: Mapping[str, Any] = field(default_factory=_empty)


def system_comparison_run(
    result: SystemComparisonResult, runs: Mapping[str, int | None] | None = None
) -> SystemComparisonRun:
    """The stored form of ``result`` (``runs``: system → run id of its own audit), as its
    JSON reads back (NaN as None, lists as tuples)."""
    run = SystemComparisonRun(
        systems=tuple(result.systems),
        baseline=result.baseline,
        runs={s: (runs or {}).get(s) for s in result.systems},
        reference=result.reference,
        groups=tuple(result.groups),
        common=result.common,
        differences=result.differences,
        gap_differences=result.gap_differences,
        classical=result.classical,
        bootstrap=result.bootstrap,
        settings=result.settings,
    )
    return canonical(run, SystemComparisonRun)


def to_json(run: SystemComparisonRun) -> str:
    """The JSON text of a stored comparison."""
    return json.dumps(encode_dataclass(run), ensure_ascii=False, sort_keys=True)


def from_json(text: str | Mapping) -> SystemComparisonRun:
    """A stored comparison from its JSON (text or parsed).

    Raises
    ------
    ValueError
        The payload is not a ``system_comparison`` result.
    """
    data = json.loads(text) if isinstance(text, str) else text
    if not isinstance(data, Mapping) or data.get("kind") != KIND:
        got = data.get("kind") if isinstance(data, Mapping) else type(data).__name__
        raise ValueError(f"Not a stored comparison of systems (kind {got!r}, expected {KIND!r}).")
    return decode_dataclass(SystemComparisonRun, data)
