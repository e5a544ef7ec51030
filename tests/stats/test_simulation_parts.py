"""Fast checks of the parts of ``fairdesk.stats.simulation`` (METHODS.md §9).

The coverage studies themselves run for minutes (tests/stats/test_stats_simulation.py);
here every function is checked on small inputs against an independent recomputation:

- ``simulate_audit`` against a row-by-row re-implementation of the generating model that
  draws from the same seeded stream in the documented order, and against the model's
  expectations on a large sample (tolerances from the binomial SE);
- ``true_values`` against the Monte Carlo recomputed here and a closed form without random
  effects;
- the studies against loops written here (simulate_audit + compare_groups with the same
  seeds), and with a stand-in ``compare_groups`` whose CIs sit exactly on the truth, so
  that every count, boundary, default and key is checked by value.
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import fairdesk.stats.compare as compare_mod
import fairdesk.stats.simulation as sim
from fairdesk.metrics.registry import ratio_metric
from fairdesk.stats.bootstrap_plan import BootstrapPlan
from fairdesk.stats.compare import compare_groups
from fairdesk.stats.settings import AuditSettings

COLUMNS = [
    "group",
    "speaker_id",
    "content_id",
    "n_words",
    "n_sub",
    "n_del",
    "n_ins",
    "n_err",
    "em",
    "n_items",
]
SPLIT = [0.6, 0.25, 0.15]


# ----------------------------------------------------------------------------- simulate_audit


def _expected(
    seed,
    effects,
    design,
    *,
    spk=12,
    n_sent=30,
    per_spk=15,
    n_utt=400,
    base=-1.7,
    spk_sd=0.3,
    sent_sd=0.5,
    shift=None,
):
    """The documented model, row by row, from ``default_rng(seed)`` in the same draw order."""
    rng = np.random.default_rng(seed)
    rows = []
    if design == "matched":
        words = rng.integers(5, 12, size=n_sent)
        sent = rng.normal(0.0, sent_sd, size=n_sent)
    for g, eff in effects.items():
        if design == "independent":
            w = rng.integers(5, 12, size=n_utt)
            a = rng.normal(0.0, spk_sd, n_utt)
            b = rng.normal(0.0, sent_sd, n_utt)
            logit = np.array([base + eff + a[i] + b[i] for i in range(n_utt)])
            speakers = [None] * n_utt
            contents = [f"{g}/u{i}" for i in range(n_utt)]
        else:
            s = rng.normal(0.0, spk_sd, size=spk)
            for k, x in (shift or {}).get(g, {}).items():
                s[k] = s[k] + x
            if design == "matched":
                pairs = [(k, c) for k in range(spk) for c in range(n_sent)]
                ks = [k for k, _ in pairs]
                w = np.array([words[c] for _, c in pairs], dtype=np.int64)
                logit = np.array([base + eff + s[k] + sent[c] for k, c in pairs])
                contents = [f"s{c}" for _, c in pairs]
            else:
                ks = [k for k in range(spk) for _ in range(per_spk)]
                w = rng.integers(5, 12, size=len(ks))
                e = rng.normal(0.0, sent_sd, len(ks))
                logit = np.array([base + eff + s[k] + e[i] for i, k in enumerate(ks)])
                contents = [f"{g}/u{i}" for i in range(len(ks))]
            speakers = [f"{g}/spk{k}" for k in ks]
        err = rng.binomial(w, expit(logit))
        split = rng.multinomial(err, SPLIT) if len(err) else np.zeros((0, 3), int)
        for i in range(len(err)):
            rows.append(
                {
                    "group": g,
                    "speaker_id": speakers[i],
                    "content_id": contents[i],
                    "n_words": int(w[i]),
                    "n_sub": int(split[i, 0]),
                    "n_del": int(split[i, 1]),
                    "n_ins": int(split[i, 2]),
                    "n_err": int(err[i]),
                    "em": 1.0 if err[i] == 0 else 0.0,
                    "n_items": 1.0,
                }
            )
    return rows


def _assert_frame(frame, rows):
    assert list(frame.columns) == COLUMNS
    assert len(frame) == len(rows)
    assert list(frame.index) == list(range(len(rows)))
    for col in COLUMNS:
        assert frame[col].tolist() == [r[col] for r in rows], col
    for col in ("n_words", "n_sub", "n_del", "n_ins", "n_err"):
        assert frame[col].dtype.kind == "i", col
    assert frame["em"].dtype == np.float64 and frame["n_items"].dtype == np.float64


@pytest.mark.parametrize("design", ["matched", "unmatched", "independent"])
def test_simulate_audit_defaults_reproduce_the_model(design):
    effects = {"ref": 0.0, "grp": 0.4}
    kw = {} if design == "matched" else {"design": design}
    frame = sim.simulate_audit(np.random.default_rng(3), effects, **kw)
    _assert_frame(frame, _expected(3, effects, design))
    n = {"matched": 12 * 30, "unmatched": 12 * 15, "independent": 400}[design]
    assert frame.groupby("group", sort=False).size().to_dict() == {"ref": n, "grp": n}


def test_simulate_audit_matched_sizes_sds_base_and_shift():
    effects = {"a": -0.2, "b": 0.7, "c": 0.0}
    shift = {"b": {1: 2.5, 2: -1.0}, "zz": {0: 9.0}}
    kw = dict(speakers_per_group=3, n_sentences=4, base=-0.5, speaker_sd=0.8, sentence_sd=1.1)
    frame = sim.simulate_audit(
        np.random.default_rng(8), effects, design="matched", speaker_shift=shift, **kw
    )
    _assert_frame(
        frame,
        _expected(
            8, effects, "matched", spk=3, n_sent=4, base=-0.5, spk_sd=0.8, sent_sd=1.1, shift=shift
        ),
    )
    # the shift changes the draws: the frame differs from the unshifted one
    plain = sim.simulate_audit(np.random.default_rng(8), effects, design="matched", **kw)
    assert not plain.equals(frame)
    assert plain[["n_words", "content_id", "speaker_id"]].equals(
        frame[["n_words", "content_id", "speaker_id"]]
    )


def test_simulate_audit_unmatched_and_independent_non_default_sizes():
    effects = {"x": 0.3, "y": -0.4}
    shift = {"x": {0: 1.5}}
    frame = sim.simulate_audit(
        np.random.default_rng(21),
        effects,
        design="unmatched",
        speakers_per_group=4,
        utterances_per_speaker=3,
        base=-1.0,
        speaker_sd=0.6,
        sentence_sd=0.9,
        speaker_shift=shift,
        n_sentences=99,
        n_utterances=99,
    )
    _assert_frame(
        frame,
        _expected(
            21,
            effects,
            "unmatched",
            spk=4,
            per_spk=3,
            base=-1.0,
            spk_sd=0.6,
            sent_sd=0.9,
            shift=shift,
        ),
    )
    frame = sim.simulate_audit(
        np.random.default_rng(22),
        effects,
        design="independent",
        n_utterances=9,
        base=-0.3,
        speaker_sd=0.2,
        sentence_sd=1.4,
        speakers_per_group=99,
        speaker_shift=shift,
    )
    _assert_frame(
        frame, _expected(22, effects, "independent", n_utt=9, base=-0.3, spk_sd=0.2, sent_sd=1.4)
    )


def test_simulate_audit_structure_of_each_design():
    rng = np.random.default_rng(5)
    m = sim.simulate_audit(rng, {"a": 0.0, "b": 1.0}, speakers_per_group=3, n_sentences=4)
    for g in "ab":
        sub = m[m["group"] == g]
        assert sorted(sub["speaker_id"].unique()) == [f"{g}/spk{k}" for k in range(3)]
        assert (
            sub.groupby("speaker_id")["content_id"].apply(list)
            == pd.Series({f"{g}/spk{k}": ["s0", "s1", "s2", "s3"] for k in range(3)})
        ).all()
    # the same sentences (same lengths) for every speaker of every group
    assert m.groupby("content_id")["n_words"].nunique().eq(1).all()
    u = sim.simulate_audit(
        rng,
        {"a": 0.0, "b": 1.0},
        design="unmatched",
        speakers_per_group=2,
        utterances_per_speaker=3,
    )
    assert u["content_id"].tolist() == [f"{g}/u{i}" for g in "ab" for i in range(6)]
    assert u["speaker_id"].tolist() == [f"{g}/spk{k}" for g in "ab" for k in (0, 0, 0, 1, 1, 1)]
    ind = sim.simulate_audit(rng, {"a": 0.0}, design="independent", n_utterances=5)
    assert ind["speaker_id"].isna().all() and ind["content_id"].is_unique
    for f in (m, u, ind):
        assert (f["n_err"] == f["n_sub"] + f["n_del"] + f["n_ins"]).all()
        assert (f["n_err"] <= f["n_words"]).all() and f["n_words"].between(5, 11).all()
        assert (f["em"] == (f["n_err"] == 0)).all() and (f["n_items"] == 1.0).all()


@pytest.mark.parametrize(
    "design,kw",
    [
        ("independent", {"n_utterances": 0}),
        ("unmatched", {"speakers_per_group": 0}),
        ("matched", {"speakers_per_group": 0}),
    ],
)
def test_simulate_audit_empty_groups_keep_the_column_types(design, kw):
    """An empty group's id columns stay object (ids), never float; the counts stay int."""
    e = sim.simulate_audit(np.random.default_rng(0), {"a": 0.0, "b": 0.5}, design=design, **kw)
    assert list(e.columns) == COLUMNS and len(e) == 0
    assert e["speaker_id"].dtype == object and e["content_id"].dtype == object
    for col in ("n_words", "n_sub", "n_del", "n_ins", "n_err"):
        assert e[col].dtype.kind == "i", col
    assert e["em"].dtype == np.float64 and e["n_items"].dtype == np.float64


