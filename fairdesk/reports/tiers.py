"""The time-aligned tiers of one item, shared by the Praat and ELAN exports.

Four tiers (names in :data:`TIERS`):

``reference``
    The reference words as written (tone marks kept), each at its span. Spans come, in order
    of preference, from the alignment the explain stage cached with the item's saliency
    (``saliency.meta["words"]``), from forced alignment with whisper-tiny.en
    (:class:`fairdesk.explain.alignment.WhisperAligner`, English only, clips up to 30 s, fed
    only the speech with :data:`ALIGN_PAD` around it), or, where neither is available (other
    languages, longer clips, no aligner installed), from an even split of the speech by word
    length. Each item records which one it got (``reference_source``). Whatever the source,
    the words are held inside the speech (:func:`speech_bounds`: the audit's Silero VAD
    regions, or the same VAD run now; :func:`within_speech`), since Whisper's alignment
    begins the first word at the start of the audio it reads: no word starts in the leading
    silence, which stays an empty interval, and none ends in the trailing one. A forced
    alignment is stored in the project (:mod:`fairdesk.core.alignments`, keyed by the clip,
    the text, the aligner and the stretch it read), so the next export, TextGrid or EAF,
    reads it instead of aligning again; a corrected transcript is aligned anew.
``hypothesis``
    The model's words at the model's own times (``predictions.words``); when the model gave
    no times (imported predictions, most CTC models), one interval spanning the utterance
    with the whole hypothesis.
``errors``
    The run's own alignment of the item (:func:`fairdesk.review.word_alignment`: the run's
    normaliser over the whole texts, then jiwer; the S/D/I that ``fairdesk show`` and the
    item view give), each operation on the span of the written reference words its
    normalised token comes from (``zero nine three`` → ``093`` spans three words):
    ``S ref→hyp``, ``D ref``, ``T ref→hyp (dropped 1)`` (a substitution that only changes
    combining marks: tone-mark error, scored as a substitution); insertions (``I hyp``) go
    on the span of the reference word before them (the first word for a leading insertion).
    A tone-mark difference the normaliser removed is shown as ``T … (…; not scored)``: it
    is no error of the run's WER.
``annotator:NAME`` (only when asked: ``export --annotator-tiers``)
    One tier per annotator with a version of any of the run's items
    (docs/METHODS.md, "References from several annotators"): that annotator's latest version,
    its words timed as the reference's are (cached, forced or even split), empty for an
    item they did not annotate. Every file has the same annotator tiers, so ELAN and Praat
    compare the annotators tier by tier, and ``fairdesk annotate --tier annotator:NAME``
    reads one back.
``saliency``
    Only for items explained (a saliency curve stored for the run's model): the stretches
    where the curve is at or above its 80th percentile and above its mean, labelled with
    their mean saliency relative to the curve's peak.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .data import RunData, num
from .tier_errors import error_labels

TIERS = ("reference", "hypothesis", "errors", "saliency")
#: With ``--annotator-tiers``: one more tier per annotator, ``annotator:NAME``, their version
#: of the item's reference (empty where they have none), words timed as the reference's are.
ANNOTATOR_TIER = "annotator:"
#: Shortest interval written (seconds); TextGrid and EAF refuse zero-length intervals.
MIN_INTERVAL = 0.01
#: Audio kept before and after the speech when the forced aligner reads it (seconds).
ALIGN_PAD = 0.15
#: A speech stretch shorter than this is aligned within the whole clip (seconds).
MIN_ALIGN_SECONDS = 0.3
#: Saliency spans: frames at or above this quantile of the curve.
SALIENCY_QUANTILE = 0.8

SOURCE_CACHED = "forced alignment cached by the explain stage"
#: The built-in aligner's name in the project's alignment cache.
WHISPER_NAME = "whisper-tiny.en"
SOURCE_WHISPER = "forced alignment with whisper-tiny.en"
SOURCE_EVEN = "even split of the speech by word length (no forced alignment)"


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
    #: Where the item starts in its audio file (s): a segment of a session; the exports
    #: write session times (each tier's times + offset), so a round trip lands on it.
    offset: float = 0.0
    #: The item is a segment (a span of its audio file), not the whole file.
    segment: bool = False
    #: The item's file in the export, without a suffix (:func:`export_items` sets it so that
    #: every name of the export is distinct: :func:`fairdesk.reports.item_files.item_files`).
    stem: Path | None = None

    def file(self, suffix: str) -> Path:
        """The item's file in the export with ``suffix`` (``audio/1203/012030036.TextGrid``
        for the item ``audio/1203/012030036.opus``)."""
        from .item_files import item_file

        if self.stem is None:
            return item_file(self.item, suffix)
        return self.stem.with_name(self.stem.name + suffix)

    def names(self) -> list[str]:
        """The tiers in the order written: :data:`TIERS`, then the annotators' tiers."""
        return list(TIERS) + [n for n in self.tiers if n not in TIERS]


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


