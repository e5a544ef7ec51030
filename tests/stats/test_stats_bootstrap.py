"""The vectorised resampling equals an explicit loop over replicates with the same counts."""

import numpy as np
import pandas as pd
import pytest

from fairdesk.stats.bootstrap import (
    Side,
    bootstrap_pair,
    choose_scheme,
    comparison_rng,
    content_design,
    draw_counts,
    jackknife_group_speakers,
)

STATS = ["n_err", "n_words"]


def _side_frame(rng, n_spk, contents, prefix, missing_speaker=False):
    rows = []
    for s in range(n_spk):
        for c in rng.choice(contents, size=int(rng.integers(2, len(contents) + 1)), replace=False):
            for _ in range(int(rng.integers(1, 3))):  # some repeated readings
                w = int(rng.integers(5, 12))
                rows.append(
                    {
                        "speaker_id": f"{prefix}{s}",
                        "content_id": c,
                        "n_words": w,
                        "n_err": int(rng.binomial(w, 0.2)),
                    }
                )
    df = pd.DataFrame(rows)
    if missing_speaker:
        df.loc[df.index[:2], "speaker_id"] = None
    return df


def _side(df, speakers=True):
    return Side(
        df[STATS].to_numpy(float),
        df["speaker_id"].to_numpy(object) if speakers else None,
        df["content_id"].to_numpy(object),
    )


def _value(df):
    return df["n_err"].sum() / df["n_words"].sum()


def _loop_side(df, scheme, b, counts, side, row_key):
    """Rebuild replicate b of one side explicitly (rows repeated) and compute the metric."""
    rows = counts[side]
    parts = []
    if scheme in ("two_way", "content"):
        df = df[df["content_id"].isin(set(counts["contents"]))]
    if scheme == "utterance":
        for pos, k in enumerate(rows[b].astype(int)):
            parts += [df.iloc[[pos]]] * k
    elif scheme == "speaker":
        labels = counts[row_key]
        unknown = iter(np.flatnonzero(df["speaker_id"].isna()))  # each its own speaker
        for lab, k in zip(labels, rows[b].astype(int), strict=True):
            sel = df.iloc[[next(unknown)]] if lab is None else df[df["speaker_id"] == lab]
            parts += [sel] * k
    elif scheme == "content":
        for c, k in zip(counts["contents"], counts["content"][b].astype(int), strict=True):
            parts += [df[df["content_id"] == c]] * k
    else:  # two_way: weight = speaker count × content count
        labels = counts[row_key]
        for lab, ks in zip(labels, rows[b].astype(int), strict=True):
            for c, kc in zip(counts["contents"], counts["content"][b].astype(int), strict=True):
                sel = df[(df["speaker_id"] == lab) & (df["content_id"] == c)]
                parts += [sel] * (ks * kc)
    return _value(pd.concat(parts)) if parts else np.nan


@pytest.mark.parametrize("scheme", ["two_way", "speaker", "content", "utterance"])
def test_vectorised_equals_loop(scheme):
    rng = np.random.default_rng(3)
    contents = [f"c{i}" for i in range(8)]
    g = _side_frame(rng, 5, contents[:7], "g", missing_speaker=scheme == "speaker")
    r = _side_frame(rng, 6, contents[1:], "r")
    speakers = scheme != "utterance" and scheme != "content"
    pb = bootstrap_pair(
        _side(g, speakers),
        _side(r, speakers),
        scheme,
        25,
        np.random.default_rng(11),
        keep_counts=True,
    )
    gap_vec = (
        pb.group_reps[:, 0] / pb.group_reps[:, 1]
        - pb.reference_reps[:, 0] / pb.reference_reps[:, 1]
    )
    gap_loop = [
        _loop_side(g, scheme, b, pb.counts, "group", "group_rows")
        - _loop_side(r, scheme, b, pb.counts, "reference", "reference_rows")
        for b in range(25)
    ]
    np.testing.assert_allclose(gap_vec, gap_loop, rtol=1e-12)
    # every replicate draws as many blocks as there are
    for key in ("group", "reference", "content"):
        if pb.counts[key] is not None:
            n_blocks = pb.counts[key].shape[1]
            assert (pb.counts[key].sum(axis=1) == n_blocks).all()
    if scheme in ("two_way", "content"):
        assert pb.n_contents == 6
        assert list(pb.counts["contents"]) == contents[1:7]
        # restricted to shared content
        shared = g["content_id"].isin(contents[1:7])
        assert pb.n_group_items == shared.sum()
        np.testing.assert_allclose(pb.group_point, g.loc[shared, STATS].sum().to_numpy())
    else:
        np.testing.assert_allclose(pb.group_point, g[STATS].sum().to_numpy())


