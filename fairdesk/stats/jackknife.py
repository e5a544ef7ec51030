"""The speaker jackknife's test of a comparison (docs/METHODS.md, "Verdicts": speaker confounding).

Each group speaker is left out in turn and the comparison redone with the same machinery
(:func:`fairdesk.stats.bootstrap.jackknife_group_speakers`: the comparison's reference
replicates and content draws reused, the remaining speakers redrawn). A significant result
that one speaker's absence turns non-significant (or, for a practical one, not practical)
is ``speaker_confounded``.
"""

from __future__ import annotations

import numpy as np

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.bootstrap import SpeakerJackknife
from fairdesk.stats.formulas import gap_ratio
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.verdicts import is_practical


def jackknife_tests(
    jk: SpeakerJackknife,
    spec: MetricSpec,
    cols: list[int],
    reference_reps: np.ndarray,
    reference_value: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each leave-one-speaker-out's bootstrap p (unadjusted), gap and group value.

    Parameters
    ----------
    jk : the group's jackknife.
    spec, cols : the metric and its statistic columns in ``jk``.
    reference_reps : the reference's replicate values of the metric (B,).
    reference_value : the reference's value.
    """
    v_j = np.asarray(spec.compute(jk.point[..., cols]), dtype=float)  # J
    gap_j = v_j - reference_value
    reps = np.asarray(spec.compute(jk.reps[..., cols]), dtype=float)
    reps_j = reps - reference_reps[None, :]  # J × B
    finite = np.isfinite(reps_j)
    exceed = (np.abs(reps_j - gap_j[:, None]) >= np.abs(gap_j)[:, None]) & finite
    p_j = (1 + exceed.sum(axis=1)) / (finite.sum(axis=1) + 1)
    return p_j, gap_j, v_j


def jackknife_flips(
    jack: tuple[np.ndarray, np.ndarray, np.ndarray],
    spec: MetricSpec,
    reference_value: float,
    multiplier: float,
    practical: bool,
    settings: AuditSettings,
) -> bool:
    """Whether leaving out some single group speaker changes the conclusion.

    ``jack`` is :func:`jackknife_tests`'s (p, gap, value) per left-out speaker; each p gets
    the comparison's own Holm multiplier. A practical result flips when some leave-one-out
    is non-significant or not practical; a significant-but-small one when some
    leave-one-out is non-significant.
    """
    p_j, gap_j, v_j = jack
    p_j_adj = np.minimum(1.0, multiplier * p_j)
    nonsig = ~np.isfinite(gap_j) | (p_j_adj >= settings.alpha)
    if nonsig.any():
        return True
    if practical:
        for gj, vj in zip(gap_j, v_j, strict=True):
            if not is_practical(float(gj), gap_ratio(float(vj), reference_value), spec, settings):
                return True
    return False