def test_simulate_audit_unknown_design():
    with pytest.raises(
        ValueError,
        match=r"^Unknown design 'nope': matched, unmatched, "
        r"independent\.$",
    ):
        sim.simulate_audit(np.random.default_rng(0), {"a": 0.0}, design="nope")


def test_simulate_audit_rates_follow_the_generating_formula():
    """No random effects: every word is an error with probability expit(base + effect)."""
    n = 60_000
    f = sim.simulate_audit(
        np.random.default_rng(9),
        {"lo": 0.0, "hi": 0.8},
        design="independent",
        n_utterances=n,
        base=-1.2,
        speaker_sd=0.0,
        sentence_sd=0.0,
    )
    for g, eff in (("lo", 0.0), ("hi", 0.8)):
        sub = f[f["group"] == g]
        p = expit(-1.2 + eff)
        words = sub["n_words"].sum()
        assert abs(sub["n_err"].sum() / words - p) < 4 * np.sqrt(p * (1 - p) / words)
        errs = sub["n_err"].sum()
        for col, share in zip(("n_sub", "n_del", "n_ins"), SPLIT):
            assert abs(sub[col].sum() / errs - share) < 4 * np.sqrt(share * (1 - share) / errs)
        pem = np.mean([(1 - p) ** k for k in range(5, 12)])
        assert abs(sub["em"].mean() - pem) < 4 * np.sqrt(pem * (1 - pem) / n)
        assert abs(sub["n_words"].mean() - 8.0) < 4 * 2.0 / np.sqrt(n)


def test_speaker_shift_moves_only_the_named_speaker():
    f = sim.simulate_audit(
        np.random.default_rng(4),
        {"a": 0.0, "b": 0.0},
        speaker_sd=0.0,
        sentence_sd=0.0,
        base=-3.0,
        n_sentences=400,
        speakers_per_group=3,
        speaker_shift={"b": {2: 4.0}},
    )
    rate = f.groupby("speaker_id")["n_err"].sum() / f.groupby("speaker_id")["n_words"].sum()
    words = f.groupby("speaker_id")["n_words"].sum()
    for spk, r in rate.items():
        p = expit(1.0) if spk == "b/spk2" else expit(-3.0)
        assert abs(r - p) < 4 * np.sqrt(p * (1 - p) / words[spk]), spk


