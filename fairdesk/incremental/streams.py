"""The shared pieces of the streaming simulation: the update log (:class:`Update`,
:class:`Cut`, :class:`Simulation`), the timed decoder, the policy base class and the chunk
clock. The policies (:mod:`.simulate`, :mod:`.agreement`, :mod:`.native`) build on them, and
:mod:`.simulate` dispatches to them, so they live below all three."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from fairdesk.constants import REDECODING_POLICIES, SAMPLE_RATE
from fairdesk.core.jsonio import ResultJson
from fairdesk.incremental.edits import tokens
from fairdesk.models.base import Word

#: Re-decoding policies (any backend with ``transcribe``).
POLICIES = REDECODING_POLICIES


@dataclass(frozen=True)
class Update:
    """One update of a simulated stream.

    Attributes
    ----------
    index : 0-based update number.
    arrival_s : seconds of input that had arrived (end of this update's chunk; the duration
        for the flush).
    is_flush : the end-of-stream update.
    span : ``(start_s, end_s)`` of the audio decoded, or None when nothing was decoded.
    decode_s : wall time of the decode (0 without one).
    start_s, end_s : computation clock: when the decode started and when the list was shown.
    words : the full displayed word list (times in seconds from the start of the clip).
    n_committed : how many leading words are final (frozen by the sliding window, committed by
        local agreement; the whole list after the flush); None for concatenation before the
        flush.
    n_predicted : words the decode returned (Whetten et al.'s "words in that prediction"); None
        when nothing was decoded.
    """

    index: int
    arrival_s: float
    is_flush: bool
    span: tuple[float, float] | None
    decode_s: float
    start_s: float
    end_s: float
    words: tuple[Word, ...]
    n_committed: int | None = None
    n_predicted: int | None = None

    @property
    def committed(self) -> tuple[Word, ...]:
        """The committed / frozen words (empty when the policy commits nothing yet)."""
        return self.words[: self.n_committed or 0]

    def to_dict(self) -> ResultJson:
        return ResultJson(
            {
                "index": self.index,
                "arrival_s": self.arrival_s,
                "is_flush": self.is_flush,
                "span": list(self.span) if self.span else None,
                "decode_s": self.decode_s,
                "start_s": self.start_s,
                "end_s": self.end_s,
                "words": [[w.text, w.start, w.end] for w in self.words],
                "n_committed": self.n_committed,
                "n_predicted": self.n_predicted,
            }
        )


@dataclass(frozen=True)
class Cut:
    """One sliding-window cut.

    Attributes
    ----------
    update : the update after whose decode the window was cut.
    raw_s : ``w0 + cut_fraction x window``.
    cut_s : where the next window starts (== raw_s for the literal variant).
    inside_word : the cut falls strictly inside a word of the decoded window
        (``start < cut < end``).
    n_frozen : words frozen by this cut.
    forced : the window was full and no word ended before the raw cut.
    n_straddled : words of the window with ``start < cut < end`` (literal variant).
    n_straddled_frozen : of those, frozen because their midpoint lies before the cut.
    """

    update: int
    raw_s: float
    cut_s: float
    inside_word: bool
    n_frozen: int
    forced: bool = False
    n_straddled: int = 0
    n_straddled_frozen: int = 0


@dataclass
class Simulation:
    """The log of one item streamed through one policy."""

    policy: str
    duration_s: float
    chunk_s: float
    updates: list[Update] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    n_trims: int = 0

    @property
    def decode_s(self) -> float:
        return float(sum(u.decode_s for u in self.updates))

    @property
    def n_decodes(self) -> int:
        return sum(1 for u in self.updates if u.span is not None)

    @property
    def final_words(self) -> tuple[Word, ...]:
        return self.updates[-1].words if self.updates else ()

    def stream(self, which: str = "displayed") -> list[tuple[Word, ...]]:
        """The word lists of the ``displayed`` or ``committed`` stream."""
        if which == "displayed":
            return [u.words for u in self.updates]
        if which == "committed":
            return [u.committed for u in self.updates]
        raise ValueError(f"stream must be 'displayed' or 'committed', not {which!r}")

    def to_dict(self) -> ResultJson:
        return ResultJson(
            {
                "policy": self.policy,
                "duration_s": self.duration_s,
                "chunk_s": self.chunk_s,
                "n_trims": self.n_trims,
                "cuts": [c.__dict__ for c in self.cuts],
                "updates": [u.to_dict() for u in self.updates],
            }
        )


# ------------------------------------------------------------------------------- decoding


class Decoder:
    """Decodes spans of one clip with a backend and times each call with ``timer``.

    After each call, :attr:`n_words` holds the number of words decoded and
    :attr:`segment_ends` the backend's segment end times (clip seconds) when it was a
    streaming decode (``streaming=True``) of a backend with ``transcribe_streaming``
    (whisper), else None.
    """

    def __init__(self, backend, audio: np.ndarray, timer: Callable[[], float]):
        self.backend = backend
        self.audio = audio
        self.timer = timer
        self.n_words: int | None = None
        self.segment_ends: list[float] | None = None

    @property
    def can_stream(self) -> bool:
        """Whether the backend takes a prompt and reports segments."""
        return callable(getattr(self.backend, "transcribe_streaming", None))

    def __call__(
        self, s0: int, s1: int, *, prompt: str | None = None, streaming: bool = False
    ) -> tuple[list[Word], float]:
        """Words of ``audio[s0:s1]`` with times shifted to the clip, and the wall time.

        With ``streaming`` and a backend that supports it, the decode is prompted with
        ``prompt`` and returns segment ends (whisper_streaming's decode).
        """
        seg = self.audio[s0:s1]
        ends = None
        t0 = self.timer()
        if streaming and self.can_stream:
            tr, ends = self.backend.transcribe_streaming(seg, prompt or None)
        else:
            tr = self.backend.transcribe([seg])[0]
        wall = self.timer() - t0
        off = s0 / SAMPLE_RATE
        self.segment_ends = None if ends is None else [round(off + e, 4) for e in ends]
        dur = seg.size / SAMPLE_RATE
        words = list(tr.words)
        if not words and tr.text.strip():
            words = [Word(t, None, None, None) for t in tr.text.split()]
        out = []
        for w in words:
            start = 0.0 if w.start is None else float(w.start)
            end = dur if w.end is None else float(w.end)
            out.append(Word(w.text, round(off + start, 4), round(off + end, 4), w.probability))
        self.n_words = len(out)
        return out, float(wall)


def _raw(words: Sequence[Word]) -> list[str]:
    return [w.text for w in words]


def _drop_repeated_ngram(prev: Sequence[Word], new: list[Word], max_n: int = 5, raw: bool = False):
    """Drop a leading n-gram of ``new`` (n = 1..max_n, smallest first) whose normalised
    tokens (``raw``: word strings as written) equal those of the same number of words at the
    end of ``prev``.

    Returns ``(words, trimmed)``.
    """
    if not prev or not new:
        return new, False
    key = _raw if raw else tokens
    for n in range(1, min(max_n, len(prev), len(new)) + 1):
        tail = key(prev[-n:])
        if tail and tail == key(new[:n]):
            return new[n:], True
    return new, False


class _Policy:
    name = ""
    needs_times = True

    def __init__(self, decode: Decoder, sim: Simulation):
        self.decode = decode
        self.sim = sim
        self.last_span: tuple[int, int] | None = None

    def step(self, index: int, t: int, final: bool):
        """Returns ``(words, n_committed, span_samples or None, decode_s)``."""
        raise NotImplementedError


def update_ends(n_samples: int, chunk_s: float) -> list[int]:
    """Sample positions where the chunk updates end (the flush is not included)."""
    if not (isinstance(chunk_s, (int, float)) and math.isfinite(chunk_s) and chunk_s > 0):
        raise ValueError(f"chunk_s must be a positive number of seconds, not {chunk_s!r}")
    cs = int(round(chunk_s * SAMPLE_RATE))
    if cs < 1:
        raise ValueError(f"chunk_s={chunk_s} is shorter than one sample")
    return [min(k * cs, n_samples) for k in range(1, -(-n_samples // cs) + 1)]
