"""CMU PocketSphinx with its packaged US-English model (``pocketsphinx-en-us``).

A classic HMM/n-gram recogniser: a useful, very different baseline next to neural models.
Audio is decoded as 16 kHz 16-bit PCM, one utterance per clip.

Definitions
-----------
words
    From the decoder's word segmentation; fillers (``<s>``, ``</s>``, ``<sil>``, ``[NOISE]``
    ...) are dropped and alternative-pronunciation marks (``read(2)``) removed. Times are
    frame indices x 10 ms; ``probability`` is the word's posterior from the best-path lattice.
confidence
    Mean word posterior over the recognised words (None when nothing was recognised). The
    sentence posterior that PocketSphinx also reports is almost always near 0 for more than a
    few words, so it does not rank utterances usefully.
streaming
    :meth:`PocketSphinxBackend.open_stream` feeds an utterance chunk by chunk
    (``process_raw`` per chunk, one ``start_utt``/``end_utt``) and reads the decoder's own
    partial hypothesis (``seg()`` of the current best path) after each chunk; the final
    result comes after ``end_utt`` (best-path rescoring, as :meth:`transcribe`). Partial
    words carry no posterior (``probability`` None). The cepstral mean is estimated as the
    audio arrives (``full_utt=False``), so a stream's final result can differ from
    :meth:`transcribe`'s, which normalises over the whole clip.
embed, score
    Not supported: PocketSphinx exposes no neural encoder states, and its forced alignment
    gives acoustic scores on a scale that is not a log-probability of the text.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fairdesk.constants import SAMPLE_RATE
from fairdesk.models.base import (
    Backend,
    Transcription,
    Word,
    as_audio_batch,
    make_fingerprint,
    package_version,
    weights_digest,
)

_ALT_PRON = re.compile(r"\(\d+\)$")


def _is_filler(word: str) -> bool:
    return (
        (word.startswith("<") and word.endswith(">"))
        or (word.startswith("[") and word.endswith("]"))
        or (word.startswith("++") and word.endswith("++"))
    )


class PocketSphinxBackend(Backend):
    """PocketSphinx decoder with the en-us acoustic model, language model and CMUdict.

    Parameters
    ----------
    model_id : str
        Id reported by :attr:`id`.
    device : str
        Only ``"auto"`` or ``"cpu"``.
    **config
        Extra PocketSphinx configuration (e.g. ``lw=6.5``, ``beam=1e-48``), recorded in
        :attr:`fingerprint`.
    """

    capabilities = frozenset({"transcribe"})

    def __init__(
        self, model_id: str = "pocketsphinx-en-us", device: str = "auto", **config
    ) -> None:
        if device not in ("auto", "cpu"):
            raise ValueError(f"{model_id} runs on the CPU only (device={device!r})")
        import pocketsphinx

        self._id = model_id
        self._config = {k: config[k] for k in sorted(config)}
        self._decoder = pocketsphinx.Decoder(
            samprate=SAMPLE_RATE, loglevel="FATAL", bestpath=True, **self._config
        )
        cfg = self._decoder.config
        self._frate = int(cfg["frate"])
        self._files = [Path(cfg["lm"]), Path(cfg["dict"])] + sorted(
            p for p in Path(cfg["hmm"]).iterdir() if p.is_file()
        )
        self._lock = threading.Lock()  # one decoder: one utterance at a time
        self._fingerprint: str | None = None

    @property
    def settings(self) -> dict:
        return {"samprate": SAMPLE_RATE, "bestpath": True, **self._config}

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = make_fingerprint(
                "pocketsphinx",
                weights_digest(self._files),
                self.settings,
                {"pocketsphinx": package_version("pocketsphinx")},
            )
        return self._fingerprint

    def _unsupported(self, capability: str, why: str = "") -> NotImplementedError:
        why = why or {
            "embed": "PocketSphinx exposes no neural encoder states to pool",
            "score": "its forced-alignment scores are acoustic scores, not a log-probability of the text",
            "classify": "it is a speech recogniser",
        }.get(capability, "")
        return super()._unsupported(capability, why)

    def close(self) -> None:
        self._decoder = None

    def transcribe(self, audios: Sequence[np.ndarray]) -> list[Transcription]:
        """Decode each clip as one utterance (see the module docstring for words/confidence)."""
        if self._decoder is None:
            raise RuntimeError(f"{self._id}: the backend was closed; get a new one")
        return [self._decode(a) for a in as_audio_batch(audios)]

    def open_stream(self) -> PocketSphinxStream:
        """A chunk-by-chunk decoding session of one utterance (see :class:`PocketSphinxStream`)."""
        if self._decoder is None:
            raise RuntimeError(f"{self._id}: the backend was closed; get a new one")
        return PocketSphinxStream(self)

    def _words(self, segs) -> list[Word]:
        words = []
        for word, start, end, prob in segs:
            if _is_filler(word):
                continue
            words.append(
                Word(
                    _ALT_PRON.sub("", word),
                    round(start / self._frate, 3),
                    round((end + 1) / self._frate, 3),
                    None if prob is None else float(min(max(prob, 0.0), 1.0)),
                )
            )
        return words

    def _decode(self, audio: np.ndarray) -> Transcription:
        if audio.size == 0:
            return Transcription("", (), None, "en")
        pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
        with self._lock:
            d = self._decoder
            d.start_utt()
            d.process_raw(pcm, no_search=False, full_utt=True)
            d.end_utt()
            segs = [(s.word, s.start_frame, s.end_frame, s.prob) for s in d.seg()]
        words = self._words(segs)
        text = " ".join(w.text for w in words)
        confidence = float(np.mean([w.probability for w in words])) if words else None
        return Transcription(text, tuple(words), confidence, "en")


def _pcm(audio: np.ndarray) -> bytes:
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


class PocketSphinxStream:
    """One utterance decoded as it arrives: ``feed`` each chunk, then ``finish``.

    Holds the backend's decoder (its lock) from the first ``feed`` until ``finish`` or
    ``close``; use it as a context manager.
    """

    def __init__(self, backend: PocketSphinxBackend):
        self._b = backend
        self._open = False

    def _start(self) -> None:
        self._b._lock.acquire()
        self._open = True
        self._b._decoder.start_utt()

    def feed(self, audio: np.ndarray) -> list[Word]:
        """Process one chunk; returns the decoder's current partial word list."""
        if not self._open:
            self._start()
        d = self._b._decoder
        a = np.asarray(audio, dtype=np.float32)
        if a.size:
            d.process_raw(_pcm(a), no_search=False, full_utt=False)
        if d.hyp() is None:
            return []
        return self._b._words((s.word, s.start_frame, s.end_frame, None) for s in d.seg())

    def finish(self) -> list[Word]:
        """End the utterance; returns the final (best-path) word list."""
        if not self._open:
            self._start()
        d = self._b._decoder
        try:
            d.end_utt()
            segs = [(s.word, s.start_frame, s.end_frame, s.prob) for s in d.seg()]
        finally:
            self._release()
        return self._b._words(segs)

    def _release(self) -> None:
        if self._open:
            self._open = False
            self._b._lock.release()

    def close(self) -> None:
        """Abandon an unfinished utterance."""
        if self._open:
            try:
                self._b._decoder.end_utt()
            finally:
                self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