# ------------------------------------------------------------------------------- true_values


def _my_true(effect, base, s_sd, c_sd, n_draws, seed):
    rng = np.random.default_rng(seed)
    n = rng.integers(5, 12, size=n_draws)
    a = rng.normal(0.0, s_sd, n_draws)
    b = rng.normal(0.0, c_sd, n_draws)
    p = expit(base + effect + (a + b))
    wer = float(np.sum(n * p) / np.sum(n))
    return {"wer": wer, "sub_rate": 0.6 * wer, "em": float(np.mean((1 - p) ** n))}


def test_true_values_defaults_are_the_documented_monte_carlo():
    got = sim.true_values(0.3)
    exp = _my_true(0.3, -1.7, 0.3, 0.5, 2_000_000, 12345)
    assert list(got) == ["wer", "sub_rate", "em"]
    for k in exp:
        assert got[k] == pytest.approx(exp[k], rel=1e-13, abs=0), k
    assert got["sub_rate"] == 0.6 * got["wer"]


def test_true_values_explicit_arguments():
    got = sim.true_values(-0.4, base=-1.0, speaker_sd=0.7, sentence_sd=0.2, n_draws=5000, seed=77)
    exp = _my_true(-0.4, -1.0, 0.7, 0.2, 5000, 77)
    for k in exp:
        assert got[k] == pytest.approx(exp[k], rel=1e-13, abs=0), k
    assert (
        sim.true_values(-0.4, base=-1.0, speaker_sd=0.7, sentence_sd=0.2, n_draws=5000, seed=78)[
            "wer"
        ]
        != got["wer"]
    )


def test_true_values_closed_form_without_random_effects():
    p = expit(-0.9 + 0.5)
    got = sim.true_values(0.5, base=-0.9, speaker_sd=0.0, sentence_sd=0.0, n_draws=200_000)
    assert got["wer"] == pytest.approx(p, rel=1e-12)
    assert got["sub_rate"] == pytest.approx(0.6 * p, rel=1e-12)
    em = np.mean([(1 - p) ** k for k in range(5, 12)])
    assert abs(got["em"] - em) < 4 * np.std([(1 - p) ** k for k in range(5, 12)]) / np.sqrt(2e5)


def test_study_specs():
    specs = sim._study_specs()
    assert [s.id for s in specs] == ["wer", "sub_rate", "em"]
    assert [s.label for s in specs] == ["WER", "Substitution rate", "Exact match"]
    assert [s.stats for s in specs] == [
        ("n_sub", "n_del", "n_ins", "n_words"),
        ("n_sub", "n_words"),
        ("em", "n_items"),
    ]
    assert [s.numerator for s in specs] == [("n_sub", "n_del", "n_ins"), ("n_sub",), ("em",)]
    assert [s.denominator for s in specs] == [("n_words",), ("n_words",), ("n_items",)]
    assert [s.higher_is_better for s in specs] == [False, False, True]
    assert [s.kind for s in specs] == ["rate", "rate", "proportion"]
    assert [s.family for s in specs] == ["transcription", "transcription", "slu"]
    assert specs[0].compute(np.array([1.0, 2.0, 3.0, 12.0])) == pytest.approx(0.5)
    assert specs[1].compute(np.array([3.0, 12.0])) == pytest.approx(0.25)
    assert specs[2].compute(np.array([2.0, 8.0])) == pytest.approx(0.25)


# --------------------------------------------------------------- the studies, on real audits

MY_SPECS = {
    "wer": ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"]),
    "sub_rate": ratio_metric("sub_rate", "Substitution rate", ["n_sub"], ["n_words"]),
    "em": ratio_metric(
        "em",
        "Exact match",
        ["em"],
        ["n_items"],
        higher_is_better=True,
        kind="proportion",
        family="slu",
    ),
}


def _my_coverage(design, spk, n_audits, b, effect, seed, metric, resampling, scaling, **kw):
    truth = sim.true_values(effect)[metric] - sim.true_values(0.0)[metric]
    rng = np.random.default_rng(seed)
    hits, widths, est = 0, [], []
    for i in range(n_audits):
        frame = sim.simulate_audit(
            rng, {"ref": 0.0, "grp": effect}, design=design, speakers_per_group=spk, **kw
        )
        st = AuditSettings(
            n_bootstrap=b,
            seed=i,
            min_items=1,
            min_speakers=1,
            resampling=resampling,
            small_cluster_scaling=scaling,
        )
        (c,) = compare_groups(frame, [MY_SPECS[metric]], st, reference="ref").comparisons
        hits += int(c.ci_low <= truth and truth <= c.ci_high)
        widths.append(c.ci_high - c.ci_low)
        est.append(c.estimator)
    return {
        "design": design,
        "estimator": "/".join(sorted(set(est))),
        "speakers": None if design == "independent" else spk,
        "n_audits": n_audits,
        "true_gap": truth,
        "coverage": hits / n_audits,
        "mean_width": sum(widths) / len(widths),
    }


