"""Long recordings: split on silence before streaming (Whetten et al. 2023, section 3.1), docs/METHODS.md, "Long recordings".

Whetten et al. split long dialogues into utterances at silences, then stream each one. Here a
recording is split with Silero VAD (the copy faster-whisper ships, run with onnxruntime):

speech regions
    ``faster_whisper.vad.get_speech_timestamps`` with :data:`SPLIT_SETTINGS` (a silence of at
    least 0.5 s ends a region; regions shorter than 250 ms are dropped; 100 ms padding).
segments
    The recording is cut in the middle of every silence between two consecutive speech
    regions, so the segments tile the whole file (no sample is dropped, a word the VAD
    missed is still decoded). A file with no detected speech, or one region, is one segment.
streaming
    Each segment is streamed on its own (its own chunks from its start, its own flush), the
    segments one after another on one computation clock: segment ``j``'s audio arrives from
    its start time in the file. The item's stream is the concatenation: while segment ``j``
    streams, the earlier segments' final words are shown before its words, so adds and
    revokes of the item are those of its segments and ΣA − ΣR is still the final word count.
reporting
    Per segment (stability, latency; no WER: a segment has no reference of its own) and per
    item, pooled (WER against the item's reference).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from fairdesk.constants import SAMPLE_RATE
from fairdesk.incremental.simulate import Simulation, simulate
from fairdesk.models.base import Word

__all__ = ["SPLIT_SETTINGS", "Segment", "simulate_segmented", "speech_regions", "split_points"]

#: Silero VAD settings for splitting (faster-whisper ``VadOptions`` field names).
SPLIT_SETTINGS = {
    "threshold": 0.5,
    "min_speech_duration_ms": 250,
    "min_silence_duration_ms": 500,
    "speech_pad_ms": 100,
}


def speech_regions(
    audio: np.ndarray, settings: dict | None = None
) -> tuple[tuple[float, float], ...]:
    """Speech regions ``((start_s, end_s), ...)`` of 16 kHz mono audio by Silero VAD, with the
    splitting settings (:data:`SPLIT_SETTINGS`) unless others are given: the acoustic
    covariates' VAD (:func:`fairdesk.core.acoustics.speech_regions`) with another default."""
    from fairdesk.core.acoustics import speech_regions as vad_regions

    return vad_regions(audio, SAMPLE_RATE, SPLIT_SETTINGS if settings is None else settings)


def split_points(regions, n_samples: int) -> list[tuple[int, int]]:
    """Segments ``[(s0, s1), ...]`` in samples tiling ``[0, n_samples]``, cut in the middle of
    the silence between consecutive speech regions."""
    cuts = [int(round(0.5 * (a[1] + b[0]) * SAMPLE_RATE)) for a, b in zip(regions, regions[1:])]
    bounds = [0] + [c for c in cuts if 0 < c < n_samples] + [n_samples]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a] or [(0, n_samples)]


@dataclass(frozen=True)
class Segment:
    """One segment of a split recording and its own stream."""

    index: int
    start_s: float
    end_s: float
    sim: Simulation


def _shift(words, off: float) -> tuple[Word, ...]:
    return tuple(
        Word(
            w.text,
            None if w.start is None else round(w.start + off, 4),
            None if w.end is None else round(w.end + off, 4),
            w.probability,
        )
        for w in words
    )


def simulate_segmented(
    backend,
    audio: np.ndarray,
    policy: str = "concatenation",
    chunk_s: float = 1.0,
    *,
    settings: dict | None = None,
    timer: Callable[[], float] = time.perf_counter,
    regions=None,
    **options,
) -> tuple[Simulation, list[Segment]]:
    """Split ``audio`` on silence and stream each segment through ``policy``.

    Parameters
    ----------
    regions : speech regions to split on (default: :func:`speech_regions` with ``settings``).
    Other parameters as :func:`fairdesk.incremental.simulate.simulate`.

    Returns
    -------
    (item, segments)
        ``item``: the item's joined stream on one computation clock (see the module
        docstring); ``segments``: each segment's own stream (times from the segment start).
    """
    audio = np.ascontiguousarray(np.asarray(audio, dtype=np.float32))
    if regions is None:
        regions = speech_regions(audio, settings)
    parts = split_points(list(regions), int(audio.size))
    segs, item = [], Simulation(policy, audio.size / SAMPLE_RATE, float(chunk_s))
    done: tuple[Word, ...] = ()
    clock = 0.0
    for j, (s0, s1) in enumerate(parts):
        off = s0 / SAMPLE_RATE
        sim = simulate(backend, audio[s0:s1], policy, chunk_s, timer=timer, **options)
        segs.append(Segment(j, off, s1 / SAMPLE_RATE, sim))
        base = len(item.updates)
        for u in sim.updates:
            arrival = round(off + u.arrival_s, 6)
            start = max(arrival, clock)
            clock = start + u.decode_s
            item.updates.append(
                replace(
                    u,
                    index=base + u.index,
                    arrival_s=arrival,
                    span=None if u.span is None else (off + u.span[0], off + u.span[1]),
                    start_s=start,
                    end_s=clock,
                    words=done + _shift(u.words, off),
                    n_committed=len(done) + (u.n_committed or 0),
                )
            )
        item.cuts.extend(
            replace(c, update=base + c.update, raw_s=off + c.raw_s, cut_s=off + c.cut_s)
            for c in sim.cuts
        )
        item.n_trims += sim.n_trims
        done = done + _shift(sim.final_words, off)
    return item, segs
