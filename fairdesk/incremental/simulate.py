"""Streaming simulation: chunks of audio arrive, a policy decodes, every update is logged.

docs/METHODS.md, "Streaming policies". Audio of one item arrives in chunks of exactly ``chunk_s`` seconds (default
1.0); a last partial chunk is one more update, and the final *flush* (end of stream) is one more
update. Each :class:`Update` logs the full displayed word list, the time its audio had arrived,
the audio span decoded and the decode's wall time.

The flush decodes nothing: every chunk update decodes up to the audio it has, so at the end of
the stream the last decode already covers the whole clip. The flush finalises (the sliding
window freezes its window's words, local agreement commits its unconfirmed words) and counts
as an update with no change to the displayed list.

Computation clock
-----------------
Audio arrives in real time from t = 0: the audio of update ``k`` has arrived at
``min(k * chunk_s, duration)``; the flush arrives at ``duration``. A decode starts at the later
of its update's arrival and the previous decode's end, and ends ``decode_s`` later; the update's
word list is shown at that end. An update that decodes nothing (the flush) takes no time.
Decodes are never skipped when the recogniser falls behind real time: they queue.

Policies
--------
``concatenation``
    Decode ``audio[0:t]`` at every update.
``sliding`` (Whetten et al. 2023, snapped)
    Decode the window ``audio[w0:t]``. The shown list is the frozen words followed by the
    window's words, joined by dropping a leading n-gram of the window's words (n = 1..5, the
    smallest first) that repeats the tail of the frozen words (each dropping is a *trim*).
    When the window's joined words give >= ``min_words`` (5) normalised tokens or the window
    reaches ``max_window_s`` (30 s), it is *cut*: the raw cut is ``w0 + cut_fraction (0.35) x
    window``; it is snapped back to the end of the last window word that ends at or before the
    raw cut; the words up to that one are frozen and the next window starts at the cut. When no
    word ends before the raw cut, the window keeps growing (no cut), unless it is full
    (>= ``max_window_s``), when the raw cut is used (``forced``). The flush freezes everything.
``sliding-literal``
    The same with the raw (unsnapped) cut, Whetten et al.'s cut at exactly 35 %: the window's words
    are frozen in order while their midpoint ``(start + end) / 2`` lies before the cut, so a
    word *straddling* the cut (``start < cut < end``) is frozen when its midpoint is before
    the cut and left to the next window otherwise; the next window starts at the cut, mid-word,
    and a re-heard frozen word is dropped by the n-gram rule. Every cut records how many words
    straddled it and whether the straddler was frozen.
``local-agreement``, ``local-agreement-norm``
    whisper_streaming's LocalAgreement-2, see :mod:`fairdesk.incremental.agreement`.

Every policy needs the backend's word timestamps except concatenation (words without times
count as starting at the window start and ending at its end). ``native`` (an engine's own
partial hypotheses, :mod:`fairdesk.incremental.native`) writes the same log.

Each decode is one *prediction* (Whetten et al.'s LAT): ``n_predicted`` is the number of words the
decode returned for its span, before any joining by the policy.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from fairdesk.constants import SAMPLE_RATE
from fairdesk.incremental.edits import tokens
from fairdesk.incremental.streams import (  # noqa: F401 - re-exported
    POLICIES,
    Cut,
    Decoder,
    Simulation,
    Update,
    _drop_repeated_ngram,
    _Policy,
    _raw,
    update_ends,
)
from fairdesk.models.base import Word

__all__ = [
    "POLICIES",
    "Cut",
    "Simulation",
    "Update",
    "make_policy",
    "simulate",
]


class Concatenation(_Policy):
    name = "concatenation"
    needs_times = False

    def __init__(self, decode, sim):
        super().__init__(decode, sim)
        self.words: list[Word] = []

    def step(self, index, t, final):
        span = (0, t)
        wall = 0.0
        decoded = None
        if not final and t > 0 and span != self.last_span:
            self.words, wall = self.decode(*span)
            self.last_span = decoded = span
        return list(self.words), (len(self.words) if final else None), decoded, wall


class SlidingWindow(_Policy):
    def __init__(
        self,
        decode,
        sim,
        *,
        snap: bool = True,
        min_words: int = 5,
        max_window_s: float = 30.0,
        cut_fraction: float = 0.35,
        max_ngram: int = 5,
    ):
        super().__init__(decode, sim)
        if not 0.0 < cut_fraction < 1.0:
            raise ValueError(f"cut_fraction must be in (0, 1), not {cut_fraction}")
        self.snap = snap
        self.name = "sliding" if snap else "sliding-literal"
        self.min_words = int(min_words)
        self.max_window = int(round(max_window_s * SAMPLE_RATE))
        self.cut_fraction = float(cut_fraction)
        self.max_ngram = int(max_ngram)
        self.w0 = 0
        self.frozen: list[Word] = []
        self.window_words: list[Word] = []

    def step(self, index, t, final):
        span = (self.w0, t)
        wall = 0.0
        decoded = None
        if not final and span != self.last_span:
            if t > self.w0:
                raw, wall = self.decode(*span)
                decoded = span
                new, trimmed = _drop_repeated_ngram(self.frozen, raw, self.max_ngram)
                self.sim.n_trims += int(trimmed)
            else:
                new = []
            self.window_words = new
            self.last_span = span
        shown = self.frozen + self.window_words
        if final:
            self.frozen = shown
            self.window_words = []
            return shown, len(shown), decoded, wall
        window = t - self.w0
        if decoded is not None and (
            len(tokens(self.window_words)) >= self.min_words or window >= self.max_window
        ):
            self._cut(index, window)
        return shown, len(self.frozen), decoded, wall

    def _cut(self, index: int, window: int) -> None:
        raw = self.w0 + int(round(self.cut_fraction * window))
        raw_s = raw / SAMPLE_RATE
        words = self.window_words
        forced = False
        if self.snap:
            ends = [(i, w.end) for i, w in enumerate(words) if w.end is not None and w.end <= raw_s]
            if ends:
                k = ends[-1][0] + 1
                cut = int(round(ends[-1][1] * SAMPLE_RATE))
            elif window >= self.max_window:
                k, cut, forced = 0, raw, True
            else:
                return
        else:
            # docs/METHODS.md, "Streaming policies": a word straddling the literal cut is frozen when its midpoint lies
            # before the cut, so that no word is lost at the cut
            cut = raw
            k = 0
            while k < len(words) and _midpoint(words[k]) < raw_s:
                k += 1
        cut = max(cut, self.w0 + 1)  # always move forward
        cut_s = cut / SAMPLE_RATE
        straddling = [i for i, w in enumerate(words) if _times(w)[0] < cut_s < _times(w)[1]]
        self.frozen = self.frozen + words[:k]
        self.window_words = words[k:]
        self.sim.cuts.append(
            Cut(
                index,
                raw_s,
                cut_s,
                bool(straddling),
                k,
                forced,
                len(straddling),
                sum(1 for i in straddling if i < k),
            )
        )
        self.w0 = cut


def _times(w: Word) -> tuple[float, float]:
    """A decoded word's start and end (the decoder gives every word both, :class:`Decoder`)."""
    if w.start is None or w.end is None:
        raise ValueError(f"word {w.text!r} has no start or end time")
    return float(w.start), float(w.end)