@pytest.mark.parametrize(
    "case",
    [
        dict(
            design="matched",
            spk=3,
            n_audits=4,
            b=200,
            effect=0.9,
            seed=1,
            metric="wer",
            resampling="auto",
            scaling=False,
            kw={"n_sentences": 6},
        ),
        dict(
            design="unmatched",
            spk=4,
            n_audits=3,
            b=200,
            effect=0.5,
            seed=5,
            metric="em",
            resampling="auto",
            scaling=True,
            kw={"utterances_per_speaker": 4},
        ),
        dict(
            design="independent",
            spk=7,
            n_audits=3,
            b=250,
            effect=0.4,
            seed=2,
            metric="sub_rate",
            resampling="auto",
            scaling=False,
            kw={"n_utterances": 40},
        ),
        dict(
            design="matched",
            spk=3,
            n_audits=3,
            b=200,
            effect=0.2,
            seed=4,
            metric="wer",
            resampling="content",
            scaling=False,
            kw={"n_sentences": 8},
        ),
    ],
)
def test_coverage_study_matches_an_independent_loop(case):
    got = sim.coverage_study(
        case["design"],
        speakers_per_group=case["spk"],
        n_audits=case["n_audits"],
        n_bootstrap=case["b"],
        effect=case["effect"],
        seed=case["seed"],
        metric=case["metric"],
        resampling=case["resampling"],
        small_cluster_scaling=case["scaling"],
        **case["kw"],
    )
    exp = _my_coverage(
        case["design"],
        case["spk"],
        case["n_audits"],
        case["b"],
        case["effect"],
        case["seed"],
        case["metric"],
        case["resampling"],
        case["scaling"],
        **case["kw"],
    )
    assert list(got) == list(exp)
    for k in exp:
        assert (
            got[k] == pytest.approx(exp[k], rel=1e-12)
            if isinstance(exp[k], float)
            else got[k] == exp[k]
        ), k


def test_familywise_study_matches_an_independent_loop():
    got = sim.familywise_study(
        n_groups=2, n_audits=3, n_bootstrap=200, speakers_per_group=5, seed=6
    )
    rng = np.random.default_rng(6)
    effects = {"ref": 0.0, "g0": 0.0, "g1": 0.0}
    verdicts, dis, sig = {}, 0, 0
    for i in range(3):
        frame = sim.simulate_audit(rng, effects, design="matched", speakers_per_group=5)
        res = compare_groups(
            frame, list(MY_SPECS.values()), AuditSettings(n_bootstrap=200, seed=i), reference="ref"
        )
        dis += int(any(c.verdict == "disparity_detected" for c in res.comparisons))
        sig += int(any(c.p_adjusted < 0.05 for c in res.comparisons))
        for c in res.comparisons:
            verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
    assert got == {
        "n_audits": 3,
        "comparisons": 6,
        "any_disparity": dis / 3,
        "any_significant": sig / 3,
        "verdicts": verdicts,
        "n_bootstrap_used": res.bootstrap.used,
    }
    assert res.bootstrap.used == 600  # ceil(5 * 6 / 0.05)


def test_value_coverage_study_matches_an_independent_loop():
    kw = dict(n_sentences=5)
    got = sim.value_coverage_study(
        "matched",
        speakers_per_group=3,
        n_audits=3,
        n_bootstrap=200,
        effect=0.6,
        seed=3,
        small_cluster_scaling=True,
        **kw,
    )
    truth = {"ref": sim.true_values(0.0)["wer"], "grp": sim.true_values(0.6)["wer"]}
    corpus = 0.5 * truth["ref"] + 0.5 * truth["grp"]
    rng = np.random.default_rng(3)
    gh = ch = gn = 0
    gw, cw, gs, cs = [], [], [], []
    for i in range(3):
        frame = sim.simulate_audit(
            rng, {"ref": 0.0, "grp": 0.6}, design="matched", speakers_per_group=3, **kw
        )
        st = AuditSettings(
            n_bootstrap=200, seed=i, min_items=1, min_speakers=1, small_cluster_scaling=True
        )
        res = compare_groups(frame, [MY_SPECS["wer"]], st, reference="ref")
        for g in res.groups:
            lo, hi = g.ci["wer"]
            gh += int(lo <= truth[g.group] <= hi)
            gn += 1
            gw.append(hi - lo)
            gs.append(g.ci_scheme["wer"])
        lo, hi = res.summary["wer"].overall["ci"]
        ch += int(lo <= corpus <= hi)
        cw.append(hi - lo)
        cs.append(res.summary["wer"].overall["scheme"])
    exp = {
        "n_audits": 3,
        "group_coverage": gh / gn,
        "group_width": sum(gw) / len(gw),
        "group_scheme": "/".join(sorted(set(gs))),
        "corpus_coverage": ch / 3,
        "corpus_width": sum(cw) / len(cw),
        "corpus_scheme": "/".join(sorted(set(cs))),
    }
    assert list(got) == list(exp)
    for k in exp:
        assert got[k] == (
            pytest.approx(exp[k], rel=1e-12) if isinstance(exp[k], float) else exp[k]
        ), k


def _item_values(frame, group, metric):
    sub = frame[frame["group"] == group]
    num = {
        "wer": sub["n_sub"] + sub["n_del"] + sub["n_ins"],
        "sub_rate": sub["n_sub"],
        "em": sub["em"],
    }[metric].to_numpy(float)
    den = (sub["n_items"] if metric == "em" else sub["n_words"]).to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = num / den
    return v[np.isfinite(v)]


def _my_small_counts(frame, comparisons, verdicts, counts):
    """Degenerate / violation / constant-different counts, recomputed for one audit."""
    safe = {"not_estimable", "no_variation", "not_computable"}
    speakers = {
        g: frame.loc[frame["group"] == g, "speaker_id"].dropna().nunique()
        for g in frame["group"].unique()
    }
    for c in comparisons:
        counts["comparisons"] += 1
        verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
        const = []
        for g in (c.group, c.reference):
            v = _item_values(frame, g, c.metric)
            const.append(float(v[0]) if len(v) and len(set(v.tolist())) == 1 else None)
        both = None not in const
        if both and const[0] != const[1]:
            counts["constant_different"] += 1
        few = speakers[c.group] < 2 or speakers[c.reference] < 2
        zero = c.ci_low is not None and np.isfinite(c.ci_low) and not c.ci_high > c.ci_low
        if few or (zero and not both):
            counts["degenerate"] += 1
            if c.verdict not in safe:
                counts["violations"] += 1


