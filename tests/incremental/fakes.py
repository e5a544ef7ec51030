"""A fake streaming backend with known word times and a fake clock.

The clip's samples hold their own index (``audio[i] == i`` as float32, exact below 2**24), so
the backend knows which span of the clip it was given. It returns the script words that lie
in the span (times relative to the span, as a real backend does), optionally:

* a straddling word at the span's end as its first two letters (a partial guess);
* a word cut at the span's start as its last two letters (``tail=True``), or, with
  ``echo=True``, the last word that ended at or before the span start (the overlap a real
  decoder often re-hears after a cut).

Each decode advances the fake clock by ``cost`` seconds (or ``cost(span_s)``).
"""

from __future__ import annotations

import numpy as np

from fairdesk.models.base import Transcription, Word

SR = 16000


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class ScriptBackend:
    id = "fake"
    settings: dict = {}

    def __init__(self, script, clock=None, cost=0.5, partial=True, tail=False, echo=False):
        self.script = list(script)  # (text, start, end) in clip seconds
        self.clock = clock or FakeClock()
        self.cost = cost
        self.partial = partial
        self.tail = tail
        self.echo = echo
        self.spans: list[tuple[float, float]] = []

    def transcribe(self, audios):
        out = []
        for a in audios:
            s0 = float(a[0]) / SR
            s1 = (float(a[-1]) + 1) / SR
            self.spans.append((s0, s1))
            self.clock.t += self.cost(s1 - s0) if callable(self.cost) else self.cost
            words = []
            if self.echo and s0 > 0:
                before = [w for w in self.script if w[2] <= s0 + 1e-9]
                if before:
                    words.append(Word(before[-1][0], 0.0, 0.05, 1.0))
            for text, a_, b_ in self.script:
                if a_ >= s0 - 1e-9 and b_ <= s1 + 1e-9:
                    words.append(Word(text, round(a_ - s0, 4), round(b_ - s0, 4), 1.0))
                elif self.tail and a_ < s0 < b_:
                    words.append(Word(text[-2:], 0.0, round(b_ - s0, 4), 0.5))
                elif self.partial and a_ < s1 < b_ and a_ >= s0:
                    words.append(Word(text[:2], round(a_ - s0, 4), round(s1 - s0, 4), 0.5))
            out.append(Transcription(" ".join(w.text for w in words), tuple(words)))
        return out

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def indexed_audio(seconds: float) -> np.ndarray:
    return np.arange(int(round(seconds * SR)), dtype=np.float32)


def contiguous_script(words, start=0.0, dur=0.4, gap=0.0):
    out, t = [], start
    for w in words:
        out.append((w, round(t, 4), round(t + dur, 4)))
        t += dur + gap
    return out
