"""The time-aligned tiers of one item, shared by the Praat and ELAN exports.

Four tiers (names in :data:`TIERS`):

``reference``
    The reference words as written (tone marks kept), each at its span. Spans come, in order
    of preference, from the alignment the explain stage cached with the item's saliency
    (``saliency.meta["words"]``), from forced alignment with whisper-tiny.en
    (:class:`fairdesk.explain.alignment.WhisperAligner`, English only, clips up to 30 s), or,
    where neither is available (other languages, longer clips, no aligner installed), from an
    even split of the voiced part of the clip by word length. Each item records which one it
    got (``reference_source``).
``hypothesis``
    The model's words at the model's own times (``predictions.words``); when the model gave
    no times (imported predictions, most CTC models), one interval spanning the utterance
    with the whole hypothesis.
``errors``
    On each reference word's span, its alignment errors after the run's normaliser:
    ``S ref→hyp``, ``D ref``, ``T ref→hyp (dropped 1)`` (a substitution that only changes
    combining marks: tone-mark error); insertions (``I hyp``) go on the span of the reference
    word before them (the first word for a leading insertion).
``saliency``
    Only for items explained (a saliency curve stored for the run's model): the stretches
    where the curve is at or above its 80th percentile and above its mean, labelled with
    their mean saliency relative to the curve's peak.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .align import align_tokens, normaliser, owned_tokens
from .data import RunData, num

TIERS = ("reference", "hypothesis", "errors", "saliency")
#: Shortest interval written (seconds); TextGrid and EAF refuse zero-length intervals.
MIN_INTERVAL = 0.01
#: Saliency spans: frames at or above this quantile of the curve.
SALIENCY_QUANTILE = 0.8

SOURCE_CACHED = "forced alignment cached by the explain stage"
SOURCE_WHISPER = "forced alignment with whisper-tiny.en"
SOURCE_EVEN = "even split of the voiced part by word length (no forced alignment)"


@dataclass
class ItemTiers:
    """One item's tiers: lists of ``(start, end, label)`` in seconds."""

    item: str
    db_id: int | None
    dataset: str
    audio: Path | None
    duration: float
    tiers: dict = field(default_factory=dict)
    reference_source: str = ""
    hypothesis_source: str = ""
    note: str = ""


def clean(intervals, duration: float) -> list[tuple[float, float, str]]:
    """Sorted, clipped to the clip, non-overlapping, at least :data:`MIN_INTERVAL` long.

    An interval that cannot be given room joins its label to the interval before it.
    """
    out: list[list] = []
    for s, e, label in sorted(intervals, key=lambda x: (x[0], x[1])):
        s = min(max(float(s), out[-1][1] if out else 0.0, 0.0), duration)
        e = min(max(float(e), s + MIN_INTERVAL), duration)
        if e - s < MIN_INTERVAL / 2:
            if out:
                out[-1][2] = f"{out[-1][2]} {label}".strip()
            continue
        out.append([round(s, 4), round(e, 4), str(label)])
    return [tuple(x) for x in out]


def voiced_span(samples: np.ndarray, sr: int, floor_db: float = -35.0) -> tuple[float, float]:
    """First and last 20 ms frame whose RMS is within ``floor_db`` of the loudest frame."""
    hop = max(1, int(0.02 * sr))
    n = len(samples) // hop
    if n == 0:
        return 0.0, len(samples) / sr
    rms = np.sqrt(np.mean(samples[: n * hop].reshape(n, hop) ** 2, axis=1) + 1e-12)
    loud = np.flatnonzero(20 * np.log10(rms / rms.max()) > floor_db)
    return float(loud[0] * hop / sr), float(min((loud[-1] + 1) * hop / sr, len(samples) / sr))


def even_split(words: list[str], start: float, end: float) -> list[tuple[float, float, str]]:
    """Spans of ``words`` over [start, end] in proportion to their lengths (plus one)."""
    if not words:
        return []
    weights = np.array([len(w) + 1 for w in words], dtype=float)
    edges = start + (end - start) * np.concatenate([[0], np.cumsum(weights)]) / weights.sum()
    return [(float(edges[i]), float(edges[i + 1]), w) for i, w in enumerate(words)]