def test_small_audit_study_matches_an_independent_loop():
    n, seed = 12, 8
    got = sim.small_audit_study(n_audits=n, n_bootstrap=200, seed=seed)
    rng = np.random.default_rng(seed)
    verdicts: dict = {}
    counts = dict(comparisons=0, degenerate=0, violations=0, constant_different=0)
    for i in range(n):
        k = int(rng.integers(1, 3))
        effects = {"ref": 0.0}
        for j in range(k):
            effects[f"g{j}"] = float(rng.normal(0.0, 0.7))
        design = "matched" if rng.random() < 0.5 else "unmatched"
        frames = []
        for g, eff in effects.items():
            spk = int(rng.integers(1, 4))
            n_sent = int(rng.integers(2, 9))
            per = int(rng.integers(2, 9))
            base = float(rng.choice([-6.0, -4.0, -1.7]))
            frames.append(
                sim.simulate_audit(
                    rng,
                    {g: eff},
                    design=design,
                    speakers_per_group=spk,
                    n_sentences=n_sent,
                    utterances_per_speaker=per,
                    base=base,
                )
            )
        frame = pd.concat(frames, ignore_index=True)
        res = compare_groups(
            frame,
            list(MY_SPECS.values()),
            AuditSettings(n_bootstrap=200, seed=i, min_items=1, min_speakers=1),
            reference="ref",
        )
        _my_small_counts(frame, res.comparisons, verdicts, counts)
    exp = {"n_audits": n, **counts, "verdicts": verdicts}
    assert got == exp
    assert list(got) == [
        "n_audits",
        "comparisons",
        "degenerate",
        "violations",
        "constant_different",
        "verdicts",
    ]
    # the study's cases are all present in these audits
    assert got["degenerate"] > 0 and got["constant_different"] > 0 and got["violations"] == 0
    assert sim.SAFE_VERDICTS == frozenset({"not_estimable", "no_variation", "not_computable"})


# ------------------------------------------------- the studies with a stand-in compare_groups


class _Recorder:
    """Stands in for simulate_audit / compare_groups / true_values and records the calls."""

    def __init__(self, answer):
        self.calls = []
        self.answer = answer

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.answer(len(self.calls) - 1, *args, **kwargs)


def _fake_truth(effect, base=None, speaker_sd=None, sentence_sd=None, **kw):
    """Stand-in population values; the population parameters passed to a study (base and
    SDs) must reach its truth, on both sides of a gap."""
    assert not kw
    k = 1.0 - (base or 0.0) + 2 * (speaker_sd or 0.0) + 5 * (sentence_sd or 0.0)
    return {
        "wer": 0.1 * k + k * (effect**2 + effect),
        "sub_rate": 0.05 * k + 3 * k * effect,
        "em": 0.95 - 0.05 * k - 2 * k * effect,
    }


def _patch(monkeypatch, compare_answer, sim_answer=None):
    fake_sim = _Recorder(sim_answer or (lambda i, rng, effects, **kw: ("frame", i)))
    fake_cmp = _Recorder(compare_answer)
    monkeypatch.setattr(sim, "simulate_audit", fake_sim)
    monkeypatch.setattr(compare_mod, "compare_groups", fake_cmp)
    monkeypatch.setattr(sim, "true_values", _Recorder(lambda i, e, **kw: _fake_truth(e, **kw)))
    return fake_sim, fake_cmp


def _rng_state(seed):
    return np.random.default_rng(seed).bit_generator.state


@pytest.mark.parametrize("metric", ["wer", "sub_rate", "em"])
def test_coverage_study_defaults_counts_and_boundaries(monkeypatch, metric):
    truth = _fake_truth(0.3)[metric] - _fake_truth(0.0)[metric]
    cis = [
        (truth, truth + 1.0),
        (truth - 1.0, truth),
        (truth + 0.5, truth + 1.0),
        (truth - 1.0, truth - 0.25),
    ]

    def answer(i, frame, specs, settings, reference=None):
        lo, hi = cis[i % 4]
        return NS(
            comparisons=[
                NS(ci_low=lo, ci_high=hi, estimator="two_way" if i % 3 else "content"),
                NS(ci_low=99.0, ci_high=99.0, estimator="zz"),
            ]
        )

    fake_sim, fake_cmp = _patch(monkeypatch, answer)
    kw = {} if metric == "wer" else {"metric": metric}
    got = sim.coverage_study("matched", **kw)
    widths = [hi - lo for lo, hi in cis]
    assert got == {
        "design": "matched",
        "estimator": "content/two_way",
        "speakers": 12,
        "n_audits": 300,
        "true_gap": truth,
        "coverage": 0.5,
        "mean_width": pytest.approx(float(np.mean(widths * 75)), rel=1e-12),
    }
    assert len(fake_sim.calls) == len(fake_cmp.calls) == 300
    rngs = {id(args[0]) for args, _ in fake_sim.calls}
    assert len(rngs) == 1 and fake_sim.calls[0][0][0].bit_generator.state == _rng_state(0)
    for i, ((args, kwargs), (cargs, ckw)) in enumerate(zip(fake_sim.calls, fake_cmp.calls)):
        assert args[1] == {"ref": 0.0, "grp": 0.3}
        assert kwargs == {"design": "matched", "speakers_per_group": 12}
        assert cargs[0] == ("frame", i) and [s.id for s in cargs[1]] == [metric]
        assert cargs[1][0] == MY_SPECS[metric]
        assert cargs[2] == AuditSettings(n_bootstrap=500, seed=i, min_items=1, min_speakers=1)
        assert ckw == {"reference": "ref"}


