"""The two-way bootstrap's variance in closed form and the shared-content plan built on it
(fairdesk.stats.pigeonhole; docs/METHODS.md, "Recording plan"), against Monte Carlo draws
and against the exact variance of a larger audit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairdesk.stats import pigeonhole as P
from fairdesk.stats.bootstrap import bootstrap_pair, shared_contents
from fairdesk.stats.planning import _blocks, speaker_curve, two_way_curve
from fairdesk.stats.plans import _sides
from fairdesk.stats.simulation import _study_specs, simulate_audit

WER = next(s for s in _study_specs() if s.id == "wer")


def _pair(frame):
    side, spec, cols = _sides(frame, WER)
    return side("grp"), side("ref"), spec, cols


def _tables(gs, rs):
    shared = shared_contents(gs, rs)
    return _blocks(gs, shared), _blocks(rs, shared)


def _matched(seed, speakers=12, sentences=30, effect=0.3):
    rng = np.random.default_rng(seed)
    return simulate_audit(
        rng, {"ref": 0.0, "grp": effect}, design="matched", speakers_per_group=speakers,
        n_sentences=sentences,
    )  # fmt: skip


def test_the_closed_form_is_the_variance_of_multinomial_weights():
    """Σ (u_s w_c − 1) y[s, c] with u, w multinomial counts, drawn with numpy, for a table
    whose sum is not zero and whose cells are partly empty."""
    rng = np.random.default_rng(0)
    y = rng.normal(0.3, 1.0, size=(5, 7)) * (rng.random((5, 7)) < 0.7)
    z = rng.normal(-0.2, 1.0, size=(4, 7))
    B = 400_000
    w = rng.multinomial(7, np.full(7, 1 / 7), size=B)
    u = rng.multinomial(5, np.full(5, 1 / 5), size=B)
    v = rng.multinomial(4, np.full(4, 1 / 4), size=B)
    dev_y = np.einsum("bs,bc,sc->b", u, w, y) - y.sum()
    dev_z = np.einsum("bs,bc,sc->b", v, w, z) - z.sum()
    assert P.two_way_variance(y, z) == pytest.approx(np.var(dev_y - dev_z), rel=0.01)
    # one side's own term: the gap against an all-zero side
    assert P.two_way_variance(y, np.zeros((4, 7))) == pytest.approx(np.var(dev_y), rel=0.01)


@pytest.mark.parametrize("sparse", [False, True])
def test_it_is_the_audits_two_way_bootstrap_of_the_wer_gap(sparse):
    frame = _matched(1)
    if sparse:  # each speaker read about half the sentences (a sampled audit)
        frame = frame.sample(frac=0.5, random_state=3).reset_index(drop=True)
    gs, rs, spec, cols = _pair(frame)
    Tg, Tr = _tables(gs, rs)
    v = P.two_way_variance(P.linearised(spec, cols, Tg), P.linearised(spec, cols, Tr))
    pb = bootstrap_pair(gs, rs, "two_way", 20_000, np.random.default_rng(2))
    gap = spec.compute(pb.group_reps[:, cols]) - spec.compute(pb.reference_reps[:, cols])
    assert math.sqrt(v) == pytest.approx(float(np.std(gap, ddof=1)), rel=0.03)


def test_the_gradient_of_the_pooled_wer():
    gs, rs, spec, cols = _pair(_matched(1))
    Tg, _ = _tables(gs, rs)
    S = Tg.sum(axis=(0, 1))
    g = P.gradient(spec, cols, S)
    e, n = S[cols[0]], S[cols[1]]
    assert g[cols] == pytest.approx([1 / n, -e / n**2], rel=1e-5)
    # the pooled WER is homogeneous of degree 0: the linearised values sum to zero
    assert abs(P.linearised(spec, cols, Tg).sum()) < 1e-9


def test_twelve_speakers_predict_the_variance_of_forty_eight():
    """Four disjoint 12-speaker pilots out of one 48-speaker audit predict its exact two-way
    variance; drawing 48 of 12 with replacement over-states it (the repeated speakers'
    speaker × sentence noise stays in the content draw)."""
    frame = _matched(4, speakers=48)
    gs, rs, spec, cols = _pair(frame)
    Tg, Tr = _tables(gs, rs)
    truth = math.sqrt(
        P.two_way_variance(P.linearised(spec, cols, Tg), P.linearised(spec, cols, Tr))
    )
    new, old = [], []
    for part in range(4):
        pick = {f"{g}/spk{i}" for g in ("ref", "grp") for i in range(12 * part, 12 * part + 12)}
        sub = frame[frame["speaker_id"].isin(pick)]
        assert sub["speaker_id"].nunique() == 24
        g2, r2, _, _ = _pair(sub.reset_index(drop=True))
        se, _floor = two_way_curve(g2, r2, spec, cols, [12, 48], rng=np.random.default_rng(part))
        new.append(se[1])
        old.append(speaker_curve(g2, r2, spec, cols, "two_way", [48], n_rep=2000,
                                 rng=np.random.default_rng(part))[0])  # fmt: skip
    assert np.mean(new) == pytest.approx(truth, rel=0.12)
    assert np.mean(old) > 1.15 * truth


def test_the_floor_is_the_content_x_group_share():
    """No content × group effect beyond the binomial noise: the floor is a small part of the
    pilot's SE; a strong one (tests/stats/test_planning.py's frame) keeps most of it."""
    from tests.stats.test_planning import _content_heavy_frame

    gs, rs, spec, cols = _pair(_matched(1))
    se, floor = two_way_curve(gs, rs, spec, cols, [12, 10**7], rng=np.random.default_rng(0))
    assert floor < 0.35 * se[0] and se[1] == pytest.approx(floor, rel=0.05)
    gs, rs, spec, cols = _pair(_content_heavy_frame())
    se, floor = two_way_curve(gs, rs, spec, cols, [12, 10**7], rng=np.random.default_rng(0))
    assert floor > 0.8 * se[0] and se[1] == pytest.approx(floor, rel=0.05)


def test_the_fit_passes_through_the_pilot():
    gs, rs, spec, cols = _pair(_matched(2))
    Tg, Tr = _tables(gs, rs)
    exact = math.sqrt(
        P.two_way_variance(P.linearised(spec, cols, Tg), P.linearised(spec, cols, Tr))
    )
    se, _ = two_way_curve(gs, rs, spec, cols, [12], rng=np.random.default_rng(0))
    assert se[0] == pytest.approx(exact, rel=0.05)
    # the content fit at the pilot's C as well
    a, b = P.fit_content_terms(Tg, Tr, spec, cols, rng=np.random.default_rng(0))
    C = Tg.shape[1]
    assert math.sqrt(a * (C - 1) / C**2 + b) == pytest.approx(exact, rel=0.05)


def test_small_pilots_fall_back_to_resampling():
    frame = _matched(1, speakers=3)
    gs, rs, spec, cols = _pair(frame)
    assert two_way_curve(gs, rs, spec, cols, [3, 6], rng=np.random.default_rng(0)) is None


def test_the_moment_variance_is_unbiased_where_the_bootstrap_over_counts():
    """Tables of speaker + sentence + cell effects (k = 8, C = 6): the mean moment variance
    over many tables is the variance of the table's sum about its population mean; the
    bootstrap's exceeds it, counting the cell variance about three times (Owen 2007)."""
    rng = np.random.default_rng(0)
    k, C, sa, sb, se = 8, 6, 0.5, 0.7, 1.2
    n = 20_000
    y = rng.normal(0, sa, (n, k, 1)) + rng.normal(0, sb, (n, 1, C)) + rng.normal(0, se, (n, k, C))
    truth = k * C**2 * sa**2 + C * k**2 * sb**2 + k * C * se**2  # Var(Σ y)
    centred = y - y.mean(axis=(1, 2), keepdims=True)
    mom = np.mean([P.moment_variance([t]) for t in centred[:4000]])
    boot = np.mean([P._tables_variance([t]) for t in centred[:4000]])
    assert mom == pytest.approx(truth, rel=0.05)
    # the bootstrap's expectation from the two-way ANOVA's mean squares (A rows, B columns,
    # E cells): the cell noise counted three times, the speaker and sentence parts shrunk
    # by (1 − 1/k) and (1 − 1/C)
    EA, EB, EE = sa**2 + se**2 / C, sb**2 + se**2 / k, se**2
    expected = (
        (1 - 1 / C) * C**2 * (k - 1) * EA
        + (1 - 1 / k) * k**2 * (C - 1) * EB
        + C * (k - 1) * EA
        + k * (C - 1) * EB
        + (k - 1) * (C - 1) * EE
    )
    assert boot == pytest.approx(expected, rel=0.05)
    assert boot > 1.1 * mom
    # Var(Σ y) itself, by Monte Carlo over the tables
    assert float(np.var(y.sum(axis=(1, 2)))) == pytest.approx(truth, rel=0.03)


def test_the_crossed_factor_shrinks_utterance_noise_and_leaves_speakers():
    """Pure cell noise: the factor is about √(1/3) (times t/z); pure speaker effects (no cell
    noise): the bootstrap counts nothing twice and the factor is capped at 1."""
    rng = np.random.default_rng(1)
    k, C = 40, 30
    spk = np.repeat(np.arange(k), C)
    cont = np.tile(np.arange(C), k)
    noise = rng.normal(0, 1, k * C)
    f = P.crossed_factor([noise], [spk], [cont])
    from scipy.stats import norm, t

    tz = t.ppf(0.975, C - 1) / norm.ppf(0.975)
    assert f == pytest.approx(math.sqrt(1 / 3) * tz, rel=0.15)
    speakers_only = np.repeat(rng.normal(0, 1, k), C)
    assert P.crossed_factor([speakers_only], [spk], [cont]) == 1.0
