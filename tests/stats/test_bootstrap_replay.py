"""``bootstrap_pair`` replayed from its documented draws, and its helpers against plain loops.

A seeded audit must give the same numbers on every run and every machine: the replicates are
a fixed function of the comparison's generator (METHODS.md §3). Each test here rebuilds the
replicates independently (the draws made in the documented order, chunk by chunk, then the
weighted sums as an explicit loop over items) and checks fairdesk's vectorised numbers
equal them.
"""

import numpy as np
import pytest

import fairdesk.stats.bootstrap as bs
from fairdesk.stats.bootstrap import Side, bootstrap_pair

INT16_MAX = 32767


# ---------------------------------------------------------------- independent replay


def _draw(rng, n_blocks, m):
    """m rows of n_blocks draws among n_blocks blocks, counted (the documented draw)."""
    small = np.int16 if n_blocks <= INT16_MAX else np.int64
    idx = rng.integers(0, n_blocks, size=(m, n_blocks), dtype=small)
    return np.array([np.bincount(row, minlength=n_blocks) for row in idx], dtype=float)


def _order(labels):
    """Block order: labels by first appearance, then one block per missing label."""
    seen = []
    for lab in labels:
        if lab is not None and lab not in seen:
            seen.append(lab)
    return seen


def _items(side, scheme, shared):
    """(stats, row index, content index) of the items a scheme analyses on one side."""
    X = np.asarray(side.stats, dtype=float)
    n = len(X)
    if scheme in ("two_way", "content"):
        keep = np.array([c in shared for c in side.contents])
        cidx = np.array([shared.index(c) for c in np.asarray(side.contents)[keep]], dtype=int)
    else:
        keep = np.ones(n, dtype=bool)
        cidx = np.zeros(n, dtype=int)
    X = X[keep]
    if scheme == "utterance":
        ridx = np.arange(len(X))
        n_rows = len(X)
    elif side.speakers is not None:  # (under content the rows are speakers, never drawn)
        spk = [s for s, k in zip(side.speakers, keep, strict=True) if k]
        order = _order(spk)
        missing = 0
        ridx = []
        for s in spk:
            if s is None:
                ridx.append(len(order) + missing)
                missing += 1
            else:
                ridx.append(order.index(s))
        ridx = np.array(ridx, dtype=int)
        n_rows = len(order) + missing
    else:
        ridx = np.zeros(len(X), dtype=int)
        n_rows = 1
    return X, ridx, cidx, n_rows


