"""Vectorised resampling of a group/reference comparison (docs/METHODS.md, "Resampling schemes").

Every metric is a function of per-item statistics summed over a group, so a bootstrap
replicate only needs the *weighted sums* of those statistics. Each side of a comparison is
stored as block sums ``T[s, c, k]`` (speaker-block ``s`` × content-block ``c`` × statistic
``k``); a replicate draws count vectors ``u`` (speakers) and ``w`` (contents) and its sums are
``Σ_s Σ_c u[s] w[c] T[s, c, k]``, evaluated for all replicates at once with matrix products.

Schemes (docs/METHODS.md, "Resampling schemes", in the automatic order):

``two_way``
    speaker ids and ≥ 5 shared content ids: both sides restricted to the shared content;
    content ids drawn with replacement (the same draw on both sides), speakers drawn with
    replacement within each side; item weight = speaker count × content count.
``speaker``
    speaker ids, content not shared: stratified cluster bootstrap of speakers per side.
``content``
    no speaker ids, shared content: content ids redrawn (same draw both sides) on the shared
    subset. Forced with speaker ids it is "conditional on these speakers".
``utterance``
    neither: items resampled within each side.

Count vectors are multinomial(n, 1/n) draws made as ``integers`` + ``bincount`` (identical
in distribution to drawing n indices with replacement), in chunks of replicates.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .block_labels import _codes, _missing_mask, _present

SCHEMES = ("two_way", "speaker", "content", "utterance")
#: Fewest shared content ids for a paired scheme (docs/METHODS.md, "Resampling schemes").
MIN_SHARED_CONTENT = 5
#: Share of the reference's content a group must cover for a matched design.
MATCHED_COVERAGE = 0.95

_CHUNK_ELEMENTS = 4_000_000  # replicates × blocks per chunk, bounds memory
#: Most bytes of per-speaker totals a pair bootstrap keeps for its jackknife.
_TOTALS_BYTES = 256 * 2**20


def comparison_rng(seed: int, *parts: str) -> np.random.Generator:
    """A generator derived deterministically from ``seed`` and text parts (group, ...)."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=8)
    h = int.from_bytes(digest.digest(), "little")
    return np.random.default_rng(np.random.SeedSequence([int(seed), h & 0xFFFFFFFF, h >> 32]))


def draw_counts(
    rng: np.random.Generator,
    n_blocks: int,
    n_rep: int,
    n_draw: int | None = None,
    dtype=float,
) -> np.ndarray:
    """Bootstrap counts: ``n_rep`` rows of ``n_draw`` (default ``n_blocks``) draws with
    replacement among ``n_blocks`` blocks, as an ``(n_rep, n_blocks)`` array of whole-number
    floats (float so that the products with block sums run in BLAS; ``dtype`` float32 for
    the float32 products of :func:`_content_major`, exact for counts below 2^24)."""
    n_draw = n_blocks if n_draw is None else n_draw
    # the narrowest integer type that holds the block indices (a 16-bit draw is several
    # times faster than a 64-bit one); the type depends on n_blocks only, so the draws
    # stay a deterministic function of the generator's state
    small = np.int16 if n_blocks <= np.iinfo(np.int16).max else np.int64
    idx = rng.integers(0, n_blocks, size=(n_rep, n_draw), dtype=small)
    return _row_counts(idx, n_blocks).astype(dtype)


#: Counters per bincount in :func:`_row_counts` (a cache-sized block of rows).
_COUNT_BLOCK = 1 << 16