def voiced_span(
    samples: np.ndarray,
    sr: int,
    floor_db: float = -35.0,
    above_noise_db: float = 10.0,
    min_run_s: float = 0.06,
) -> tuple[float, float]:
    """Start of the first and end of the last sounding stretch of a clip (seconds), by the
    energy of 20 ms frames: a frame sounds when its RMS is within ``floor_db`` of the loudest
    frame and ``above_noise_db`` above the noise floor (the 10th percentile of the frames'
    levels: a recording whose background lies 35 dB below its peak would otherwise sound
    throughout), and a stretch counts when it lasts ``min_run_s`` (a click or a breath alone
    is no speech, as Praat's silence detection drops sounding intervals shorter than its
    minimum). The whole clip when nothing sounds."""
    hop = max(1, int(0.02 * sr))
    n = len(samples) // hop
    whole = (0.0, len(samples) / sr)
    if n == 0:
        return whole
    frames = np.asarray(samples[: n * hop], dtype=np.float64).reshape(n, hop)
    db = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-12)
    loud = (db > db.max() + floor_db) & (db > np.percentile(db, 10) + above_noise_db)
    need = max(1, int(round(min_run_s * sr / hop)))
    runs, k = [], 0
    while k < n:
        if loud[k]:
            j = k
            while j < n and loud[j]:
                j += 1
            if j - k >= need:
                runs.append((k, j))
            k = j
        else:
            k += 1
    if not runs:
        return whole
    return float(runs[0][0] * hop / sr), float(min(runs[-1][1] * hop / sr, whole[1]))