def _replay(group, reference, scheme, n_rep, seed, cols=None):
    """The replicates of ``bootstrap_pair`` rebuilt by hand."""
    rng = np.random.default_rng(seed)
    if scheme in ("two_way", "content"):
        shared = sorted(set(group.contents) & set(reference.contents))
    else:
        shared = []
    g = _items(group, scheme, shared)
    r = _items(reference, scheme, shared)
    C = len(shared) if shared else 1
    K = g[0].shape[1]
    cols = list(range(K)) if cols is None else list(cols)
    draw_rows = scheme != "content"
    draw_cols = scheme in ("two_way", "content")
    width = C + max(g[3], r[3]) * (len(cols) + 1)
    step = max(1, min(n_rep, bs._CHUNK_ELEMENTS // width))
    out = {"group": np.full((n_rep, K), np.nan), "reference": np.full((n_rep, K), np.nan)}
    starts = list(range(0, n_rep, step))
    for b0 in starts:
        m = min(n_rep, b0 + step) - b0
        w = _draw(rng, C, m) if draw_cols else np.ones((m, C))
        ug = _draw(rng, g[3], m) if draw_rows else np.ones((m, g[3]))
        ur = _draw(rng, r[3], m) if draw_rows else np.ones((m, r[3]))
        for name, (X, ridx, cidx, _), u in (("group", g, ug), ("reference", r, ur)):
            for b in range(m):
                for k in cols:
                    out[name][b0 + b, k] = sum(
                        X[i, k] * u[b, ridx[i]] * w[b, cidx[i]] for i in range(len(X))
                    )
    return out, len(starts)


def _sides(seed, n_stats=2, whole=True, missing_speaker=False):
    rng = np.random.default_rng(seed)
    sides = []
    for prefix, n_spk, contents in (("g", 4, range(0, 7)), ("r", 5, range(2, 9))):
        stats, spk, con = [], [], []
        for s in range(n_spk):
            for c in rng.choice(list(contents), size=4, replace=False):
                row = rng.integers(0, 9, n_stats).astype(float)
                stats.append(row if whole else row + rng.random(n_stats))
                spk.append(f"{prefix}{s}")
                con.append(f"c{c}")
        if missing_speaker:
            spk[1] = None
            spk[6] = None
        sides.append(
            Side(np.array(stats), np.array(spk, dtype=object), np.array(con, dtype=object))
        )
    return sides


# ---------------------------------------------------------------- bootstrap_pair


@pytest.mark.parametrize("scheme", ["two_way", "speaker", "content", "utterance"])
@pytest.mark.parametrize("chunk", [None, 200])
def test_replicates_equal_the_replayed_draws(monkeypatch, scheme, chunk):
    """Whole-number statistics: the replicates equal the replay exactly, in one chunk and in
    several (a small chunk budget forces several chunks and a shorter last one)."""
    if chunk is not None:
        monkeypatch.setattr(bs, "_CHUNK_ELEMENTS", chunk)
    group, ref = _sides(1, n_stats=2, missing_speaker=scheme == "speaker")
    pb = bootstrap_pair(group, ref, scheme, 23, np.random.default_rng(7))
    want, n_chunks = _replay(group, ref, scheme, 23, 7)
    assert n_chunks == 1 if chunk is None else n_chunks >= 2
    np.testing.assert_array_equal(pb.group_reps, want["group"])
    np.testing.assert_array_equal(pb.reference_reps, want["reference"])


@pytest.mark.parametrize("scheme", ["two_way", "speaker", "content", "utterance"])
def test_fractional_statistics_replay_in_float64(monkeypatch, scheme):
    monkeypatch.setattr(bs, "_CHUNK_ELEMENTS", 150)
    group, ref = _sides(2, n_stats=3, whole=False)
    pb = bootstrap_pair(group, ref, scheme, 11, np.random.default_rng(3))
    want, _ = _replay(group, ref, scheme, 11, 3)
    np.testing.assert_allclose(pb.group_reps, want["group"], rtol=1e-12)
    np.testing.assert_allclose(pb.reference_reps, want["reference"], rtol=1e-12)


@pytest.mark.parametrize("scheme", ["two_way", "speaker", "content"])
def test_replicating_some_columns_gives_the_same_draws(monkeypatch, scheme):
    monkeypatch.setattr(bs, "_CHUNK_ELEMENTS", 120)
    group, ref = _sides(4, n_stats=3)
    full = bootstrap_pair(group, ref, scheme, 13, np.random.default_rng(5))
    part = bootstrap_pair(group, ref, scheme, 13, np.random.default_rng(5), columns=[2, 0])
    want, _ = _replay(group, ref, scheme, 13, 5, cols=[2, 0])
    for side in ("group", "reference"):
        got = getattr(part, f"{side}_reps")
        np.testing.assert_array_equal(got[:, [0, 2]], want[side][:, [0, 2]])
        assert np.isnan(got[:, 1]).all()
    assert part._columns == (2, 0) and full._columns is None
    # the point sums cover every column either way
    np.testing.assert_array_equal(part.group_point, full.group_point)


def test_kept_totals_give_the_same_replicates_and_respect_the_byte_budget(monkeypatch):
    monkeypatch.setattr(bs, "_CHUNK_ELEMENTS", 200)
    group, ref = _sides(5, n_stats=2)
    plain = bootstrap_pair(group, ref, "two_way", 17, np.random.default_rng(9))
    kept = bootstrap_pair(group, ref, "two_way", 17, np.random.default_rng(9), keep_totals=True)
    np.testing.assert_array_equal(kept.group_reps, plain.group_reps)
    np.testing.assert_array_equal(kept.reference_reps, plain.reference_reps)
    # totals[b, s, k]: speaker s's sums under replicate b's content draw
    assert kept._totals is not None and kept._content_counts is None
    assert plain._totals is None and plain._content_counts is not None
    S = kept._totals.shape[1]
    np.testing.assert_array_equal(
        kept._totals.astype(float).sum(axis=1),
        np.einsum("bc,ck->bk", plain._content_counts.astype(float), kept._group.T.sum(axis=0)),
    )
    # the budget: B·S·K·itemsize bytes, kept when at most _TOTALS_BYTES
    need = 17 * S * 2 * kept._totals.itemsize
    monkeypatch.setattr(bs, "_TOTALS_BYTES", need)
    assert (
        bootstrap_pair(
            group, ref, "two_way", 17, np.random.default_rng(9), keep_totals=True
        )._totals
        is not None
    )
    monkeypatch.setattr(bs, "_TOTALS_BYTES", need - 1)
    over = bootstrap_pair(group, ref, "two_way", 17, np.random.default_rng(9), keep_totals=True)
    assert over._totals is None and over._content_counts is not None
    np.testing.assert_array_equal(over.group_reps, plain.group_reps)
    # a scheme without content draws keeps no totals
    spk = bootstrap_pair(group, ref, "speaker", 5, np.random.default_rng(9), keep_totals=True)
    assert spk._totals is None and spk._content_counts is None


def test_keep_counts_with_kept_totals_is_refused():
    group, ref = _sides(5)
    with pytest.raises(
        ValueError, match=r"^keep_counts and keep_totals together are not supported\.$"
    ):
        bootstrap_pair(
            group, ref, "two_way", 4, np.random.default_rng(0), keep_counts=True, keep_totals=True
        )
    # without content draws there is nothing to conflict
    pb = bootstrap_pair(
        group, ref, "speaker", 4, np.random.default_rng(0), keep_counts=True, keep_totals=True
    )
    assert pb.counts["content"] is None and pb.counts["group"].shape == (4, 4)


@pytest.mark.parametrize("big, wide", [(255, False), (256, True), (300, True)])
def test_content_counts_above_255_are_kept_exactly(monkeypatch, big, wide):
    """Content draws are stored as uint8 while they fit and widened when a count passes 255."""
    real = bs.draw_counts
    C = 6
    calls = []

    def draw(rng, n_blocks, n_rep, n_draw=None, dtype=float):
        out = real(rng, n_blocks, n_rep, n_draw, dtype)
        calls.append(n_blocks)
        if len(calls) == 2:  # the second chunk's content draw
            out[1, 0] = big
        return out

    monkeypatch.setattr(bs, "draw_counts", draw)
    monkeypatch.setattr(bs, "_chunk", lambda n_rep, width: 3)
    side = Side(np.ones((C, 1)), np.arange(C), np.arange(C))
    ref = Side(np.ones((C, 1)), np.arange(C) + 10, np.arange(C))
    pb = bootstrap_pair(side, ref, "content", 6, np.random.default_rng(0), keep_counts=True)
    w = pb._content_counts
    assert w.dtype == (np.uint32 if wide else np.uint8) and w[4, 0] == big
    assert w[:3].sum(axis=1).tolist() == [C] * 3  # the first chunk survives the widening
    assert pb.counts["content"][4, 0] == float(big)
    assert pb.counts["content"].dtype == np.float64
    assert calls == [C, C]  # content draws only: the speakers are not redrawn
    np.testing.assert_array_equal(pb.reference_reps[:, 0], w.astype(float).sum(axis=1))
    np.testing.assert_array_equal(pb.group_reps[:, 0], w.astype(float).sum(axis=1))
    small = bootstrap_pair(side, ref, "content", 6, np.random.default_rng(0))
    assert small._content_counts.dtype == np.uint8


def test_points_blocks_and_counts_of_each_scheme():
    group, ref = _sides(6, n_stats=2)
    shared = sorted(set(group.contents) & set(ref.contents))
    for scheme in ("two_way", "speaker", "content", "utterance"):
        pb = bootstrap_pair(group, ref, scheme, 3, np.random.default_rng(0))
        assert pb.counts is None  # only kept when asked for
        assert pb.scheme == scheme
        for name, side, n_spk in (("group", group, 4), ("reference", ref, 5)):
            X = side.stats
            sel = (
                np.isin(side.contents, shared)
                if scheme in ("two_way", "content")
                else np.ones(len(X), bool)
            )
            point, blocks = getattr(pb, f"{name}_point"), getattr(pb, f"{name}_blocks")
            np.testing.assert_array_equal(point, X[sel].sum(axis=0))
            assert point.shape == (2,)
            assert getattr(pb, f"n_{name}_items") == int(sel.sum())
            speakers = getattr(pb, f"n_{name}_speakers")
            assert speakers == (None if scheme == "utterance" else n_spk)
            if scheme in ("two_way", "speaker"):  # blocks are the speakers
                spk = _order(list(side.speakers[sel]))
                want = [X[sel][side.speakers[sel] == s].sum(axis=0) for s in spk]
            elif scheme == "content":  # blocks are the shared contents
                want = [X[side.contents == c].sum(axis=0) for c in shared]
            else:  # blocks are the items
                want = X
            np.testing.assert_array_equal(blocks, want)
        assert pb.n_contents == (len(shared) if scheme in ("two_way", "content") else None)
    # without speaker ids nothing is counted as speakers
    bare = Side(group.stats, None, group.contents)
    pb = bootstrap_pair(
        bare, Side(ref.stats, None, ref.contents), "content", 2, np.random.default_rng(0)
    )
    assert pb.n_group_speakers is None and pb.n_reference_speakers is None


def test_row_labels_of_each_scheme():
    group, ref = _sides(6, n_stats=1)
    pbs = {
        s: bootstrap_pair(group, ref, s, 2, np.random.default_rng(0), keep_counts=True)
        for s in ("two_way", "speaker", "content", "utterance")
    }
    assert pbs["speaker"].counts["group_rows"].tolist() == ["g0", "g1", "g2", "g3"]
    # the shared contents are listed only where contents are drawn
    assert pbs["speaker"].counts["contents"] is None
    assert pbs["utterance"].counts["contents"] is None
    assert pbs["two_way"].counts["contents"].tolist() == sorted(
        set(group.contents) & set(ref.contents)
    )
    # under content the rows are the speakers (never redrawn), or one block without ids
    assert pbs["content"].counts["group_rows"].tolist() == ["g0", "g1", "g2", "g3"]
    assert pbs["content"].counts["group"] is None
    bare = bootstrap_pair(
        Side(group.stats, None, group.contents),
        Side(ref.stats, None, ref.contents),
        "content",
        2,
        np.random.default_rng(0),
        keep_counts=True,
    )
    assert bare.counts["group_rows"].tolist() == ["(all)"]
    assert bare.counts["group_rows"].dtype == object
    utt = pbs["utterance"].counts["group_rows"]
    assert utt.dtype == object and utt.tolist() == list(range(len(group.stats)))


def test_refusals():
    group, ref = _sides(6)
    with pytest.raises(ValueError, match=r"Unknown scheme 'bogus'; one of \('two_way'"):
        bootstrap_pair(group, ref, "bogus", 2, np.random.default_rng(0))
    empty = Side(np.zeros((0, 2)), np.array([], dtype=object), np.array([], dtype=object))
    for g, r in ((empty, ref), (group, empty)):
        with pytest.raises(
            ValueError,
            match=r"^A side of the comparison has no item to "
            r"resample\.$",
        ):
            bootstrap_pair(g, r, "speaker", 2, np.random.default_rng(0))
    flat = Side(np.zeros(4), np.arange(4), np.arange(4))
    with pytest.raises(
        ValueError, match=r"^Side\.stats must be a 2-D \(items × statistics\) array\.$"
    ):
        bootstrap_pair(flat, ref, "speaker", 2, np.random.default_rng(0))


# ---------------------------------------------------------------- helpers


def test_draw_counts_are_the_documented_draws():
    for n_blocks in (1, 5, INT16_MAX, INT16_MAX + 1):
        got = bs.draw_counts(np.random.default_rng(4), n_blocks, 2)
        want = _draw(np.random.default_rng(4), n_blocks, 2)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == np.float64
    # fewer draws than blocks, and float32 counts
    got = bs.draw_counts(np.random.default_rng(1), 9, 40, n_draw=3, dtype=np.float32)
    idx = np.random.default_rng(1).integers(0, 9, size=(40, 3), dtype=np.int16)
    np.testing.assert_array_equal(got, [np.bincount(r, minlength=9) for r in idx])
    assert got.dtype == np.float32 and got.shape == (40, 9)


@pytest.mark.parametrize("block", [1, 3, 7, 1 << 16])
def test_row_counts_equal_bincount_per_row(monkeypatch, block):
    monkeypatch.setattr(bs, "_COUNT_BLOCK", block)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 4, size=(2, 5, 6))
    got = bs._row_counts(idx, 4)
    assert got.shape == (2, 5, 4) and got.dtype == np.int64
    for a in range(2):
        for b in range(5):
            np.testing.assert_array_equal(got[a, b], np.bincount(idx[a, b], minlength=4))
    # more blocks than the count block (one row per bincount)
    idx = rng.integers(0, 40, size=(9, 12))
    np.testing.assert_array_equal(
        bs._row_counts(idx, 40), [np.bincount(r, minlength=40) for r in idx]
    )
    # rows that do not fill the last block of rows
    idx = rng.integers(0, 3, size=(5, 7))
    np.testing.assert_array_equal(
        bs._row_counts(idx, 3), [np.bincount(r, minlength=3) for r in idx]
    )
    assert bs._row_counts(np.zeros((0, 3), dtype=np.int64), 2).shape == (0, 2)


def test_missing_labels():
    np.testing.assert_array_equal(
        bs._missing_mask(np.array([-2, -1, 0, 1])), [True, True, False, False]
    )
    np.testing.assert_array_equal(
        bs._missing_mask(np.array([0, 3], dtype=np.uint8)), [False, False]
    )
    np.testing.assert_array_equal(
        bs._missing_mask(np.array(["a", None, np.nan, 0, -1], dtype=object)),
        [False, True, True, False, False],
    )
    np.testing.assert_array_equal(bs._missing_mask([1.0, np.nan, -1.0]), [False, True, False])


def test_chunk_sizes():
    big = bs._CHUNK_ELEMENTS
    assert bs._chunk(10, 3) == 10
    assert bs._chunk(10**9, 4) == big // 4
    assert bs._chunk(10**9, 0) == big
    assert bs._chunk(10**9, big + 1) == 1
    assert bs._chunk(10**9, big) == 1
    assert bs._chunk(10**9, big // 2 + 1) == 1
    assert bs._chunk(5, big // 2) == 2


def test_draw_dtype():
    f32 = np.zeros((2, 2), dtype=np.float32)
    f64 = np.zeros((2, 2))
    assert bs._draw_dtype() is float
    assert bs._draw_dtype(None, None) is float
    assert bs._draw_dtype(f64, None) is float
    assert bs._draw_dtype(None, f32) is np.float32
    assert bs._draw_dtype(f64, f32) is np.float32


def test_weighted_sums_equal_the_double_loop():
    rng = np.random.default_rng(2)
    T = rng.integers(0, 7, size=(3, 4, 2)).astype(float)
    u = rng.integers(0, 4, size=(5, 3)).astype(float)
    w = rng.integers(0, 5, size=(5, 4)).astype(float)
    want = np.array(
        [
            [
                sum(u[b, s] * w[b, c] * T[s, c, k] for s in range(3) for c in range(4))
                for k in range(2)
            ]
            for b in range(5)
        ]
    )
    np.testing.assert_array_equal(bs._weighted_sums(T, u, w), want)
    np.testing.assert_array_equal(bs._weighted_sums(T, u, w, bs._content_major(T)), want)
    M64 = np.ascontiguousarray(T.transpose(1, 0, 2).reshape(4, 6))
    np.testing.assert_array_equal(bs._weighted_sums(T, u, w.astype(np.float32), M64), want)
    np.testing.assert_array_equal(
        bs._weighted_sums(T, u, None),
        [
            [sum(u[b, s] * T[s, c, k] for s in range(3) for c in range(4)) for k in range(2)]
            for b in range(5)
        ],
    )
    np.testing.assert_array_equal(
        bs._weighted_sums(T, None, w),
        [
            [sum(w[b, c] * T[s, c, k] for s in range(3) for c in range(4)) for k in range(2)]
            for b in range(5)
        ],
    )
    frac = T + 0.25
    np.testing.assert_allclose(
        bs._weighted_sums(frac, u, w),
        [
            [
                sum(u[b, s] * w[b, c] * frac[s, c, k] for s in range(3) for c in range(4))
                for k in range(2)
            ]
            for b in range(5)
        ],
        rtol=1e-12,
    )
    assert bs._weighted_sums(frac, u, w).dtype == np.float64
    with pytest.raises(ValueError, match="^nothing to resample$"):
        bs._weighted_sums(T, None, None)


@pytest.mark.parametrize("scheme", ["two_way", "speaker"])
def test_items_without_a_speaker_id_are_each_their_own_block(scheme):
    """compare passes speaker ids as integer codes (missing: -1); they must give the same
    blocks, and so the same replicates, as the labels with None, where every item without an
    id is its own speaker (not one speaker '-1' holding all of them)."""
    X = np.arange(20.0).reshape(10, 2)
    contents = np.array([0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
    codes = np.array([0, 0, 1, 1, -1, -1, -1, 2, 2, -1])
    labels = np.array(["a", "a", "b", "b", None, None, None, "c", "c", None], dtype=object)
    ref = Side(X[::-1].copy(), np.repeat([5, 6, 7, 8, 9], 2), contents)
    by_code = bootstrap_pair(
        Side(X, codes, contents), ref, scheme, 9, np.random.default_rng(2), keep_counts=True
    )
    by_label = bootstrap_pair(
        Side(X, labels, contents), ref, scheme, 9, np.random.default_rng(2), keep_counts=True
    )
    assert by_code.n_group_speakers == by_label.n_group_speakers == 3 + 4
    assert by_code.counts["group_rows"].tolist() == [0, 1, 2, None, None, None, None]
    np.testing.assert_array_equal(by_code.group_reps, by_label.group_reps)
    np.testing.assert_array_equal(by_code.group_blocks, by_label.group_blocks)
    np.testing.assert_array_equal(by_code.group_blocks[3:], X[[4, 5, 6, 9]])
    # and the replicates are the replay's, with each missing id its own speaker
    want, _ = _replay(Side(X, labels, contents), ref, scheme, 9, 2)
    np.testing.assert_array_equal(by_code.group_reps, want["group"])


@pytest.mark.parametrize("scheme", ["two_way", "content"])
def test_items_without_a_content_id_are_left_out_of_paired_schemes(scheme):
    X = np.arange(24.0).reshape(12, 2)
    spk = np.repeat([0, 1, 2], 4)
    contents = np.array(
        ["c0", "c1", None, "c2", "c3", "c4", "c0", np.nan, "c1", "c2", "c3", "c4"], dtype=object
    )
    ref = Side(
        np.ones((10, 2)),
        np.repeat([5, 6, 7, 8, 9], 2),
        np.array(["c0", "c1", "c2", "c3", "c4"] * 2, dtype=object),
    )
    pb = bootstrap_pair(Side(X, spk, contents), ref, scheme, 4, np.random.default_rng(0))
    kept = [i for i, c in enumerate(contents) if isinstance(c, str)]
    assert pb.n_group_items == 10 and pb.n_contents == 5
    np.testing.assert_array_equal(pb.group_point, X[kept].sum(axis=0))
    codes = Side(X, spk, np.array([0, 1, -1, 2, 3, 4, 0, -1, 1, 2, 3, 4]))
    ref_codes = Side(ref.stats, ref.speakers, np.array([0, 1, 2, 3, 4] * 2))
    pb = bootstrap_pair(codes, ref_codes, scheme, 4, np.random.default_rng(0))
    assert pb.n_group_items == 10
    np.testing.assert_array_equal(pb.group_point, X[kept].sum(axis=0))


def test_speaker_scheme_without_speaker_ids_draws_the_whole_side():
    """Called directly (compare refuses it first), the speaker scheme on sides without speaker
    ids has one block per side: every replicate is the observed sums."""
    X = np.arange(12.0).reshape(6, 2)
    pb = bootstrap_pair(
        Side(X), Side(X + 1), "speaker", 3, np.random.default_rng(0), keep_counts=True
    )
    assert pb.counts["group_rows"].tolist() == ["(all)"]
    assert pb.n_group_speakers is None
    np.testing.assert_array_equal(pb.group_reps, np.tile(X.sum(axis=0), (3, 1)))
    np.testing.assert_array_equal(pb.reference_reps, np.tile((X + 1).sum(axis=0), (3, 1)))