def test_jackknife_equals_loop():
    rng = np.random.default_rng(5)
    contents = [f"c{i}" for i in range(6)]
    g = _side_frame(rng, 4, contents, "g")
    r = _side_frame(rng, 4, contents, "r")
    pb = bootstrap_pair(
        _side(g), _side(r), "two_way", 10, np.random.default_rng(1), keep_counts=True
    )
    jk = jackknife_group_speakers(pb, np.random.default_rng(2))
    # the reference replicates / content draws are shared; drop speaker j, redraw the others
    rng2 = np.random.default_rng(2)
    S = len(jk.speakers)
    for j, lab in enumerate(jk.speakers):
        kept = g[g["speaker_id"] != lab]
        np.testing.assert_allclose(jk.point[j], kept[STATS].sum().to_numpy())
    # same draws as the implementation: one integers() call per chunk of speakers
    idx = rng2.integers(0, S - 1, size=(S, 10, S - 1), dtype=np.int16)  # 16-bit draws
    idx += idx >= np.arange(S)[:, None, None]
    for j, lab in enumerate(jk.speakers):
        for b in range(10):
            cnt = np.bincount(idx[j, b], minlength=S)
            assert cnt[j] == 0 and cnt.sum() == S - 1
            tot = np.zeros(2)
            for s_i, s_lab in enumerate(jk.speakers):
                for c_i, c in enumerate(pb.counts["contents"]):
                    sel = g[(g["speaker_id"] == s_lab) & (g["content_id"] == c)]
                    tot += cnt[s_i] * pb.counts["content"][b, c_i] * sel[STATS].sum().to_numpy()
            np.testing.assert_allclose(jk.reps[j, b], tot)
        assert lab != "" and j < S


def test_draw_counts_distribution_and_determinism():
    c = draw_counts(np.random.default_rng(0), 7, 4000)
    assert c.shape == (4000, 7) and (c.sum(axis=1) == 7).all()
    np.testing.assert_allclose(c.mean(axis=0), 1.0, atol=0.05)
    np.testing.assert_allclose(c.var(axis=0), 6 / 7, atol=0.06)  # multinomial variance
    np.testing.assert_array_equal(c, draw_counts(np.random.default_rng(0), 7, 4000))


def test_comparison_rng_is_stable_and_distinct():
    a = comparison_rng(0, "compare", "g", "r").random(3)
    np.testing.assert_array_equal(a, comparison_rng(0, "compare", "g", "r").random(3))
    assert not np.allclose(a, comparison_rng(1, "compare", "g", "r").random(3))
    assert not np.allclose(a, comparison_rng(0, "compare", "h", "r").random(3))


def test_scheme_order_and_overrides():
    assert choose_scheme(True, 5) == "two_way"
    assert choose_scheme(True, 4) == "speaker"
    assert choose_scheme(False, 30) == "content"
    assert choose_scheme(False, 0) == "utterance"
    assert choose_scheme(True, 30, "content") == "content"
    assert choose_scheme(True, 30, "utterance") == "utterance"
    with pytest.raises(ValueError, match="speaker ids.*group 'x'"):
        choose_scheme(False, 30, "speaker", where=" (group 'x')")
    with pytest.raises(ValueError, match="at least 5 content ids"):
        choose_scheme(True, 3, "two_way")


def test_content_design():
    def side(cs):
        return Side(np.ones((len(cs), 2)), None, np.array(cs, dtype=object))

    ref = side([f"c{i}" for i in range(40)])
    assert content_design(side([f"c{i}" for i in range(38)]), ref)[0] == "matched"
    assert content_design(side([f"c{i}" for i in range(37)]), ref)[0] == "partially_matched"
    assert content_design(side(["c1", "c2", "c3", "c4", "c5", "z"]), ref)[0] == "partially_matched"
    assert content_design(side(["c1", "c2", "c3", "c4", "z"]), ref)[:2] == ("unmatched", 4)
    assert content_design(side(["c1"]), Side(np.ones((1, 2))))[0] == "unmatched"