def within_speech(spans, start: float, end: float) -> list[tuple[float, float, str]]:
    """Word spans held inside the speech ``[start, end]`` (:func:`speech_bounds`), so the
    silence before and after it is left empty. A forced alignment does not say where speech
    starts: Whisper's (a dynamic time warping path that begins at the first frame it is
    given) starts the first word at the start of the audio it reads, the silence kept before
    the speech included, and an alignment of the whole clip (the explain stage's) at 0 s."""
    out = []
    for s, e, w in spans:
        a = min(max(float(s), start), end)
        out.append((a, min(max(float(e), a), end), w))
    return out


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
        #: how many items were forced-aligned now, and how many read from the project's store
        self.aligned = 0
        self.reused = 0
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

    @property
    def name(self) -> str:
        """The aligner's name in the alignment cache (:mod:`fairdesk.core.alignments`):
        ``whisper-tiny.en`` for the built-in one (known before it is loaded), else the
        given object's ``key``."""
        if isinstance(self.mode, str):
            return WHISPER_NAME
        return str(getattr(self.mode, "key", type(self.mode).__name__))

    def _source(self, aligner) -> str:
        if isinstance(self.mode, str):
            return SOURCE_WHISPER
        return f"forced alignment with {getattr(aligner, 'key', type(aligner).__name__)}"

    def spans(self, d: RunData, row: dict, words: list[str], samples, duration: float):
        """(list of (start, end, word), source, note) for one item's reference words, held
        inside the speech (:func:`speech_bounds`, :func:`within_speech`): no word starts in
        the silence before it or ends in the silence after it.

        A forced alignment stored in the project for this clip, text, aligner and cut is
        read back, not made again (:mod:`fairdesk.core.alignments`); a new one is stored
        (as the aligner gave it: the hold inside the speech is applied on reading).
        """
        from ..explain.alignment import MAX_SECONDS
        from ..metrics.normalize import is_english

        if not words:
            return [], "", ""
        text = " ".join(words)
        bounds = speech_bounds(row, samples, duration)
        if self.mode != "even":
            cached = _cached_words(d, row, text)
            if cached:
                return within_speech(cached, *bounds), SOURCE_CACHED, ""
        note = ""
        english = is_english(d.language)
        usable = self.mode != "even" and samples is not None and duration <= MAX_SECONDS
        if usable and (english or not isinstance(self.mode, str)):
            a, b = cut_around(*bounds, duration)
            stored = _stored_alignment(d, row, text, self.name, a, b)
            if stored is not None:
                self.reused += 1
            if stored:
                return within_speech(stored, *bounds), self._source(self.mode), ""
            if stored is None:
                aligner = self._aligner()
                if aligner is not None:
                    spans = _align_speech(aligner, samples, text, a, b, duration)
                    self.aligned += 1
                    _store_alignment(d, row, text, self.name, a, b, spans, aligner)
                    if spans:
                        return within_speech(spans, *bounds), self._source(aligner), ""
            note = f"aligner unavailable ({self._whisper_error})" if self._whisper_error else ""
        elif self.mode != "even" and not english:
            note = f"no forced aligner for language {d.language!r} (whisper-tiny.en is English)"
        elif self.mode != "even" and duration > MAX_SECONDS:
            note = f"clip longer than {MAX_SECONDS:.0f} s"
        return even_split(words, *bounds), SOURCE_EVEN, note


def _stored_alignment(d: RunData, row: dict, text: str, name: str, a: float, b: float):
    """The spans stored for this clip, text, aligner and cut (None: none stored, or the
    item has no audio hash to key them by)."""
    from ..core.alignments import cut_key, lookup_alignment

    ah = row.get("audio_hash")
    if not isinstance(ah, str) or not ah:
        return None
    return lookup_alignment(d.project, ah, text, name, cut_key(a, b))


def _store_alignment(d: RunData, row: dict, text: str, name: str, a, b, spans, aligner) -> None:
    from ..core.alignments import cut_key, save_alignment

    ah = row.get("audio_hash")
    if not isinstance(ah, str) or not ah:
        return
    key = getattr(aligner, "key", "")
    save_alignment(
        d.project, ah, text, name, cut_key(a, b), spans, aligner_key=str(key), run_id=d.run_id
    )


def speech_bounds(row: dict, samples, duration: float) -> tuple[float, float]:
    """Where the speech of a clip starts and ends (seconds): the first and last of the
    Silero VAD regions the audit stored with the item (``speech_regions``), else of the
    regions the same detector with the same settings finds now
    (:func:`fairdesk.core.acoustics.speech_regions`: an audit without the acoustic stage
    stored none), else :func:`voiced_span` of the samples (no speech found, or no VAD
    installed), else the whole clip."""
    from ..constants import SAMPLE_RATE

    raw = row.get("speech_regions")
    try:
        regions = json.loads(raw) if isinstance(raw, str) else None
        regions = [(float(a), float(b)) for a, b in regions or ()]
    except (TypeError, ValueError):
        regions = None
    if not regions and samples is not None and len(samples):
        regions = _vad_regions(samples)
    if regions:
        s, e = min(a for a, _ in regions), max(b for _, b in regions)
        if 0 <= s < e:
            return s, min(e, duration)
    if samples is not None and len(samples):
        return voiced_span(samples, SAMPLE_RATE)
    return 0.0, duration