def _midpoint(w: Word) -> float:
    start, end = _times(w)
    return 0.5 * (start + end)


def make_policy(name: str, decode: Decoder, sim: Simulation, **options) -> _Policy:
    """A policy by name (see :data:`POLICIES`); ``options`` go to its constructor."""
    if name == "concatenation":
        return Concatenation(decode, sim)
    if name == "sliding":
        return SlidingWindow(decode, sim, snap=True, **options)
    if name == "sliding-literal":
        return SlidingWindow(decode, sim, snap=False, **options)
    if name in ("local-agreement", "local-agreement-norm"):
        from fairdesk.incremental.agreement import LocalAgreement

        return LocalAgreement(decode, sim, normalised=name.endswith("-norm"), **options)
    raise ValueError(f"unknown policy {name!r}; use one of {', '.join(POLICIES)}")


def simulate(
    backend,
    audio: np.ndarray,
    policy: str = "concatenation",
    chunk_s: float = 1.0,
    *,
    timer: Callable[[], float] = time.perf_counter,
    **options,
) -> Simulation:
    """Stream one clip through a policy.

    Parameters
    ----------
    backend : a :class:`~fairdesk.models.base.Backend` with ``transcribe`` (warm it up first:
        the first decode of a fresh model pays for loading, which is not decode time).
    audio : float32 mono samples at 16 kHz.
    policy : one of :data:`POLICIES`, or ``"native"`` for an engine's own partial results
        (:func:`fairdesk.incremental.native.simulate_native`).
    chunk_s : seconds per chunk.
    timer : clock used to time each decode (``time.perf_counter``; tests pass a fake clock).
    **options : policy options (``min_words``, ``max_window_s``, ``cut_fraction``,
        ``max_ngram`` for the sliding window; ``buffer_trim_s``, ``prompt_chars``,
        ``max_ngram`` for local agreement).

    Returns
    -------
    Simulation
    """
    if policy == "native":
        from fairdesk.incremental.native import simulate_native

        return simulate_native(backend, audio, chunk_s, timer=timer)
    audio = np.ascontiguousarray(np.asarray(audio, dtype=np.float32))
    if audio.ndim != 1:
        raise ValueError(f"audio must be mono 1-D samples, got shape {audio.shape}")
    n = int(audio.size)
    sim = Simulation(policy, n / SAMPLE_RATE, float(chunk_s))
    pol = make_policy(policy, Decoder(backend, audio, timer), sim, **options)
    clock = 0.0
    ends = update_ends(n, chunk_s)
    for index, (t, final) in enumerate([(t, False) for t in ends] + [(n, True)]):
        arrival = t / SAMPLE_RATE
        words, n_committed, span, wall = pol.step(index, t, final)
        start = max(arrival, clock)
        clock = start + wall
        sim.updates.append(
            Update(
                index=index,
                arrival_s=arrival,
                is_flush=final,
                span=None if span is None else (span[0] / SAMPLE_RATE, span[1] / SAMPLE_RATE),
                decode_s=wall,
                start_s=start,
                end_s=clock,
                words=tuple(words),
                n_committed=n_committed,
                n_predicted=None if span is None else pol.decode.n_words,
            )
        )
    return sim


def with_words(update: Update, words) -> Update:
    """A copy of ``update`` with another word list (for tests and what-if analyses)."""
    return replace(update, words=tuple(words))