class Aligners:
    """Chooses how the reference words get their times (see the module doc).

    Parameters
    ----------
    mode : ``auto`` (cached, then whisper-tiny.en for English, then the even split),
        ``whisper`` (like auto but a failing aligner is an error), ``even`` (always the
        split), or an object with ``align(audio, text) -> [WordSpan]`` (tests, callers holding
        an aligner).
    """

    def __init__(self, mode="auto"):
        self.mode = mode
        self._whisper = None
        self._whisper_error: str | None = None

    def _aligner(self):
        if not isinstance(self.mode, str):
            return self.mode
        if self._whisper is None and self._whisper_error is None:
            try:
                from ..explain.alignment import WhisperAligner

                a = WhisperAligner()
                _ = a.key  # loads whisper-tiny.en now, so a missing model shows here
                self._whisper = a
            except Exception as exc:  # noqa: BLE001 - any load failure means: no aligner
                if self.mode == "whisper":
                    raise
                self._whisper_error = f"{type(exc).__name__}: {exc}"
        return self._whisper

    def spans(self, d: RunData, row: dict, words: list[str], samples, duration: float):
        """(list of (start, end, word), source, note) for one item's reference words."""
        from ..constants import SAMPLE_RATE
        from ..explain.alignment import MAX_SECONDS
        from ..metrics.normalize import is_english

        if not words:
            return [], "", ""
        text = " ".join(words)
        if self.mode != "even":
            cached = _cached_words(d, row, text)
            if cached:
                return cached, SOURCE_CACHED, ""
        note = ""
        english = is_english(d.language)
        usable = self.mode != "even" and samples is not None and duration <= MAX_SECONDS
        if usable and (english or not isinstance(self.mode, str)):
            aligner = self._aligner()
            if aligner is not None:
                spans = aligner.align(samples, text)
                if spans:
                    src = (
                        SOURCE_WHISPER
                        if aligner is self._whisper
                        else f"forced alignment with {getattr(aligner, 'key', type(aligner).__name__)}"
                    )
                    return [(w.start, w.end, w.word) for w in spans], src, ""
            note = f"aligner unavailable ({self._whisper_error})" if self._whisper_error else ""
        elif self.mode != "even" and not english:
            note = f"no forced aligner for language {d.language!r} (whisper-tiny.en is English)"
        elif self.mode != "even" and duration > MAX_SECONDS:
            note = f"clip longer than {MAX_SECONDS:.0f} s"
        if samples is not None:
            s, e = voiced_span(samples, SAMPLE_RATE)
        else:
            s, e = 0.0, duration
        return even_split(words, s, e), SOURCE_EVEN, note


def _cached_words(d: RunData, row: dict, text: str):
    """Reference word spans the explain stage stored with this clip's saliency, if any."""
    from ..explain import store

    ah = row.get("audio_hash")
    if not isinstance(ah, str):
        return None
    want = store.target_hash(text)
    for s in store.for_audio(d.project, ah):
        if s.key.target_hash == want and s.meta.get("words"):
            return [(w["start"], w["end"], w["word"]) for w in s.meta["words"]]
    return None


def _saliency_spans(d: RunData, row: dict, duration: float):
    from ..jobs.explain_stage import saliency_for_item

    ah = row.get("audio_hash")
    if not isinstance(ah, str) or not d.model_key:
        return []
    sal = saliency_for_item(d.project, ah, d.model_key, str(row.get("reference") or ""))
    if sal is None or not len(sal.curve):
        return []
    curve = np.asarray(sal.curve, dtype=float)
    peak = float(np.nanmax(curve))
    if not math.isfinite(peak) or peak <= 0:
        return []
    # the top fifth of frames, and above the mean (a flat curve has no span)
    on = (
        (curve >= float(np.nanquantile(curve, SALIENCY_QUANTILE)))
        & (curve > float(np.nanmean(curve)))
        & (curve > 0)
    )
    spans, i = [], 0
    while i < len(on):
        if on[i]:
            j = i
            while j < len(on) and on[j]:
                j += 1
            rel = float(np.mean(curve[i:j]) / peak)
            spans.append((i * sal.frame_s, min(j * sal.frame_s, duration), f"{rel:.2f}"))
            i = j
        else:
            i += 1
    return spans