def _vad_regions(samples) -> list[tuple[float, float]]:
    """Silero VAD's speech regions of the samples (the audit's detector and settings); none
    where it is not installed or fails."""
    try:
        from ..core.acoustics import speech_regions

        return [(float(a), float(b)) for a, b in speech_regions(samples)]
    except Exception:  # noqa: BLE001 - no VAD (faster-whisper, onnxruntime): the energy
        return []


def align_cut(row: dict, samples, duration: float) -> tuple[float, float]:
    """The stretch of the clip the forced aligner reads (seconds): :func:`speech_bounds`
    with :data:`ALIGN_PAD` on each side, or the whole clip when that leaves less than
    :data:`MIN_ALIGN_SECONDS`."""
    return cut_around(*speech_bounds(row, samples, duration), duration)


def cut_around(s: float, e: float, duration: float) -> tuple[float, float]:
    """The speech ``[s, e]`` with :data:`ALIGN_PAD` on each side (the aligner hears the
    speech's first and last sounds whole), or the whole clip when that leaves less than
    :data:`MIN_ALIGN_SECONDS`."""
    a, b = max(0.0, s - ALIGN_PAD), min(duration, e + ALIGN_PAD)
    if b - a < MIN_ALIGN_SECONDS:  # too little to cut to: the whole clip
        a, b = 0.0, duration
    return a, b


def _align_speech(aligner, samples, text: str, a: float, b: float, duration: float):
    """Forced alignment of the speech only: the clip cut to [a, b] (:func:`align_cut`), the
    spans moved back to the clip's time (a word is never placed in the silence before the
    speech, where Whisper's alignment puts it when it reads the whole clip)."""
    from ..constants import SAMPLE_RATE

    cut = samples[int(round(a * SAMPLE_RATE)) : int(round(b * SAMPLE_RATE))]
    spans = aligner.align(cut, text) if len(cut) else []
    return [(min(a + w.start, duration), min(a + w.end, duration), w.word) for w in spans or ()]


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
    from ..jobs.explain_stage import is_coarse_key, saliency_for_item

    ah = row.get("audio_hash")
    if not isinstance(ah, str) or not d.model_key:
        return []
    sal = saliency_for_item(d.project, ah, d.model_key, str(row.get("reference") or ""))
    # the item view's coarse first look is not exported: only the exact curve is a tier
    if sal is None or not len(sal.curve) or is_coarse_key(sal.key.method):
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


def item_tiers(d: RunData, row: dict, aligners: Aligners, versions=None) -> ItemTiers:
    """The four tiers of one per-item row of the run (see the module doc); ``versions``
    (``{annotator: text or None}``, every annotator of the run in order) adds one
    ``annotator:NAME`` tier each."""
    from ..core import audio as audio_io
    from ..core import spans as span_io
    from ..core.errors import AudioError

    item = str(row.get("id"))
    span = span_io.span_of(row)
    path = d.audio_path(row)
    samples, note = None, ""
    duration = num(row.get("duration"))
    if path is not None:
        try:
            start, end = span if span is not None else (None, None)
            samples = span_io.load(path, start_s=start, end_s=end).samples
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
    language, norm_name = d.scoring
    if ref:
        errors = clean(error_labels(ref, row, language, norm_name), duration)
    else:  # nothing to say: every hypothesis word is an insertion
        from ..review import word_alignment

        al = word_alignment(row.get("reference"), hyp_text, language, norm_name)
        ins = [
            f"I {al.hyp[o.hyp_index]}"
            for o in al.ops
            if o.op == "I" and o.hyp_index is not None  # an insertion has its index
        ]
        errors = [(0.0, duration, "; ".join(ins))] if ins else []
    tiers = {
        "reference": ref,
        "hypothesis": hyp,
        "errors": errors,
        "saliency": clean(_saliency_spans(d, row, duration), duration),
    }
    for name, text in (versions or {}).items():
        vwords = str(text or "").split()
        vspans = aligners.spans(d, row, vwords, samples, duration)[0] if vwords else []
        tiers[f"{ANNOTATOR_TIER}{name}"] = clean(vspans, duration)
    db_id = row.get("db_id")
    return ItemTiers(
        item,
        None if db_id is None or num(db_id) != num(db_id) else int(db_id),
        _item_dataset(d, row),
        path,
        duration,
        tiers,
        source,
        hsource,
        "; ".join(x for x in (note, anote) if x),
        span[0] if span is not None else 0.0,
        span is not None,
    )


