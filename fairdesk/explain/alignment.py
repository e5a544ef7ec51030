"""Reference word spans by forced alignment with whisper-tiny.en (CTranslate2).

The reference text is teacher-forced through Whisper (``ctranslate2.models.Whisper.align``:
cross-attention of the alignment heads, median filter of width 7, dynamic time warping), and
faster-whisper's own helpers turn the token alignment into words:
``WhisperModel.find_alignment`` (token → word grouping with the tokenizer's word boundaries,
``Tokenizer.split_to_word_tokens``; a word starts at the time its first token's DTW path
jumps to it, 20 ms resolution) and ``merge_punctuations`` (leading quotes/brackets join the
next word, trailing punctuation the previous one). The same as the word timestamps of
``WhisperModel.transcribe(word_timestamps=True)``, but for the *reference* text rather than
the decoded one, so the spans exist whatever the model under audit heard. The aligner is
independent of the model whose saliency is grounded.

Limits
------
- English only (tiny.en is an English-only model; other languages give meaningless spans).
- One 30 s window: longer clips are refused.
- Approximate: tiny's alignment heads are coarse (spans are typically within ~0.1 s of the
  true boundaries on clean read speech, worse on noisy or disfluent speech); a word the model
  cannot place may get a zero-length span at its neighbour's boundary. Spans are clipped to
  the clip and made monotone (each start ≥ the previous start, end ≥ start).
- Whisper normalises nothing here: the reference is aligned as written (after stripping).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..constants import SAMPLE_RATE

#: faster-whisper's default punctuation merging (as in ``WhisperModel.transcribe``).
PREPEND_PUNCTUATIONS = "\"'“¿([{-"
APPEND_PUNCTUATIONS = "\"'.。,，!！?？:：”)]}、"
MAX_SECONDS = 30.0


@dataclass(frozen=True)
class WordSpan:
    """One reference word and where it was said (seconds from the clip's start)."""

    word: str
    start: float
    end: float
    probability: float

    def to_dict(self) -> dict:
        return asdict(self)


class WhisperAligner:
    """Forced aligner of reference texts (see the module docstring).

    Parameters
    ----------
    backend : a :class:`fairdesk.models.whisper_ct2.WhisperCT2Backend` to reuse (e.g. the
        audit's own whisper-tiny.en); None loads whisper-tiny.en on the CPU when first used.
    cpu_threads : threads for a backend loaded here.
    """

    def __init__(self, backend=None, cpu_threads: int | None = None):
        self._backend = backend
        self._threads = cpu_threads

    @property
    def backend(self):
        if self._backend is None:
            from ..models import get_backend

            kw = {"cpu_threads": self._threads} if self._threads else {}
            self._backend = get_backend("whisper-tiny.en", device="cpu", **kw)
        return self._backend

    @property
    def key(self) -> str:
        """``id@fingerprint`` of the aligning model (recorded with the spans)."""
        b = self.backend
        return f"{b.id}@{b.fingerprint}"

    def align(self, audio: np.ndarray, text: str) -> list[WordSpan]:
        """Word spans of ``text`` in ``audio`` (float32 mono 16 kHz, at most 30 s)."""
        from faster_whisper.transcribe import merge_punctuations

        audio = np.ascontiguousarray(np.asarray(audio, dtype=np.float32))
        text = str(text).strip()
        if audio.ndim != 1 or audio.size == 0:
            raise ValueError("alignment needs one non-empty mono clip")
        duration = audio.size / SAMPLE_RATE
        if duration > MAX_SECONDS:
            raise ValueError(
                f"forced alignment reads at most {MAX_SECONDS:.0f} s; this clip "
                f"lasts {duration:.1f} s (cut it into segments first)"
            )
        if not text:
            return []
        b = self.backend
        b._check_open()
        tok = b._get_tokenizer()
        ids = tok.encode(" " + text)
        if not ids:
            return []
        feats, n_frames = b._features(audio)
        enc = b._encode([feats])
        words = b._model.find_alignment(tok, [ids], enc, n_frames, median_filter_width=7)[0]
        words = [dict(w) for w in words]
        merge_punctuations(words, PREPEND_PUNCTUATIONS, APPEND_PUNCTUATIONS)
        out: list[WordSpan] = []
        last = 0.0
        for w in words:
            word = str(w["word"]).strip()
            if not word:
                continue
            start = min(max(float(w["start"]), last, 0.0), duration)
            end = min(max(float(w["end"]), start), duration)
            out.append(
                WordSpan(
                    word, round(start, 3), round(end, 3), float(w.get("probability", float("nan")))
                )
            )
            last = start
        return out