def _error_labels(ref_spans, hyp_text: str, norm) -> list[tuple[float, float, str]]:
    from ..metrics.normalize import tone_preserving
    from .align import Op, _mark_detail, base_letters

    ref_words = [w for _, _, w in ref_spans]
    hyp_words = hyp_text.split()
    rtok, rown = owned_tokens(ref_words, norm)
    htok, hown = owned_tokens(hyp_words, norm)
    labels: dict[int, list[str]] = {}
    last_ref = 0
    for op in align_tokens(rtok, htok):
        if op.ref_index is not None:
            last_ref = rown[op.ref_index]
        if op.op == "=":
            # a normaliser that strips marks (Whisper's English one) hides tone-mark errors
            r = tone_preserving(ref_words[rown[op.ref_index]])
            h = tone_preserving(hyp_words[hown[op.hyp_index]])
            if r != h and base_letters(r) == base_letters(h):
                op = Op("T", r, h, op.ref_index, op.hyp_index, _mark_detail(r, h))
            else:
                continue
        lab = op.label()
        if lab not in labels.get(last_ref, []):
            labels.setdefault(last_ref, []).append(lab)
    return [(ref_spans[i][0], ref_spans[i][1], "; ".join(lab)) for i, lab in sorted(labels.items())]


def item_tiers(d: RunData, row: dict, aligners: Aligners) -> ItemTiers:
    """The four tiers of one per-item row of the run (see the module doc)."""
    from ..core import audio as audio_io
    from ..core.errors import AudioError

    item = str(row.get("id"))
    path = d.audio_path(row)
    samples, note = None, ""
    duration = num(row.get("duration"))
    if path is not None:
        try:
            samples = audio_io.load(path).samples
            duration = len(samples) / audio_io.SAMPLE_RATE
        except AudioError as exc:
            note = f"audio unreadable ({exc.reason}); times from the stored duration"
    if math.isnan(duration) or duration <= 0:
        duration = 1.0
        note = (note + "; " if note else "") + "no duration known; a 1 s time axis is used"
    # times are written with 4 decimals: round the time axis down so none passes the end
    duration = math.floor(duration * 1e4) / 1e4
    words = str(row.get("reference") or "").split()
    spans, source, anote = aligners.spans(d, row, words, samples, duration)
    ref = clean(spans, duration)
    hyp_text = str(row.get("hypothesis") or "")
    model_words = d.words(row.get("db_id"))
    timed = [w for w in model_words if w.get("start") is not None and w.get("end") is not None]
    if timed and len(timed) == len(model_words):
        hyp = clean(
            [(w["start"], w["end"], str(w.get("text", "")).strip()) for w in timed], duration
        )
        hsource = "model word times"
    else:
        hyp = [(0.0, duration, hyp_text)] if hyp_text.strip() else []
        hsource = "one interval (the model gave no word times)"
    norm = normaliser(d.normaliser_name, d.language)
    if ref:
        errors = clean(_error_labels(ref, hyp_text, norm), duration)
    else:
        ins = [o.label() for o in align_tokens([], norm(hyp_text).split())]
        errors = [(0.0, duration, "; ".join(ins))] if ins else []
    tiers = {
        "reference": ref,
        "hypothesis": hyp,
        "errors": errors,
        "saliency": clean(_saliency_spans(d, row, duration), duration),
    }
    db_id = row.get("db_id")
    return ItemTiers(
        item,
        None if db_id is None or num(db_id) != num(db_id) else int(db_id),
        str(d.audit.dataset or ""),
        path,
        duration,
        tiers,
        source,
        hsource,
        "; ".join(x for x in (note, anote) if x),
    )


def run_tiers(d: RunData, aligner="auto", items=None):
    """:class:`ItemTiers` of each analysed item of the run (``items``: only these ids)."""
    aligners = aligner if isinstance(aligner, Aligners) else Aligners(aligner)
    rows = d.items.to_dict(orient="records")
    if items is not None:
        wanted = {str(i) for i in items}
        rows = [r for r in rows if str(r.get("id")) in wanted]
    for r in rows:
        yield item_tiers(d, r, aligners)


def file_stem(item: str) -> str:
    """A file name for an item id that reads back to the id (percent-encoding)."""
    from urllib.parse import quote

    return quote(str(item), safe="-_.,+=@ ") or "_"


def item_from_stem(stem: str) -> str:
    from urllib.parse import unquote

    return unquote(stem)