def annotator_versions(d: RunData, rows: list[dict]) -> dict[int, dict[str, str | None]]:
    """Per item db id, every annotator's version (``{annotator: text or None}``, the
    annotators of any of ``rows``' items in name order).

    Raises
    ------
    FairdeskError
        No item has an annotator's version: there is no tier to write.
    """
    from ..core.errors import FairdeskError

    ids = [int(num(r.get("db_id"))) for r in rows if num(r.get("db_id")) == num(r.get("db_id"))]
    found = d.project.transcript_versions(ids) if ids else {}
    names = sorted({v.annotator for iv in found.values() for v in iv.versions})
    if not names:
        raise FairdeskError(
            f"--annotator-tiers: no item of run {d.run_id} has an annotator's version; "
            "annotate in the Items view or import TextGrids with `fairdesk annotate "
            "--annotator NAME`, or export without it"
        )
    out = {}
    for db in ids:
        iv = found.get(db)
        out[db] = {
            n: (v.text if (v := iv.version(n) if iv is not None else None) is not None else None)
            for n in names
        }
    return out


def run_tiers(
    d: RunData,
    aligner="auto",
    items=None,
    *,
    progress=None,
    cancelled=None,
    annotator_tiers: bool = False,
) -> list:
    """:class:`ItemTiers` of each analysed item of the run (``items``: only these ids).

    Parameters
    ----------
    annotator_tiers : also one ``annotator:NAME`` tier per annotator (their versions;
        :func:`annotator_versions` raises when there is none).
    progress : ``progress(fraction, message)`` after each item ("aligning 12/460, ETA …").
    cancelled : ``cancelled() -> bool``, checked before each item; when it turns true,
        :class:`fairdesk.core.progress.Cancelled` is raised (the alignments made so far
        are stored: the next export starts from them).
    """
    import time

    from ..core.progress import Cancelled, Progress

    aligners = aligner if isinstance(aligner, Aligners) else Aligners(aligner)
    rows = d.items.to_dict(orient="records")
    if items is not None:
        wanted = {str(i) for i in items}
        rows = [r for r in rows if str(r.get("id")) in wanted]
    versions = annotator_versions(d, rows) if annotator_tiers else {}
    bar = Progress(progress, cancelled)
    started = time.monotonic()
    out = []
    for k, r in enumerate(rows):
        if bar.cancelled():
            raise Cancelled(f"the export was cancelled after {k} of {len(rows)} items")
        db = num(r.get("db_id"))
        mine = versions.get(int(db), {}) if db == db else {}
        if annotator_tiers and not mine:  # the dataset no longer has it: every tier, empty
            mine = dict.fromkeys(next(iter(versions.values())))
        out.append(item_tiers(d, r, aligners, mine or None))
        bar.items(k + 1, len(rows), started, "aligning item")
    return out


def _item_dataset(d, row) -> str:
    """The dataset an item row belongs to: its own in a run of several datasets
    (docs/METHODS.md, "Several datasets"), else the run's."""
    own = row.get("dataset") if hasattr(row, "get") else None
    return str(own) if isinstance(own, str) and own else str(d.audit.dataset or "")