def _row_counts(idx: np.ndarray, n_blocks: int) -> np.ndarray:
    """``counts[r, b]`` = how often block ``b`` occurs in row ``r`` of ``idx`` (values in
    ``0..n_blocks-1``), by bincount over a few rows at a time: the counters of a block of
    rows stay in the cache, which makes the counting several times faster than one
    bincount over all rows."""
    rows = idx.reshape(-1, idx.shape[-1])
    n = len(rows)
    out = np.empty((n, n_blocks), dtype=np.int64)
    step = max(1, _COUNT_BLOCK // max(1, n_blocks))
    wide: type[np.signedinteger] = (
        np.int32 if step * n_blocks < np.iinfo(np.int32).max else np.int64
    )
    offsets = (np.arange(min(step, n), dtype=wide) * n_blocks)[:, None]
    for a in range(0, n, step):
        b = min(n, a + step)
        flat = rows[a:b].astype(wide)
        flat += offsets[: b - a]
        out[a:b] = np.bincount(flat.ravel(), minlength=(b - a) * n_blocks).reshape(b - a, n_blocks)
    return out.reshape(idx.shape[:-1] + (n_blocks,))


@dataclass(frozen=True)
class VersionDeltas:
    """Items whose reference has several annotators' versions (docs/METHODS.md,
    "References from several annotators", ``resample``): the item's statistics row is the
    mean over its versions, and each replicate draws one version per item, adding the
    drawn version's difference from that mean.

    Attributes
    ----------
    rows : the items' row positions (in the statistics they belong to).
    n : versions per item (2 or more).
    deltas : ``(len(rows), max(n), n_stats)``: version statistics minus the mean (rows
        past an item's ``n`` are zeros, never drawn).
    """

    rows: np.ndarray
    n: np.ndarray
    deltas: np.ndarray

    def subset(self, ix: np.ndarray) -> VersionDeltas | None:
        """The items among rows ``ix`` (a new row order: positions in ``ix``); None: none."""
        ix = np.asarray(ix, dtype=np.int64)
        pos = {int(r): k for k, r in enumerate(ix)}
        keep = [k for k, r in enumerate(self.rows) if int(r) in pos]
        if not keep:
            return None
        return VersionDeltas(
            np.array([pos[int(self.rows[k])] for k in keep], dtype=np.int64),
            self.n[keep],
            self.deltas[keep],
        )

    def columns(self, cols: list[int]) -> VersionDeltas:
        return VersionDeltas(self.rows, self.n, self.deltas[:, :, cols])


def version_term(vd: VersionDeltas, weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``Σ_j weights[b, j] · deltas[j, v_bj]`` with ``v_bj`` drawn uniformly among item
    ``j``'s versions, independently per replicate ``b`` and item (``weights``: the items'
    bootstrap weights in each replicate, ``(B, len(rows))``)."""
    B, m = weights.shape
    v = np.floor(rng.random((B, m)) * vd.n[None, :]).astype(np.int64)
    out = np.zeros((B, vd.deltas.shape[2]))
    for k in range(vd.deltas.shape[1]):
        out += (weights * (v == k)) @ vd.deltas[:, k, :]
    return out


@dataclass(frozen=True)
class Side:
    """One side of a comparison: per-item statistics and optional block labels.

    Parameters
    ----------
    stats : ``(n_items, n_stats)`` per-item statistics.
    speakers : speaker id per item, or None when speaker ids don't exist.
    contents : content id per item, or None when content ids don't exist.
    versions : items with several reference versions (``resample``; None: none).
    """

    stats: np.ndarray
    speakers: np.ndarray | None = None
    contents: np.ndarray | None = None
    versions: VersionDeltas | None = None


def shared_contents(group: Side, reference: Side) -> np.ndarray:
    """Content ids present on both sides, sorted (empty without content ids)."""
    if group.contents is None or reference.contents is None:
        return np.array([], dtype=object)
    g, r = np.asarray(group.contents), np.asarray(reference.contents)
    if g.dtype.kind in "iu" and r.dtype.kind in "iu":  # integer codes (negative = missing)
        return np.intersect1d(g[g >= 0], r[r >= 0]).astype(np.int64)
    both = _present(g) & _present(r)
    return np.array(sorted(both, key=lambda c: (str(type(c)), c)), dtype=object)


def content_design(group: Side, reference: Side) -> tuple[str, int, float]:
    """Design of one comparison: ``(design, n_shared, coverage of the reference's content)``.

    matched: the group covers ≥ 95% of the reference's content ids (docs/METHODS.md, "Design: matched, partially matched, unmatched"; one
    shared text read by everyone, as in the Speech Accent Archive, is matched: content cannot
    confound the gap; resampling still needs ≥ 5 shared ids to pair by content);
    partially_matched: ≥ 5 shared; else unmatched.
    """
    shared = shared_contents(group, reference)
    if reference.contents is None:
        return "unmatched", 0, 0.0
    n_ref = len(_present(reference.contents))
    coverage = len(shared) / n_ref if n_ref else 0.0
    if len(shared) and coverage >= MATCHED_COVERAGE:
        return "matched", len(shared), coverage
    if len(shared) >= MIN_SHARED_CONTENT:
        return "partially_matched", len(shared), coverage
    return "unmatched", len(shared), coverage


def choose_scheme(
    has_speakers: bool, n_shared: int, requested: str = "auto", where: str = ""
) -> str:
    """The resampling scheme of docs/METHODS.md, "Resampling schemes" (automatic order, or a checked override).

    Raises
    ------
    ValueError
        An override the data can't support (the message says what is missing and where).
    """
    paired = n_shared >= MIN_SHARED_CONTENT
    if requested == "auto":
        if has_speakers and paired:
            return "two_way"
        if has_speakers:
            return "speaker"
        if paired:
            return "content"
        return "utterance"
    if requested not in SCHEMES:
        raise ValueError(f"Unknown resampling {requested!r}; choose auto or one of {SCHEMES}.")
    needs = []
    if requested in ("two_way", "speaker") and not has_speakers:
        needs.append("speaker ids")
    if requested in ("two_way", "content") and not paired:
        needs.append(
            "at least "
            + str(MIN_SHARED_CONTENT)
            + " content ids shared with the reference (found "
            + str(n_shared)
            + ")"
        )
    if needs:
        raise ValueError(
            f"--resampling {requested} needs {' and '.join(needs)}{where}; use --resampling "
            "auto to let fairdesk pick a scheme the data supports."
        )
    return requested


@dataclass(frozen=True)
class _Blocks:
    """Block sums of one side: ``T[s, c, k]`` and which axes a replicate redraws."""

    T: np.ndarray
    draw_rows: bool
    draw_cols: bool
    row_labels: np.ndarray  # speaker labels (or item positions) of the rows
    n_items: int
    item_rows: np.ndarray | None = None  # per analysed item: its row block
    item_cols: np.ndarray | None = None  # per analysed item: its content block
    versions: VersionDeltas | None = None  # in analysed-item positions


def _item_weights(b: _Blocks, u: np.ndarray | None, w: np.ndarray | None) -> np.ndarray:
    """The bootstrap weight of each item with versions in a chunk of replicates."""
    vd = b.versions
    assert vd is not None and b.item_rows is not None and b.item_cols is not None
    draws = u if u is not None else w
    assert draws is not None, "a chunk of replicates draws rows, contents or both"
    out = np.ones((len(draws), len(vd.rows)))
    if u is not None and b.draw_rows:
        out *= u[:, b.item_rows[vd.rows]]
    if w is not None and b.draw_cols:
        out *= np.asarray(w, dtype=float)[:, b.item_cols[vd.rows]]
    return out


def _side_blocks(side: Side, scheme: str, shared: np.ndarray | None) -> _Blocks:
    # speaker ids keep their type: integer codes (as compare passes them) mark a missing id
    # with a negative code, labels with None/NaN; either way each such item is its own block
    X = np.asarray(side.stats, dtype=float)
    if X.ndim != 2:
        raise ValueError("Side.stats must be a 2-D (items × statistics) array.")
    n, k = X.shape
    if scheme in ("two_way", "content"):
        assert shared is not None, "the content-drawing schemes need the shared contents"
        contents = np.asarray(side.contents)
        cc = pd.Index(shared).get_indexer(contents).astype(np.int64)
        cc[_missing_mask(contents)] = -1
        keep = cc >= 0
        X, cc = X[keep], cc[keep]
        spk = None if side.speakers is None else np.asarray(side.speakers)[keep]
        n_cols = len(shared)
        analysed = np.flatnonzero(keep)
    else:
        spk = None if side.speakers is None else np.asarray(side.speakers)
        cc = np.zeros(n, dtype=np.int64)
        n_cols = 1
        analysed = np.arange(n)
    if scheme == "utterance":
        rows = np.arange(len(X))
        labels = np.arange(len(X)).astype(object)
    elif spk is not None:
        rows, labels = _codes(spk)
    else:
        rows = np.zeros(len(X), dtype=np.int64)
        labels = np.array(["(all)"], dtype=object)
    n_rows = len(labels)
    T: np.ndarray = np.zeros((n_rows * n_cols, k))
    flat = rows * n_cols + cc
    for j in range(k):
        T[:, j] = np.bincount(flat, weights=X[:, j], minlength=n_rows * n_cols)
    T = T.reshape(n_rows, n_cols, k)
    return _Blocks(
        T=T,
        draw_rows=scheme in ("two_way", "speaker", "utterance"),
        draw_cols=scheme in ("two_way", "content"),
        row_labels=labels,
        n_items=len(X),
        item_rows=np.asarray(rows, dtype=np.int64),
        item_cols=cc,
        versions=None if side.versions is None else side.versions.subset(analysed),
    )


def _chunk(n_rep: int, width: int) -> int:
    """Replicates per chunk when one replicate holds ``width`` numbers (the content counts,
    the speaker counts and the per-speaker content-weighted sums)."""
    return max(1, min(n_rep, _CHUNK_ELEMENTS // max(1, width)))


_F32_EXACT = 2.0**24  # every integer up to this is a float32


def _content_major(T: np.ndarray) -> np.ndarray:
    """``T[s, c, k]`` as a ``(C, S·K)`` matrix, in float32 where that is exact.

    A content draw ``w`` (whole numbers summing to C) times this matrix gives
    ``Y[b, s, k] = Σ_c w[b,c] T[s,c,k]``; every term and partial sum is a whole number at most
    ``C · max|T|``, so when T holds whole numbers and that bound is below 2^24 the float32
    product is exact and equal to the float64 one (twice as fast in BLAS).
    """
    S, C, K = T.shape
    M = T.transpose(1, 0, 2).reshape(C, S * K)
    if M.size and C * float(np.abs(M).max()) < _F32_EXACT and np.array_equal(M, np.round(M)):
        return M.astype(np.float32)
    return np.ascontiguousarray(M)


def _draw_dtype(*Ms: np.ndarray | None):
    """float32 content counts when some product runs in float32 (no conversion per use)."""
    return np.float32 if any(M is not None and M.dtype == np.float32 for M in Ms) else float


def _weighted_sums(
    T: np.ndarray, u: np.ndarray | None, w: np.ndarray | None, M: np.ndarray | None = None
) -> np.ndarray:
    """``Σ_s Σ_c u[b,s] w[b,c] T[s,c,k]`` for a chunk of replicates (u or w None = ones).

    Both counts given: the content draw is contracted first, in one matrix product over the
    (long) content axis (``M`` = :func:`_content_major` of T, computed here when None), then
    the speaker counts over the short speaker axis. The sums are whole numbers when T's are,
    so the order of the additions does not change them.
    """
    S, C, K = T.shape
    if u is None and w is None:
        raise ValueError("nothing to resample")
    if w is None:
        return u @ T.sum(axis=1)
    if u is None:
        return w @ T.sum(axis=0)
    M = _content_major(T) if M is None else M
    Y = (w.astype(M.dtype, copy=False) @ M).reshape(len(w), S, K).astype(float)
    return np.einsum("bs,bsk->bk", u, Y)


@dataclass(frozen=True)
class PairBootstrap:
    """Bootstrap replicates of one comparison's summed statistics.

    Attributes
    ----------
    scheme : ``two_way``, ``speaker``, ``content`` or ``utterance``.
    group_point, reference_point : observed sums ``(n_stats,)`` on the analysed subset.
    group_reps, reference_reps : ``(B, n_stats)`` replicate sums.
    group_blocks, reference_blocks : block-level sums ``(n_blocks, n_stats)`` (speakers for
        two_way/speaker, contents for content, items for utterance), for effect sizes.
    n_group_speakers, n_reference_speakers : speakers analysed (None without speaker ids).
    n_contents : shared content ids resampled (None for speaker/utterance).
    n_group_items, n_reference_items : items analysed (after restriction to shared content).
    counts : the count matrices used (only with ``keep_counts=True``).
    """

    scheme: str
    group_point: np.ndarray
    reference_point: np.ndarray
    group_reps: np.ndarray
    reference_reps: np.ndarray
    group_blocks: np.ndarray
    reference_blocks: np.ndarray
    n_group_speakers: int | None
    n_reference_speakers: int | None
    n_contents: int | None
    n_group_items: int
    n_reference_items: int
    counts: dict | None = None
    _group: _Blocks | None = field(default=None, repr=False)
    _content_counts: np.ndarray | None = field(default=None, repr=False)
    _columns: tuple | None = field(default=None, repr=False)
    _totals: np.ndarray | None = field(default=None, repr=False)

    def slim(self) -> PairBootstrap:
        """This bootstrap without what only the speaker jackknife needs (the content draws
        and the per-speaker totals: the bulk of its memory)."""
        return replace(self, _content_counts=None, _totals=None)


def bootstrap_pair(
    group: Side,
    reference: Side,
    scheme: str,
    n_rep: int,
    rng: np.random.Generator,
    *,
    keep_counts: bool = False,
    columns: list[int] | None = None,
    keep_totals: bool = False,
) -> PairBootstrap:
    """Replicate sums of both sides of a comparison under one scheme.

    Parameters
    ----------
    group, reference : the two sides (same statistic columns).
    scheme : one of ``SCHEMES`` (see ``choose_scheme``).
    n_rep : number of bootstrap replicates B.
    rng : the comparison's generator.
    keep_counts : also return the count matrices for checking: ``counts['content']`` (the
        shared content draw, columns in the order of ``counts['contents']``),
        ``counts['group']`` / ``counts['reference']`` (row draws: speakers, or item positions
        for ``utterance``; columns in the order of ``counts['group_rows']`` /
        ``counts['reference_rows']``).
    columns : replicate only these statistic columns (the others' replicate sums are NaN);
        the draws, and so the replicates of these columns, are the same as with all.
    keep_totals : keep the group's per-speaker sums under each replicate's content draw
        (``B × S × K``) for :func:`jackknife_group_speakers`, which then skips recomputing
        them, when they fit in :data:`_TOTALS_BYTES`; the replicates are the same either way.
        Call :meth:`PairBootstrap.slim` once the jackknife is done.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"Unknown scheme {scheme!r}; one of {SCHEMES}.")
    shared = shared_contents(group, reference) if scheme in ("two_way", "content") else None
    gb = _side_blocks(group, scheme, shared)
    rb = _side_blocks(reference, scheme, shared)
    if gb.n_items == 0 or rb.n_items == 0:
        raise ValueError("A side of the comparison has no item to resample.")
    Sg, C, K = gb.T.shape
    Sr = rb.T.shape[0]
    cols = list(range(K)) if columns is None else list(columns)
    Tg, Tr = gb.T[:, :, cols], rb.T[:, :, cols]
    # resample: the versions are drawn from a stream of their own, so that the speaker and
    # content draws are those of the same audit without versions
    vrng = rng.spawn(1)[0] if (gb.versions or rb.versions) is not None else None
    Mg = _content_major(Tg) if gb.draw_rows and gb.draw_cols else None
    Mr = _content_major(Tr) if rb.draw_rows and rb.draw_cols else None
    g_reps = np.full((n_rep, K), np.nan)
    r_reps = np.full((n_rep, K), np.nan)
    # the content draws are kept for the jackknife: as small whole numbers (uint8 while
    # they fit; 99 comparisons × 20,000 replicates × 500 contents is 1 GB, not 8)
    Kc = len(cols)
    totals = None
    if keep_totals and Mg is not None and n_rep * Sg * Kc * Mg.itemsize <= _TOTALS_BYTES:
        totals = np.empty((n_rep, Sg, Kc), dtype=Mg.dtype)
    w_all = np.empty((n_rep, C), dtype=np.uint8) if gb.draw_cols and totals is None else None
    keep: dict[str, list[np.ndarray]] | None = (
        {"group": [], "reference": []} if keep_counts else None
    )
    step = _chunk(n_rep, C + max(Sg, Sr) * (Kc + 1))
    wdt = _draw_dtype(Mg, Mr)
    for b0 in range(0, n_rep, step):
        b1 = min(n_rep, b0 + step)
        m = b1 - b0
        w = draw_counts(rng, C, m, dtype=wdt) if gb.draw_cols else None
        ug = draw_counts(rng, Sg, m) if gb.draw_rows else None
        ur = draw_counts(rng, Sr, m) if rb.draw_rows else None
        if totals is not None:
            # kept only where both are drawn (Mg exists): w and ug are this chunk's draws
            assert w is not None and Mg is not None and ug is not None
            totals[b0:b1] = (w.astype(Mg.dtype, copy=False) @ Mg).reshape(m, Sg, Kc)
            g_reps[b0:b1, cols] = np.einsum("bs,bsk->bk", ug, totals[b0:b1].astype(float))
        else:
            g_reps[b0:b1, cols] = _weighted_sums(Tg, ug, w, Mg)
        r_reps[b0:b1, cols] = _weighted_sums(Tr, ur, w, Mr)
        if vrng is not None:
            for blk, u, reps in ((gb, ug, g_reps), (rb, ur, r_reps)):
                if blk.versions is not None:
                    vd = blk.versions.columns(cols)
                    reps[b0:b1, cols] += version_term(vd, _item_weights(blk, u, w), vrng)
        if w_all is not None:
            assert w is not None  # both exist where the scheme draws contents
            if w_all.dtype == np.uint8 and w.max(initial=0) > 255:
                w_all = w_all.astype(np.uint32)
            w_all[b0:b1] = w
        if keep is not None:
            # a side's list stays empty where its rows are not drawn (and is not read)
            if ug is not None:
                keep["group"].append(ug)
            if ur is not None:
                keep["reference"].append(ur)
    counts = None
    if keep is not None:
        if w_all is None and gb.draw_cols:
            raise ValueError("keep_counts and keep_totals together are not supported.")
        counts = {
            "content": None if w_all is None else w_all.astype(float),
            "group": None if not gb.draw_rows else np.vstack(keep["group"]),
            "reference": None if not rb.draw_rows else np.vstack(keep["reference"]),
            "contents": shared,
            "group_rows": gb.row_labels,
            "reference_rows": rb.row_labels,
        }
    has_spk = group.speakers is not None and scheme != "utterance"
    if scheme == "content":
        g_blk, r_blk = gb.T.sum(axis=0), rb.T.sum(axis=0)
    else:
        g_blk, r_blk = gb.T.sum(axis=1), rb.T.sum(axis=1)
    return PairBootstrap(
        scheme=scheme,
        group_point=gb.T.sum(axis=(0, 1)),
        reference_point=rb.T.sum(axis=(0, 1)),
        group_reps=g_reps,
        reference_reps=r_reps,
        group_blocks=g_blk,
        reference_blocks=r_blk,
        n_group_speakers=Sg if has_spk else None,
        n_reference_speakers=Sr if has_spk else None,
        n_contents=C if scheme in ("two_way", "content") else None,
        n_group_items=gb.n_items,
        n_reference_items=rb.n_items,
        counts=counts,
        _group=gb,
        _content_counts=w_all,
        _columns=None if columns is None else tuple(cols),
        _totals=totals,
    )


@dataclass(frozen=True)
class SpeakerJackknife:
    """The group side recomputed with each of its speakers left out.

    Attributes
    ----------
    speakers : the left-out speaker of each row.
    point : ``(J, n_stats)`` observed group sums without that speaker.
    reps : ``(J, B, n_stats)`` replicate group sums without that speaker (the reference
        replicates and the shared content draws are reused).
    """

    speakers: np.ndarray
    point: np.ndarray
    reps: np.ndarray


def jackknife_group_speakers(pb: PairBootstrap, rng: np.random.Generator) -> SpeakerJackknife:
    """Leave each group speaker out and redo the group side's replicates.

    For ``two_way``/``speaker`` the remaining S-1 speakers are redrawn with replacement (S-1
    draws) on top of the comparison's own content draws; for ``content`` (conditional on the
    speakers) only the content draws are reused. Vectorised over replicates; loops over
    chunks of left-out speakers only.

    Raises
    ------
    ValueError
        Without speaker ids (utterance scheme or no speakers), or with fewer than 2 speakers.
    """
    gb = pb._group
    if gb is None or pb.n_group_speakers is None:
        raise ValueError("The speaker jackknife needs speaker ids on the group side.")
    T_all = gb.T
    S, C, K_all = T_all.shape
    if S < 2:
        raise ValueError("The speaker jackknife needs at least two speakers.")
    B = pb.group_reps.shape[0]
    w = pb._content_counts
    row_tot = T_all.sum(axis=1)  # S × K
    point = row_tot.sum(axis=0)[None, :] - row_tot
    cols = list(range(K_all)) if pb._columns is None else list(pb._columns)
    T = T_all[:, :, cols]
    K = len(cols)
    reps = np.full((S, B, K_all), np.nan)
    W = None
    if pb._totals is not None:  # kept by bootstrap_pair (the same numbers)
        W = pb._totals.astype(float)
    elif w is not None:  # per-replicate speaker totals under the content draw (B × S × K)
        M = _content_major(T)
        W = (w.astype(M.dtype) @ M).reshape(B, S, K).astype(float)
    if pb.scheme == "content":
        assert W is not None  # the content scheme draws contents: w exists
        base = W.sum(axis=1)  # B × K
        reps[:, :, cols] = base[None] - W.transpose(1, 0, 2)
        return SpeakerJackknife(gb.row_labels, point, reps)
    if W is None:
        W = np.broadcast_to(row_tot[:, cols], (B, S, K))
    step = max(1, _CHUNK_ELEMENTS // max(1, B * S))
    for j0 in range(0, S, step):
        js = np.arange(j0, min(S, j0 + step))
        # 16-bit draws below 32,768 speakers, as in draw_counts
        small: type[np.signedinteger] = np.int16 if S <= np.iinfo(np.int16).max else np.int64
        idx = rng.integers(0, S - 1, size=(len(js), B, S - 1), dtype=small)
        idx += idx >= js.astype(small)[:, None, None]  # skip the left-out speaker
        u = _row_counts(idx, S)
        part = np.einsum("jbs,bsk->jbk", u.astype(float), W, optimize=True)
        reps[js[:, None], :, np.array(cols)[None, :]] = part.transpose(0, 2, 1)
    return SpeakerJackknife(gb.row_labels, point, reps)
