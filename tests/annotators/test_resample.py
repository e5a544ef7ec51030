"""``--reference-text resample`` (docs/METHODS.md, "References from several annotators"):
each bootstrap replicate draws one version per item; the point estimate averages over the
versions; identical versions give exactly the numbers of an audit without versions, and
disagreeing ones widen the intervals of the group whose items they are."""

from __future__ import annotations

import numpy as np
import pytest

from tests.annotators.fixture import import_annotator, item_id, project, write_textgrids

TEXT = "akwa ji"


def _items():
    """Two accents × 5 speakers × 2 items, all reading "akwa ji"."""
    out = {}
    for accent in ("north", "south"):
        for s in range(5):
            for k in range(2):
                out[f"{accent[0]}{s}{k}"] = (f"{accent}{s}", accent, TEXT, "", "")
    return out


def _predictions(items):
    # the model marks one 'a' in the north and nothing in the south
    return {k: ("àkwa ji" if v[1] == "north" else "akwa ji") for k, v in items.items()}


def _req(preds, choice):
    from fairdesk.jobs.audit import AuditRequest
    from fairdesk.stats.settings import AuditSettings

    return AuditRequest(
        dataset="d",
        model=f"predictions:{preds}",
        by=("accent",),
        metrics=("der", "ter", "wer"),
        settings=AuditSettings(n_bootstrap=400, min_items=2, min_speakers=2),
        reference_text=choice,
    )


def _numbers(run):
    comps = [
        (c.metric, c.group, c.value, c.reference_value, c.gap, c.ci_low, c.ci_high, c.p_value)
        for c in run.comparisons
    ]
    groups = [
        (g.group, dict(g.values), {k: tuple(v or ()) for k, v in g.ci.items()}) for g in run.groups
    ]
    return comps, groups


def _annotate(tmp_path, p, items, ada, obi):
    a = write_textgrids(tmp_path / "ada", {item_id(k): ada(k, v) for k, v in items.items()})
    o = write_textgrids(tmp_path / "obi", {item_id(k): obi(k, v) for k, v in items.items()})
    assert import_annotator(p, a, "Ada") == 0
    assert import_annotator(p, o, "Obi") == 0


def test_identical_versions_leave_every_number_unchanged(tmp_path):
    from fairdesk.jobs.audit import run_audit

    items = _items()
    p, preds = project(tmp_path, items, _predictions(items))
    _annotate(tmp_path, p, items, lambda k, v: "àkwà ji", lambda k, v: "àkwà ji")
    latest = run_audit(p, _req(preds, "latest")).result
    resampled = run_audit(p, _req(preds, "resample")).result
    assert resampled.run_settings.annotators_resampled == 0
    assert _numbers(resampled) == _numbers(latest)


def test_disagreeing_versions_average_the_point_and_widen_their_groups_intervals():
    import pandas as pd

    from fairdesk.jobs.analysis import version_stats
    from fairdesk.metrics import compute_item_stats, metric_specs
    from fairdesk.stats import compare_groups
    from fairdesk.stats.settings import AuditSettings

    rows = []
    for accent in ("north", "south"):
        for s in range(6):
            for k in range(2):
                # in the south, the annotators disagree on the second 'a' of every item
                versions = ("àkwà ji", "àkwa ji") if accent == "south" else ()
                rows.append(
                    {
                        "group": accent,
                        "speaker_id": f"{accent}{s}",
                        "content_id": f"c{k}",
                        "reference": "àkwà ji",
                        "hypothesis": "àkwa ji" if s % 2 else "akwa ji",
                        "text_versions": versions,
                    }
                )
    frame = pd.DataFrame(rows)
    stats = compute_item_stats(frame, language="ig", normalizer="whisper-basic")
    mean, versions = version_stats(frame, stats, "ig", "whisper-basic")
    assert sorted(versions) == list(range(12, 24))
    # the point: each south item's TER is the mean over its two versions
    v0 = compute_item_stats(frame.iloc[[12]], language="ig", normalizer="whisper-basic")
    f1 = frame.iloc[[12]].assign(reference="àkwa ji")
    v1 = compute_item_stats(f1, language="ig", normalizer="whisper-basic")
    for c in ("tone_expected", "tone_dropped", "tone_hallucinated", "tone_wrong"):
        assert mean[c].iloc[12] == pytest.approx((v0[c].iloc[0] + v1[c].iloc[0]) / 2)
    full = pd.concat(
        [frame.drop(columns=["reference"]).assign(reference=frame["reference"]), mean], axis=1
    )
    specs = metric_specs(mean, ["ter", "der"])
    settings = AuditSettings(n_bootstrap=1000, min_items=2, min_speakers=2)
    without = compare_groups(full, specs, settings, reference="north")
    with_v = compare_groups(full, specs, settings, reference="north", versions=versions)
    for w0, w1 in zip(without.groups, with_v.groups):
        assert w0.values == w1.values  # the point estimate: the same averaged statistics
        if w0.group == "north":  # no versions: the identical interval
            assert dict(w0.ci) == dict(w1.ci)
        else:  # the annotators' disagreement widens it
            lo0, hi0 = w0.ci["ter"]
            lo1, hi1 = w1.ci["ter"]
            assert hi1 - lo1 > hi0 - lo0
    c0, c1 = without.comparisons[0], with_v.comparisons[0]
    assert (c0.metric, c0.gap) == (c1.metric, c1.gap)
    assert c1.ci_high - c1.ci_low > c0.ci_high - c0.ci_low
    assert np.isfinite(c1.p_value)