def test_coverage_study_explicit_arguments_reach_the_parts(monkeypatch):
    def answer(i, frame, specs, settings, reference=None):
        return NS(comparisons=[NS(ci_low=-5.0, ci_high=5.0, estimator="utterance")])

    fake_sim, fake_cmp = _patch(monkeypatch, answer)
    got = sim.coverage_study(
        "independent",
        speakers_per_group=4,
        n_audits=3,
        n_bootstrap=700,
        effect=0.8,
        seed=9,
        metric="em",
        resampling="utterance",
        small_cluster_scaling=True,
        n_utterances=11,
        base=-2.0,
    )
    assert got == {
        "design": "independent",
        "estimator": "utterance",
        "speakers": None,
        "n_audits": 3,
        "true_gap": _fake_truth(0.8, base=-2.0)["em"] - _fake_truth(0.0, base=-2.0)["em"],
        "coverage": 1.0,
        "mean_width": 10.0,
    }
    assert fake_sim.calls[0][0][0].bit_generator.state == _rng_state(9)
    for i, ((args, kwargs), (cargs, _)) in enumerate(zip(fake_sim.calls, fake_cmp.calls)):
        assert args[1] == {"ref": 0.0, "grp": 0.8}
        assert kwargs == {
            "design": "independent",
            "speakers_per_group": 4,
            "n_utterances": 11,
            "base": -2.0,
        }
        assert cargs[2] == AuditSettings(
            n_bootstrap=700,
            seed=i,
            min_items=1,
            min_speakers=1,
            resampling="utterance",
            small_cluster_scaling=True,
        )
    got = sim.coverage_study("unmatched", speakers_per_group=4, n_audits=2, n_bootstrap=200)
    assert got["speakers"] == 4 and got["design"] == "unmatched"


_PATTERNS = [  # (verdicts, p_adjusted) per audit, cycled
    (["disparity_detected", "inconclusive", "equivalent"], [0.5, 0.05, 0.2]),
    (["inconclusive", "inconclusive"], [0.3, 0.0499]),
    (["equivalent", "not_estimable", "inconclusive", "equivalent"], [1.0, 1.0, 0.9, 0.051]),
    (["inconclusive", "disparity_detected"], [0.7, 0.01]),
    (["no_variation", "speaker_confounded", "equivalent"], [0.04, 0.5, 0.5]),
]


def test_familywise_study_defaults_and_counts(monkeypatch):
    def answer(i, frame, specs, settings, reference=None):
        verdicts, ps = _PATTERNS[i % 5]
        return NS(
            comparisons=[NS(verdict=v, p_adjusted=p) for v, p in zip(verdicts, ps)],
            bootstrap=BootstrapPlan(used=1000 + i),
            settings=settings,
        )

    fake_sim, fake_cmp = _patch(monkeypatch, answer)
    got = sim.familywise_study()
    counts: dict = {}
    for i in range(300):
        for v in _PATTERNS[i % 5][0]:
            counts[v] = counts.get(v, 0) + 1
    assert got == {
        "n_audits": 300,
        "comparisons": len(_PATTERNS[299 % 5][0]),
        "any_disparity": 120 / 300,
        "any_significant": 180 / 300,
        "verdicts": counts,
        "n_bootstrap_used": 1299,
    }
    assert len(fake_sim.calls) == 300
    assert fake_sim.calls[0][0][0].bit_generator.state == _rng_state(2024)
    effects = {"ref": 0.0, **{f"g{i}": 0.0 for i in range(10)}}
    for i, ((args, kwargs), (cargs, ckw)) in enumerate(zip(fake_sim.calls, fake_cmp.calls)):
        assert args[1] == effects and list(args[1]) == list(effects)
        assert kwargs == {"design": "matched", "speakers_per_group": 12}
        assert cargs[1] == list(MY_SPECS.values())
        assert cargs[2] == AuditSettings(n_bootstrap=1000, seed=i) and ckw == {"reference": "ref"}


def test_familywise_study_explicit_arguments_reach_the_parts(monkeypatch):
    def answer(i, frame, specs, settings, reference=None):
        return NS(
            comparisons=[NS(verdict="equivalent", p_adjusted=0.5)],
            bootstrap=BootstrapPlan(used=7),
            settings=settings,
        )

    fake_sim, fake_cmp = _patch(monkeypatch, answer)
    got = sim.familywise_study(
        n_groups=2, n_audits=4, n_bootstrap=300, speakers_per_group=5, seed=3
    )
    assert got == {
        "n_audits": 4,
        "comparisons": 1,
        "any_disparity": 0.0,
        "any_significant": 0.0,
        "verdicts": {"equivalent": 4},
        "n_bootstrap_used": 7,
    }
    assert fake_sim.calls[0][0][0].bit_generator.state == _rng_state(3)
    for i, ((args, kwargs), (cargs, _)) in enumerate(zip(fake_sim.calls, fake_cmp.calls)):
        assert args[1] == {"ref": 0.0, "g0": 0.0, "g1": 0.0}
        assert kwargs == {"design": "matched", "speakers_per_group": 5}
        assert cargs[2] == AuditSettings(n_bootstrap=300, seed=i)


def test_value_coverage_study_defaults_counts_and_boundaries(monkeypatch):
    t = {"ref": _fake_truth(0.0)["wer"], "grp": _fake_truth(0.3)["wer"]}
    corpus = (t["ref"] + t["grp"]) / 2

    def answer(i, frame, specs, settings, reference=None):
        k = i % 3
        groups = [
            NS(group="ref", ci={"wer": (t["ref"], t["ref"] + 0.5)}, ci_scheme={"wer": "two_way"}),
            NS(
                group="grp",
                ci={"wer": [t["grp"] - 0.25, t["grp"]] if k else [t["grp"] + 0.25, t["grp"] + 0.5]},
                ci_scheme={"wer": "speaker" if k == 2 else "two_way"},
            ),
        ]
        if k == 1:
            groups.append(
                NS(
                    group="ref",
                    ci={"wer": (t["ref"] + 1.0, t["ref"] + 2.0)},
                    ci_scheme={"wer": "content"},
                )
            )
        ov = [(corpus, corpus + 1.0), (corpus - 1.0, corpus), (corpus - 2.0, corpus - 1.0)][k]
        return NS(
            groups=groups,
            summary={
                "wer": NS(overall={"ci": ov, "scheme": "utterance" if k == 0 else "two_way"}),
                "em": NS(overall={"ci": (9.0, 9.0), "scheme": "zz"}),
            },
        )

    fake_sim, fake_cmp = _patch(monkeypatch, answer)
    got = sim.value_coverage_study("matched")
    # per 3 audits: group CIs 7 (hits: ref, ref, grp, ref, grp = 5), corpus hits 2
    gw = [0.5, 0.25] + [0.5, 0.25, 1.0] + [0.5, 0.25]
    assert got == {
        "n_audits": 300,
        "group_coverage": 5 / 7,
        "group_width": pytest.approx(sum(gw) / 7, rel=1e-12),
        "group_scheme": "content/speaker/two_way",
        "corpus_coverage": 2 / 3,
        "corpus_width": pytest.approx(1.0, rel=1e-12),
        "corpus_scheme": "two_way/utterance",
    }
    assert fake_sim.calls[0][0][0].bit_generator.state == _rng_state(0)
    assert len(fake_cmp.calls) == 300
    for i, ((args, kwargs), (cargs, ckw)) in enumerate(zip(fake_sim.calls, fake_cmp.calls)):
        assert args[1] == {"ref": 0.0, "grp": 0.3}
        assert kwargs == {"design": "matched", "speakers_per_group": 12}
        assert cargs[1] == [MY_SPECS["wer"]] and ckw == {"reference": "ref"}
        assert cargs[2] == AuditSettings(n_bootstrap=500, seed=i, min_items=1, min_speakers=1)


