"""Simulated audits of two systems on the same items, with known truth (docs/METHODS.md,
"Validation": two systems on the same items).

As :func:`fairdesk.stats.simulation.simulate_audit`, with each system's logit adding a
system effect per group and an utterance effect u ~ N(0, 0.4²) per utterance and system, the
two systems' u correlated at 0.7; the speaker and sentence effects are shared:
``logit p_s = base + group effect + system effect[s][group] + speaker + sentence + u_s``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from fairdesk.stats.simulation import ERROR_SPLIT, SENTENCE_SD, SPEAKER_SD

UTTERANCE_SD = 0.4
UTTERANCE_CORR = 0.7


def _correlated_u(rng, n, sd=UTTERANCE_SD, corr=UTTERANCE_CORR) -> np.ndarray:
    cov = sd**2 * np.array([[1.0, corr], [corr, 1.0]])
    return rng.multivariate_normal([0.0, 0.0], cov, size=n)


def simulate_two_systems(
    rng: np.random.Generator,
    group_effects: dict[str, float],
    system_effects: dict[str, float],
    *,
    design: str = "matched",
    speakers_per_group: int = 12,
    n_sentences: int = 30,
    utterances_per_speaker: int = 15,
    base: float = -1.7,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two item frames (systems A and B) of one simulated audit.

    ``group_effects`` are A's logit effects per group; ``system_effects`` B's extra logit per
    group (A has none). ``design``: ``matched`` (every speaker reads the same sentences) or
    ``unmatched`` (every utterance its own sentence). Columns: ``item_id, group, speaker_id,
    content_id, n_words, n_sub, n_del, n_ins``.
    """
    if design == "matched":
        words = rng.integers(5, 12, size=n_sentences)
        sent_eff = rng.normal(0, SENTENCE_SD, size=n_sentences)
    parts = []
    for g, eff in group_effects.items():
        s_eff = rng.normal(0, SPEAKER_SD, size=speakers_per_group)
        if design == "matched":
            si = np.repeat(np.arange(speakers_per_group), n_sentences)
            ci = np.tile(np.arange(n_sentences), speakers_per_group)
            w, z = words[ci], sent_eff[ci]
            content = np.array(["s" + str(c) for c in ci], dtype=object)
        elif design == "unmatched":
            si = np.repeat(np.arange(speakers_per_group), utterances_per_speaker)
            w = rng.integers(5, 12, size=si.size)
            z = rng.normal(0, SENTENCE_SD, si.size)
            content = np.array([str(g) + "/u" + str(i) for i in range(si.size)], dtype=object)
        else:
            raise ValueError(f"Unknown design {design!r}: matched or unmatched.")
        u = _correlated_u(rng, si.size)
        logit = base + eff + s_eff[si] + z
        frames = []
        for s, extra in ((0, 0.0), (1, system_effects.get(g, 0.0))):
            err = rng.binomial(w, expit(logit + extra + u[:, s]))
            split = rng.multinomial(err, ERROR_SPLIT)
            frames.append(
                pd.DataFrame(
                    {
                        "group": g,
                        "speaker_id": np.array(
                            [str(g) + "/spk" + str(k) for k in si], dtype=object
                        ),
                        "content_id": content,
                        "n_words": w,
                        "n_sub": split[:, 0],
                        "n_del": split[:, 1],
                        "n_ins": split[:, 2],
                    }
                )
            )
        parts.append(frames)
    out = []
    for s in (0, 1):
        f = pd.concat([p[s] for p in parts], ignore_index=True)
        f.insert(0, "item_id", np.arange(len(f)))
        out.append(f)
    return out[0], out[1]


def true_wer(
    effect: float, *, base: float = -1.7, n_draws: int = 2_000_000, seed: int = 12345
) -> float:
    """Population pooled WER E[N p]/E[N] of one system in one group (logit effect
    ``effect``), over speakers, sentences and utterances, by Monte Carlo (common random
    numbers for a fixed seed)."""
    rng = np.random.default_rng(seed)
    n = rng.integers(5, 12, size=n_draws)
    z = (
        rng.normal(0, SPEAKER_SD, n_draws)
        + rng.normal(0, SENTENCE_SD, n_draws)
        + rng.normal(0, UTTERANCE_SD, n_draws)
    )
    p = expit(base + effect + z)
    return float((n * p).sum() / n.sum())


def equal_gap_effect(gap: float, base_effect: float, *, tol: float = 1e-5) -> float:
    """The logit effect whose population WER exceeds that of ``base_effect`` by ``gap``
    (bisection on :func:`true_wer`): B's group effect that keeps A's gap on the pooled-WER
    scale."""
    target = true_wer(base_effect) + gap
    lo, hi = base_effect - 5.0, base_effect + 5.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if true_wer(mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
