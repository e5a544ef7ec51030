"""Local agreement (whisper_streaming's LocalAgreement-2), docs/METHODS.md, "Streaming policies".

Follows ``OnlineASRProcessor`` and ``HypothesisBuffer`` of whisper_streaming
(https://github.com/ufal/whisper_streaming, ``whisper_online.py``):

buffer
    Audio ``[b0, t]`` is decoded at every update; ``b0`` starts at 0.
prompt
    The committed words that end at or before ``b0`` (the ones no longer in the buffer),
    the last committed word always left out (as ``OnlineASRProcessor.prompt`` does), the
    last ``prompt_chars`` (200) characters of them: words are taken from the end while
    fewer than 200 characters (word + separator) have been taken. Backends with
    ``transcribe_streaming`` (whisper) get it as the decoder's initial prompt; the others
    (PocketSphinx, fakes) decode without one.
insert
    Of the hypothesis, keep the words that start after the last committed word's end minus
    0.1 s, then drop a leading n-gram (n = 1..5, smallest first) that repeats the committed
    tail (a *trim*).
agreement
    Commit the longest common prefix of this hypothesis and the previous update's unconfirmed
    words. ``local-agreement`` compares the raw word strings as the model wrote them (as
    whisper_streaming does: "Hello," and "hello" differ); ``local-agreement-norm`` compares
    normalised tokens (:func:`fairdesk.incremental.edits.tokens`), also for the n-gram trim.
buffer trimming ("segment", whisper_streaming's default)
    When the buffer is longer than ``buffer_trim_s`` (15 s) and something is committed, cut it
    at the end of a segment of the last decode: from the second-to-last segment end backwards
    (never the last one), the first that lies at or before the last committed word's end.
    Backends without segments (PocketSphinx, fakes) count each word as a segment.
streams
    *displayed* = committed + unconfirmed; *committed* = the committed words alone (never
    revoked). The flush commits the unconfirmed words.
"""

from __future__ import annotations

import math

from fairdesk.constants import SAMPLE_RATE
from fairdesk.incremental.edits import common_prefix, word_tokens
from fairdesk.incremental.streams import _drop_repeated_ngram, _Policy
from fairdesk.models.base import Word

__all__ = ["LocalAgreement", "prompt_words"]


def prompt_words(committed: list[Word], buffer_start_s: float, chars: int = 200) -> str:
    """whisper_streaming's prompt: committed words that end at or before the buffer start,
    the last ``chars`` characters of them (whole words, counted with one separator each)."""
    k = max(0, len(committed) - 1)
    while k > 0:
        end = committed[k - 1].end
        if end is None or end <= buffer_start_s:
            break
        k -= 1
    pool = [w.text for w in committed[:k]]
    taken: list[str] = []
    n = 0
    while pool and n < chars:
        x = pool.pop()
        n += len(x) + 1
        taken.append(x)
    return " ".join(reversed(taken))


class LocalAgreement(_Policy):
    """LocalAgreement-2 over a growing, trimmed buffer (see the module docstring)."""

    def __init__(
        self,
        decode,
        sim,
        *,
        normalised: bool = False,
        buffer_trim_s: float = 15.0,
        max_ngram: int = 5,
        prompt_chars: int = 200,
    ):
        super().__init__(decode, sim)
        self.name = "local-agreement-norm" if normalised else "local-agreement"
        self.normalised = bool(normalised)
        self.trim = int(round(buffer_trim_s * SAMPLE_RATE))
        self.max_ngram = int(max_ngram)
        self.prompt_chars = int(prompt_chars)
        self.b0 = 0
        self.committed: list[Word] = []
        self.unconfirmed: list[Word] = []
        self.last_end = -math.inf
        self.prompts: list[str] = []  # one per decode, for the log and the tests

    def _key(self, words):
        return word_tokens(words) if self.normalised else [w.text for w in words]

    def step(self, index, t, final):
        span = (self.b0, t)
        wall = 0.0
        decoded = None
        if not final and span != self.last_span and t > self.b0:
            prompt = prompt_words(self.committed, self.b0 / SAMPLE_RATE, self.prompt_chars)
            self.prompts.append(prompt)
            words, wall = self.decode(*span, prompt=prompt, streaming=True)
            decoded = span
            self.last_span = span
            new = [w for w in words if w.start is None or w.start > self.last_end - 0.1]
            new, trimmed = _drop_repeated_ngram(
                self.committed, new, self.max_ngram, raw=not self.normalised
            )
            self.sim.n_trims += int(trimmed)
            k = common_prefix(self._key(new), self._key(self.unconfirmed))
            self.committed += new[:k]
            if k and new[k - 1].end is not None:
                self.last_end = new[k - 1].end
            self.unconfirmed = new[k:]
            if t - self.b0 > self.trim and self.committed:
                self._chunk_completed_segment(words)
        shown = self.committed + self.unconfirmed
        if final:
            self.committed = shown
            self.unconfirmed = []
            return shown, len(shown), decoded, wall
        return shown, len(self.committed), decoded, wall

    def _chunk_completed_segment(self, words: list[Word]) -> None:
        ends = self.decode.segment_ends
        if ends is None:
            ends = [w.end for w in words if w.end is not None]
        ends = list(ends)
        t = self.last_end
        if len(ends) <= 1 or not math.isfinite(t):
            return
        e = ends[-2]
        while len(ends) > 2 and e > t:
            ends.pop()
            e = ends[-2]
        if e <= t:
            self.b0 = max(self.b0, int(round(e * SAMPLE_RATE)))