def test_value_coverage_study_explicit_arguments_reach_the_parts(monkeypatch):
    t = {"ref": _fake_truth(0.0)["wer"], "grp": _fake_truth(0.7)["wer"]}

    def answer(i, frame, specs, settings, reference=None):
        return NS(
            groups=[
                NS(group=g, ci={"wer": (t[g] - 0.1, t[g] + 0.1)}, ci_scheme={"wer": "speaker"})
                for g in ("ref", "grp")
            ],
            summary={"wer": NS(overall={"ci": (0.0, 0.5), "scheme": "speaker"})},
        )

    fake_sim, fake_cmp = _patch(monkeypatch, answer)
    got = sim.value_coverage_study(
        "unmatched",
        speakers_per_group=5,
        n_audits=2,
        n_bootstrap=300,
        effect=0.7,
        seed=4,
        small_cluster_scaling=True,
        utterances_per_speaker=3,
    )
    corpus = (t["ref"] + t["grp"]) / 2
    assert got["n_audits"] == 2 and got["group_coverage"] == 1.0
    assert got["corpus_coverage"] == float(0.0 <= corpus <= 0.5)
    assert got["group_width"] == pytest.approx(0.2) and got["corpus_width"] == 0.5
    assert fake_sim.calls[0][0][0].bit_generator.state == _rng_state(4)
    for i, ((args, kwargs), (cargs, _)) in enumerate(zip(fake_sim.calls, fake_cmp.calls)):
        assert args[1] == {"ref": 0.0, "grp": 0.7}
        assert kwargs == {
            "design": "unmatched",
            "speakers_per_group": 5,
            "utterances_per_speaker": 3,
        }
        assert cargs[2] == AuditSettings(
            n_bootstrap=300, seed=i, min_items=1, min_speakers=1, small_cluster_scaling=True
        )


def _tiny(group, speakers, n_err, n_words, em):
    return pd.DataFrame(
        {
            "group": group,
            "speaker_id": speakers,
            "content_id": [f"c{i}" for i in range(len(speakers))],
            "n_words": n_words,
            "n_sub": n_err,
            "n_del": 0,
            "n_ins": 0,
            "n_err": n_err,
            "em": em,
            "n_items": 1.0,
        }
    )


#: per group: 2 speakers, wer/sub constant 0.2 (a 0/0 item left out), em constant 0 (ref);
#: 2 speakers, wer varying, em constant 0 (g0); 1 speaker, wer 0.6 on its one item with
#: words (g1)
_TINY = {
    "ref": _tiny("ref", ["r/a", "r/a", "r/b"], [1, 0, 2], [5, 0, 10], [0.0, 0.0, 0.0]),
    "g0": _tiny("g0", ["a/a", "a/b", "a/b"], [1, 2, 1], [5, 5, 5], [0.0, 0.0, 0.0]),
    "g1": _tiny("g1", ["b/a", "b/a"], [3, 0], [5, 0], [0.0, 1.0]),
}


def _tiny_comparisons(frame):
    c = [
        # zero width, not both constant: degenerate, a violation
        NS(
            metric="wer",
            group="g0",
            reference="ref",
            ci_low=0.1,
            ci_high=0.1,
            verdict="disparity_detected",
        ),
        # zero width but both constant (0 and 0): not degenerate
        NS(metric="em", group="g0", reference="ref", ci_low=0.0, ci_high=0.0, verdict="equivalent"),
        # a positive width below 1: not degenerate
        NS(
            metric="sub_rate",
            group="g0",
            reference="ref",
            ci_low=0.0,
            ci_high=0.5,
            verdict="inconclusive",
        ),
        # no CI / an infinite one: not zero width
        NS(
            metric="wer",
            group="g0",
            reference="ref",
            ci_low=None,
            ci_high=None,
            verdict="inconclusive",
        ),
        NS(
            metric="wer",
            group="g0",
            reference="ref",
            ci_low=-np.inf,
            ci_high=-np.inf,
            verdict="inconclusive",
        ),
        NS(
            metric="wer",
            group="g0",
            reference="ref",
            ci_low=np.nan,
            ci_high=np.nan,
            verdict="inconclusive",
        ),
        # a negative width: degenerate, safe verdict
        NS(
            metric="sub_rate",
            group="g0",
            reference="ref",
            ci_low=0.3,
            ci_high=0.2,
            verdict="no_variation",
        ),
    ]
    if "g1" in set(frame["group"]):
        c += [  # one speaker on g1's side: degenerate whatever the CI
            NS(
                metric="wer",
                group="g1",
                reference="ref",
                ci_low=0.0,
                ci_high=0.9,
                verdict="not_estimable",
            ),
            NS(
                metric="em",
                group="g1",
                reference="ref",
                ci_low=0.0,
                ci_high=0.9,
                verdict="not_computable",
            ),
            NS(
                metric="sub_rate",
                group="g1",
                reference="ref",
                ci_low=0.0,
                ci_high=0.9,
                verdict="disparity_detected",
            ),
        ]
    return c


