"""Simulated audits with known truth, used to validate the statistics (docs/METHODS.md, "Validation").

Per utterance, word errors ~ Binomial(words, p) with
``logit p = base + group effect + speaker effect (sd 0.3) + sentence effect (sd 0.5)``,
5–11 words per sentence. Errors are split into substitutions, deletions and insertions
(multinomial 0.6 / 0.25 / 0.15) so WER, the substitution rate and exact match can all be
audited. The true group values are expectations over the populations of speakers and
sentences, computed by Monte Carlo.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

SPEAKER_SD = 0.3
SENTENCE_SD = 0.5
ERROR_SPLIT = (0.6, 0.25, 0.15)  # substitution, deletion, insertion shares of the errors


def simulate_audit(
    rng: np.random.Generator,
    group_effects: dict[str, float],
    *,
    design: str = "matched",
    speakers_per_group: int = 12,
    n_sentences: int = 30,
    utterances_per_speaker: int = 15,
    n_utterances: int = 400,
    base: float = -1.7,
    speaker_sd: float = SPEAKER_SD,
    sentence_sd: float = SENTENCE_SD,
    speaker_shift: dict[str, dict[int, float]] | None = None,
) -> pd.DataFrame:
    """One simulated audit frame with per-item statistic columns.

    Parameters
    ----------
    rng : random generator.
    group_effects : group label → logit effect.
    design : ``matched`` (every speaker reads the same ``n_sentences`` sentences),
        ``unmatched`` (every utterance its own sentence, ``utterances_per_speaker`` each) or
        ``independent`` (``n_utterances`` per group, each its own speaker and sentence, no
        speaker ids).
    speakers_per_group, n_sentences, utterances_per_speaker, n_utterances : sizes.
    base : logit of the baseline error probability.
    speaker_sd, sentence_sd : random-effect standard deviations.
    speaker_shift : optional ``{group: {speaker index: extra logit}}`` (e.g. one bad speaker).

    Returns
    -------
    DataFrame
        Columns ``group, speaker_id, content_id, n_words, n_sub, n_del, n_ins, n_err, em,
        n_items``.
    """
    frames = []
    if design == "matched":
        words = rng.integers(5, 12, size=n_sentences)
        sent_eff = rng.normal(0, sentence_sd, size=n_sentences)
    for g, eff in group_effects.items():
        shifts = (speaker_shift or {}).get(g, {})
        if design == "independent":
            n = n_utterances
            spk = np.array([None] * n, dtype=object)
            w = rng.integers(5, 12, size=n)
            logit = base + eff + rng.normal(0, speaker_sd, n) + rng.normal(0, sentence_sd, n)
            content = np.array([str(g) + "/u" + str(i) for i in range(n)], dtype=object)
        else:
            s_eff = rng.normal(0, speaker_sd, size=speakers_per_group)
            for i, x in shifts.items():
                s_eff[i] += x
            if design == "matched":
                si = np.repeat(np.arange(speakers_per_group), n_sentences)
                ci = np.tile(np.arange(n_sentences), speakers_per_group)
                w = words[ci]
                logit = base + eff + s_eff[si] + sent_eff[ci]
                content = np.array(["s" + str(c) for c in ci], dtype=object)
            elif design == "unmatched":
                si = np.repeat(np.arange(speakers_per_group), utterances_per_speaker)
                n = si.size
                w = rng.integers(5, 12, size=n)
                logit = base + eff + s_eff[si] + rng.normal(0, sentence_sd, n)
                content = np.array([str(g) + "/u" + str(i) for i in range(n)], dtype=object)
            else:
                raise ValueError(f"Unknown design {design!r}: matched, unmatched, independent.")
            spk = np.array([str(g) + "/spk" + str(s) for s in si], dtype=object)
        err = rng.binomial(w, expit(logit))
        split = rng.multinomial(err, ERROR_SPLIT) if err.size else np.zeros((0, 3), int)
        frames.append(
            pd.DataFrame(
                {
                    "group": g,
                    "speaker_id": spk,
                    "content_id": content,
                    "n_words": w,
                    "n_sub": split[:, 0],
                    "n_del": split[:, 1],
                    "n_ins": split[:, 2],
                    "n_err": err,
                    "em": (err == 0).astype(float),
                    "n_items": 1.0,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def true_values(
    effect: float,
    *,
    base: float = -1.7,
    speaker_sd: float = SPEAKER_SD,
    sentence_sd: float = SENTENCE_SD,
    n_draws: int = 2_000_000,
    seed: int = 12345,
) -> dict[str, float]:
    """Population values of a group by Monte Carlo (common random numbers for a fixed seed).

    Returns ``wer`` (= E[N p]/E[N]), ``sub_rate`` (0.6 of the WER) and ``em``
    (E[(1 − p)^N]).
    """
    rng = np.random.default_rng(seed)
    n = rng.integers(5, 12, size=n_draws)
    z = rng.normal(0, speaker_sd, n_draws) + rng.normal(0, sentence_sd, n_draws)
    p = expit(base + effect + z)
    wer = float((n * p).sum() / n.sum())
    return {"wer": wer, "sub_rate": ERROR_SPLIT[0] * wer, "em": float(((1 - p) ** n).mean())}


def _population(sim: dict) -> dict:
    """The population parameters among a study's ``simulate_audit`` arguments: the truth is
    computed with the same ones."""
    return {k: sim[k] for k in ("base", "speaker_sd", "sentence_sd") if k in sim}


def _study_specs():
    from fairdesk.metrics.registry import ratio_metric

    return [
        ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"]),
        ratio_metric("sub_rate", "Substitution rate", ["n_sub"], ["n_words"]),
        ratio_metric(
            "em",
            "Exact match",
            ["em"],
            ["n_items"],
            higher_is_better=True,
            kind="proportion",
            family="slu",
        ),
    ]


def coverage_study(
    design: str,
    *,
    speakers_per_group: int = 12,
    n_audits: int = 300,
    n_bootstrap: int = 500,
    effect: float = 0.3,
    seed: int = 0,
    metric: str = "wer",
    resampling: str = "auto",
    small_cluster_scaling: bool = True,
    **sim,
) -> dict:
    """Coverage of the true gap by the 95% CI over simulated two-group audits (docs/METHODS.md, "Validation").

    Parameters
    ----------
    design : ``matched`` (two-way scheme), ``unmatched`` (speaker scheme) or
        ``independent`` (no speaker ids: utterance scheme).
    speakers_per_group : speakers per group (matched / unmatched).
    n_audits : simulated audits.
    n_bootstrap : resamples per audit.
    effect : the group's logit effect (the reference has 0).
    seed : seed of the simulation (each audit also gets its own bootstrap seed).
    metric : ``wer``, ``sub_rate`` or ``em``.
    resampling : ``auto`` or a forced scheme (e.g. ``content`` to reproduce the panel).
    small_cluster_scaling : the √(k/(k−1)) · t_{k−1}/z scaling of docs/METHODS.md, "Small numbers of speakers"
        (on by default, as in ``AuditSettings``; it scales the speaker scheme only).
    **sim : passed to ``simulate_audit``.

    Returns
    -------
    dict
        ``design, estimator, speakers, n_audits, true_gap, coverage, mean_width``.
    """
    from fairdesk.stats.compare import compare_groups
    from fairdesk.stats.settings import AuditSettings

    specs = [s for s in _study_specs() if s.id == metric]
    pop = _population(sim)
    truth = true_values(effect, **pop)[metric] - true_values(0.0, **pop)[metric]
    rng = np.random.default_rng(seed)
    hits, widths, estimators = 0, [], set()
    for i in range(n_audits):
        frame = simulate_audit(
            rng,
            {"ref": 0.0, "grp": effect},
            design=design,
            speakers_per_group=speakers_per_group,
            **sim,
        )
        settings = AuditSettings(
            n_bootstrap=n_bootstrap,
            seed=i,
            min_items=1,
            min_speakers=1,
            resampling=resampling,
            small_cluster_scaling=small_cluster_scaling,
        )
        c = compare_groups(frame, specs, settings, reference="ref").comparisons[0]
        hits += c.ci_low <= truth <= c.ci_high
        widths.append(c.ci_high - c.ci_low)
        estimators.add(c.estimator)
    return {
        "design": design,
        "estimator": "/".join(sorted(estimators)),
        "speakers": speakers_per_group if design != "independent" else None,
        "n_audits": n_audits,
        "true_gap": truth,
        "coverage": hits / n_audits,
        "mean_width": float(np.mean(widths)),
    }


def familywise_study(
    *,
    n_groups: int = 10,
    n_audits: int = 300,
    n_bootstrap: int = 1000,
    speakers_per_group: int = 12,
    seed: int = 2024,
) -> dict:
    """All-null audits (docs/METHODS.md, "Validation"): share of audits with at least one ``disparity_detected``.

    Each audit has a reference and ``n_groups`` null groups in a matched design, compared on
    WER, substitution rate and exact match (``n_groups × 3`` comparisons, Holm-adjusted).

    Returns
    -------
    dict
        ``n_audits, comparisons, any_disparity`` (the family-wise rate of disparity
        verdicts), ``any_significant`` (any p_adjusted < alpha), ``verdicts`` (counts),
        ``n_bootstrap_used`` (B after the raise of docs/METHODS.md, "Multiple comparisons (Holm)").
    """
    from fairdesk.stats.compare import compare_groups
    from fairdesk.stats.settings import AuditSettings

    rng = np.random.default_rng(seed)
    specs = _study_specs()
    effects = {"ref": 0.0, **{"g" + str(i): 0.0 for i in range(n_groups)}}
    disparity = significant = 0
    verdicts: dict[str, int] = {}
    n_comp = b_used = 0
    for i in range(n_audits):
        frame = simulate_audit(
            rng, effects, design="matched", speakers_per_group=speakers_per_group
        )
        res = compare_groups(
            frame, specs, AuditSettings(n_bootstrap=n_bootstrap, seed=i), reference="ref"
        )
        n_comp = len(res.comparisons)
        assert res.bootstrap is not None  # compare_groups always records its bootstrap
        b_used = res.bootstrap.used or 0
        disparity += any(c.verdict == "disparity_detected" for c in res.comparisons)
        significant += any(c.p_adjusted < res.settings.alpha for c in res.comparisons)
        for c in res.comparisons:
            verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
    return {
        "n_audits": n_audits,
        "comparisons": n_comp,
        "any_disparity": disparity / n_audits,
        "any_significant": significant / n_audits,
        "verdicts": verdicts,
        "n_bootstrap_used": b_used,
    }


def value_coverage_study(
    design: str,
    *,
    speakers_per_group: int = 12,
    n_audits: int = 300,
    n_bootstrap: int = 500,
    effect: float = 0.3,
    seed: int = 0,
    small_cluster_scaling: bool = True,
    **sim,
) -> dict:
    """Coverage of each group's own WER CI and of the corpus-wide WER CI (docs/METHODS.md, "Validation").

    Two groups of equal size (reference effect 0, the other ``effect``); the corpus truth is
    the mean of the two population WERs (equal expected words per group).
    ``small_cluster_scaling`` (default on, as in ``AuditSettings``) scales the intervals drawn
    by speakers (the unmatched design's), not the two-way ones.

    Returns
    -------
    dict
        ``group_coverage`` (both groups' CIs pooled), ``group_width``, ``group_scheme``,
        ``corpus_coverage``, ``corpus_width``, ``corpus_scheme``, ``n_audits``.
    """
    from fairdesk.stats.compare import compare_groups
    from fairdesk.stats.settings import AuditSettings

    specs = [s for s in _study_specs() if s.id == "wer"]
    pop = _population(sim)
    truth = {"ref": true_values(0.0, **pop)["wer"], "grp": true_values(effect, **pop)["wer"]}
    corpus_truth = (truth["ref"] + truth["grp"]) / 2
    rng = np.random.default_rng(seed)
    g_hits = c_hits = g_n = 0
    g_w, c_w, g_s, c_s = [], [], set(), set()
    for i in range(n_audits):
        frame = simulate_audit(
            rng,
            {"ref": 0.0, "grp": effect},
            design=design,
            speakers_per_group=speakers_per_group,
            **sim,
        )
        st = AuditSettings(
            n_bootstrap=n_bootstrap,
            seed=i,
            min_items=1,
            min_speakers=1,
            small_cluster_scaling=small_cluster_scaling,
        )
        res = compare_groups(frame, specs, st, reference="ref")
        for g in res.groups:
            lo, hi = g.ci["wer"]
            g_hits += lo <= truth[g.group] <= hi
            g_n += 1
            g_w.append(hi - lo)
            g_s.add(g.ci_scheme["wer"])
        ov = res.summary["wer"].overall
        lo, hi = ov["ci"]
        c_hits += lo <= corpus_truth <= hi
        c_w.append(hi - lo)
        c_s.add(ov["scheme"])
    return {
        "n_audits": n_audits,
        "group_coverage": g_hits / g_n,
        "group_width": float(np.mean(g_w)),
        "group_scheme": "/".join(sorted(g_s)),
        "corpus_coverage": c_hits / n_audits,
        "corpus_width": float(np.mean(c_w)),
        "corpus_scheme": "/".join(sorted(c_s)),
    }


#: Verdicts that may come from a comparison without an estimable distribution.
SAFE_VERDICTS = frozenset({"not_estimable", "no_variation", "not_computable"})


def small_audit_study(*, n_audits: int = 1000, n_bootstrap: int = 200, seed: int = 11) -> dict:
    """Small audits (1–3 speakers per group, docs/METHODS.md, "Validation"): no verdict from a degenerate distribution.

    Each audit has a reference and one or two groups with 1–3 speakers each, 2–8 utterances
    per speaker, matched or unmatched content, a random true effect, and a baseline error
    rate from very low (constant groups happen) to ordinary; WER, substitution rate and EM
    are compared with minimums of 1 item and 1 speaker.

    A comparison is *degenerate* when, checked here from the frame and the result rather
    than by the code under test, a side has fewer than 2 speakers, or its CI has zero width
    although the two groups are not both constant. Every degenerate comparison must be
    ``not_estimable``, ``no_variation`` or ``not_computable``.

    Returns
    -------
    dict
        ``n_audits, comparisons, degenerate, violations`` (degenerate with another verdict;
        must be 0), ``constant_different`` (both constant at different values: a disparity
        by docs/METHODS.md, "Estimability", counted apart), ``verdicts`` (counts).
    """
    from fairdesk.stats.compare import compare_groups
    from fairdesk.stats.settings import AuditSettings

    rng = np.random.default_rng(seed)
    specs = _study_specs()
    verdicts: dict[str, int] = {}
    n_comp = degenerate = violations = const_diff = 0
    for i in range(n_audits):
        n_groups = int(rng.integers(1, 3))
        effects = {"ref": 0.0, **{"g" + str(j): float(rng.normal(0, 0.7)) for j in range(n_groups)}}
        design = "matched" if rng.random() < 0.5 else "unmatched"
        frames = []
        for g, eff in effects.items():
            frames.append(
                simulate_audit(
                    rng,
                    {g: eff},
                    design=design,
                    speakers_per_group=int(rng.integers(1, 4)),
                    n_sentences=int(rng.integers(2, 9)),
                    utterances_per_speaker=int(rng.integers(2, 9)),
                    base=float(rng.choice([-6.0, -4.0, -1.7])),
                )
            )
        frame = pd.concat(frames, ignore_index=True)
        st = AuditSettings(n_bootstrap=n_bootstrap, seed=i, min_items=1, min_speakers=1)
        res = compare_groups(frame, specs, st, reference="ref")
        spk = frame.groupby("group")["speaker_id"].nunique()
        for c in res.comparisons:
            n_comp += 1
            verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
            spec = next(s for s in specs if s.id == c.metric)
            consts = []
            for g in (c.group, c.reference):
                sub = frame[frame["group"] == g]
                v = np.asarray(spec.compute(sub[list(spec.stats)].to_numpy(float)), dtype=float)
                v = v[np.isfinite(v)]
                consts.append(v[0] if v.size and np.all(v == v[0]) else None)
            both_const = consts[0] is not None and consts[1] is not None
            if both_const and consts[0] != consts[1]:
                const_diff += 1
            few = min(spk[c.group], spk[c.reference]) < 2
            zero_width = (
                c.ci_low is not None and np.isfinite(c.ci_low) and c.ci_high - c.ci_low <= 0
            )
            if few or (zero_width and not both_const):
                degenerate += 1
                violations += c.verdict not in SAFE_VERDICTS
    return {
        "n_audits": n_audits,
        "comparisons": n_comp,
        "degenerate": degenerate,
        "violations": violations,
        "constant_different": const_diff,
        "verdicts": verdicts,
    }