def test_small_audit_study_rules_on_crafted_comparisons(monkeypatch):
    frames = []

    def sim_answer(i, rng, effects, **kw):
        ((g, _),) = effects.items()
        return _TINY[g]

    def answer(i, frame, specs, settings, reference=None):
        frames.append(frame)
        return NS(comparisons=_tiny_comparisons(frame))

    fake_sim, fake_cmp = _patch(monkeypatch, answer, sim_answer)
    got = sim.small_audit_study(n_audits=12, n_bootstrap=300, seed=5)
    verdicts: dict = {}
    counts = dict(comparisons=0, degenerate=0, violations=0, constant_different=0)
    for frame in frames:
        _my_small_counts(frame, _tiny_comparisons(frame), verdicts, counts)
    assert got == {"n_audits": 12, **counts, "verdicts": verdicts}
    with_g1 = sum("g1" in set(f["group"]) for f in frames)
    assert 0 < with_g1 < 12
    assert counts["degenerate"] == 2 * 12 + 3 * with_g1
    assert counts["violations"] == 12 + with_g1
    assert counts["constant_different"] == 2 * with_g1  # g1's wer and sub_rate 0.6 vs 0.2
    for i, (cargs, ckw) in enumerate(fake_cmp.calls):
        assert [s.id for s in cargs[1]] == ["wer", "sub_rate", "em"]
        assert cargs[2] == AuditSettings(n_bootstrap=300, seed=i, min_items=1, min_speakers=1)
        assert ckw == {"reference": "ref"}


def test_small_audit_study_defaults_and_draws(monkeypatch):
    tiny = _TINY["g0"]
    fake_sim, fake_cmp = _patch(
        monkeypatch, lambda i, *a, **k: NS(comparisons=[]), lambda i, rng, effects, **kw: tiny
    )
    got = sim.small_audit_study()
    assert got == {
        "n_audits": 1000,
        "comparisons": 0,
        "degenerate": 0,
        "violations": 0,
        "constant_different": 0,
        "verdicts": {},
    }
    assert len(fake_cmp.calls) == 1000
    for i, (cargs, _) in enumerate(fake_cmp.calls):
        assert cargs[2] == AuditSettings(n_bootstrap=200, seed=i, min_items=1, min_speakers=1)
    # the draws, replayed from the seed (the stand-in draws nothing)
    rng = np.random.default_rng(11)
    calls = iter(fake_sim.calls)
    assert fake_sim.calls[0][0][0].bit_generator.state != _rng_state(11)  # drawn already
    seen = set()
    for _ in range(1000):
        k = int(rng.integers(1, 3))
        effects = {"ref": 0.0}
        for j in range(k):
            effects[f"g{j}"] = float(rng.normal(0.0, 0.7))
        design = "matched" if rng.random() < 0.5 else "unmatched"
        for g, eff in effects.items():
            args, kwargs = next(calls)
            assert args[1] == {g: eff}
            exp = {
                "design": design,
                "speakers_per_group": int(rng.integers(1, 4)),
                "n_sentences": int(rng.integers(2, 9)),
                "utterances_per_speaker": int(rng.integers(2, 9)),
                "base": float(rng.choice([-6.0, -4.0, -1.7])),
            }
            assert kwargs == exp
            seen.add((design, exp["speakers_per_group"], exp["base"], len(effects)))
    assert next(calls, None) is None
    assert len(seen) == 2 * 3 * 3 * 2


def test_small_audit_study_design_draw_at_one_half(monkeypatch):
    """The design draw: ``random() < 0.5`` is matched, so exactly 0.5 is unmatched."""
    real = np.random.default_rng

    class Half:
        def __init__(self, seed):
            self._rng = real(seed)

        def random(self):
            self._rng.random()
            return 0.5

        def __getattr__(self, name):
            return getattr(self._rng, name)

    fake_sim, _ = _patch(
        monkeypatch,
        lambda i, *a, **k: NS(comparisons=[]),
        lambda i, rng, effects, **kw: _TINY["g0"],
    )
    monkeypatch.setattr(np.random, "default_rng", Half)
    sim.small_audit_study(n_audits=5)
    assert {kw["design"] for _, kw in fake_sim.calls} == {"unmatched"}


@pytest.mark.parametrize("pop", [{"base": -1.0}, {"speaker_sd": 0.3}, {"sentence_sd": 0.2}])
def test_coverage_study_truth_uses_the_simulated_population(monkeypatch, pop):
    """The population parameters passed on to simulate_audit are those of the true gap."""
    truth = _fake_truth(0.3, **pop)["em"] - _fake_truth(0.0, **pop)["em"]

    def answer(i, frame, specs, settings, reference=None):
        return NS(comparisons=[NS(ci_low=truth - 1e-9, ci_high=truth + 1e-9, estimator="two_way")])

    _patch(monkeypatch, answer)
    got = sim.coverage_study("matched", n_audits=2, metric="em", **pop)
    assert got["true_gap"] == pytest.approx(truth, abs=1e-15) and got["coverage"] == 1.0


@pytest.mark.parametrize("pop", [{"base": -1.0}, {"speaker_sd": 0.3}, {"sentence_sd": 0.2}])
def test_value_coverage_study_truth_uses_the_simulated_population(monkeypatch, pop):
    """The population parameters passed on to simulate_audit are those of the truth."""
    t = {"ref": _fake_truth(0.0, **pop)["wer"], "grp": _fake_truth(0.7, **pop)["wer"]}

    def answer(i, frame, specs, settings, reference=None):
        return NS(
            groups=[
                NS(group=g, ci={"wer": (t[g] - 1e-9, t[g] + 1e-9)}, ci_scheme={"wer": "speaker"})
                for g in ("ref", "grp")
            ],
            summary={"wer": NS(overall={"ci": (0.0, 0.5), "scheme": "speaker"})},
        )

    _patch(monkeypatch, answer)
    got = sim.value_coverage_study("unmatched", n_audits=2, effect=0.7, **pop)
    assert got["group_coverage"] == 1.0
