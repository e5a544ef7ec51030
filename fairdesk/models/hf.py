"""Local Hugging Face transformers models (``hf:<folder>``), fully offline.

The folder is what ``save_pretrained`` writes: ``config.json``, ``*.safetensors`` weights and
the preprocessing files (``preprocessor_config.json``, tokenizer files). The kind of model is
read from ``config.json`` (``architectures``):

- ``...ForConditionalGeneration`` (e.g. Whisper): speech seq2seq, loaded with
  ``AutoModelForSpeechSeq2Seq``: transcribe, embed, score;
- ``...ForCTC`` (wav2vec2, HuBERT, WavLM ...): ``AutoModelForCTC``: transcribe (greedy CTC),
  embed, score;
- ``...ForSequenceClassification`` / ``...ForAudioClassification``:
  ``AutoModelForAudioClassification``: classify, embed.

Safety: weights load only from safetensors (``use_safetensors=True``; a folder with only
pickle ``.bin``/``.pt`` files is refused), ``local_files_only=True`` and ``HF_HUB_OFFLINE=1``
(nothing is downloaded), and ``trust_remote_code=False`` (no code from the folder runs).

Definitions
-----------
confidence (seq2seq)
    ``exp`` of the mean teacher-forced log-probability per token of the decoded text
    (re-tokenised) plus the end-of-text token, i.e. ``exp(score(audio, text) / n_tokens)``.
confidence (CTC)
    ``exp`` of the mean log-probability of the greedy path over the clip's frames.
embed
    Last encoder layer (seq2seq: the encoder's output; CTC/classifier: the last hidden state)
    averaged over the frames that cover the clip; padding frames are excluded, so a clip's
    embedding does not depend on its batch.
score (seq2seq)
    ``sum(log p)`` of the text tokens and the end-of-text token, teacher-forced after the
    decoder prompt (Whisper: the tokenizer's prefix tokens, e.g. start-of-transcript,
    language, task, no-timestamps; other models: ``decoder_start_token_id``).
score (CTC)
    ``-CTC loss`` (summed over frames, blank = pad token), i.e. the log-likelihood of the text
    summed over all alignments; ``-inf`` when the text has more tokens than the clip frames.
differentiable score (saliency, :mod:`fairdesk.explain.saliency`)
    ``model_input(audio)`` gives the model's own input for one clip, time-major: Whisper-type
    models the normalised log-mel features padded to the 30 s window, ``(3000, n_mels)``,
    10 ms per step; CTC models the feature extractor's (normalised) waveform, ``(n, 1)``, one
    step per sample. ``score_with_grad(inputs, text)`` takes a batch of such inputs
    ``(B, T, F)`` (e.g. scaled copies for integrated gradients) and returns the same score as
    :meth:`HFBackend.score` for each, and its gradient with respect to the input (float32;
    the weights get no gradient).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fairdesk.constants import SAMPLE_RATE
from fairdesk.models.base import (
    Backend,
    Classification,
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
from fairdesk.models.hf_folder import (
    KINDS,
    PICKLE_SUFFIXES,
    _offline,
    detect_kind,
    resolve_torch_device,
)
from fairdesk.models.hf_gradients import DifferentiableScore

__all__ = ["KINDS", "PICKLE_SUFFIXES", "HFBackend", "detect_kind", "resolve_torch_device"]


class HFBackend(DifferentiableScore, Backend):
    """A local transformers speech model (see the module docstring).

    Parameters
    ----------
    folder : path-like
        The model folder.
    model_id : str, optional
        Defaults to ``"hf:<folder>"``.
    device : {"auto", "cpu", "cuda"}
    batch_size : int
        Clips per forward pass (clips are sorted by length to limit padding).
    max_new_tokens : int
        Decoding limit for seq2seq models.
    num_beams : int
        Beam size for seq2seq models (1 = greedy; sampling is never used).
    language : str, optional
        Language for multilingual Whisper models (None: the model detects it; scores then use
        the tokenizer's saved prefix).
    dtype : {"float32", "float16", "bfloat16"}
        Weights/compute type (default float32).
    cpu_threads : int, optional
        Calls ``torch.set_num_threads`` (process-wide) when given.
    """

    def __init__(
        self,
        folder: str | os.PathLike,
        model_id: str | None = None,
        device: str = "auto",
        *,
        batch_size: int = 8,
        max_new_tokens: int = 128,
        num_beams: int = 1,
        language: str | None = None,
        dtype: str = "float32",
        cpu_threads: int | None = None,
    ) -> None:
        from fairdesk.core.optional import require_torch

        require_torch(f"model hf:{folder}")
        self._folder = Path(folder)
        self._id = model_id or f"hf:{folder}"
        self._kind = detect_kind(self._folder)
        if dtype not in ("float32", "float16", "bfloat16"):
            raise ValueError(f"dtype must be float32, float16 or bfloat16, not {dtype!r}")
        _offline()
        import torch
        import transformers as tf

        self._device = resolve_torch_device(device, self._id)
        self._device_fallback = fallback(device, "torch")
        if cpu_threads:
            torch.set_num_threads(int(cpu_threads))
        self._batch_size = max(1, int(batch_size))
        self._max_new_tokens = int(max_new_tokens)
        self._num_beams = max(1, int(num_beams))
        self._language = language
        self._dtype_name = dtype
        common = dict(local_files_only=True, trust_remote_code=False)
        auto = {
            "seq2seq": tf.AutoModelForSpeechSeq2Seq,
            "ctc": tf.AutoModelForCTC,
            "classifier": tf.AutoModelForAudioClassification,
        }[self._kind]
        try:
            model = auto.from_pretrained(
                str(self._folder), use_safetensors=True, dtype=getattr(torch, dtype), **common
            )
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"could not load the {self._kind} model in {self._folder}: {e}") from e
        self._model = model.to(self._device).eval()
        try:
            self._fe = tf.AutoFeatureExtractor.from_pretrained(str(self._folder), **common)
        except (OSError, ValueError, KeyError) as e:
            raise FileNotFoundError(
                f"{self._folder}: no usable feature extractor (preprocessor_config.json): {e}. "
                "Save it next to the model: processor.save_pretrained(folder)"
            ) from e
        self._tok: Any = None  # a transformers tokenizer (none for a classifier)
        if self._kind != "classifier":
            try:
                self._tok = tf.AutoTokenizer.from_pretrained(str(self._folder), **common)
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise FileNotFoundError(
                    f"{self._folder}: no usable tokenizer ({e}). Save it next to the model: "
                    "tokenizer.save_pretrained(folder) or processor.save_pretrained(folder)"
                ) from e
            if self._language and hasattr(self._tok, "set_prefix_tokens"):
                self._tok.set_prefix_tokens(language=self._language, task="transcribe")
        sr = getattr(self._fe, "sampling_rate", SAMPLE_RATE)
        if sr != SAMPLE_RATE:
            raise ValueError(
                f"{self._folder}: the model expects {sr} Hz audio; fairdesk works at {SAMPLE_RATE} Hz"
            )
        # Fixed-window extractors (Whisper) pad every clip to 30 s; others pad to the longest.
        self._window = (
            getattr(self._fe, "n_samples", None)
            if getattr(self._fe, "nb_max_frames", None)
            else None
        )
        self._masked = (
            bool(getattr(self._fe, "return_attention_mask", False)) or self._window is not None
        )
        self.capabilities = frozenset(
            {
                "seq2seq": {"transcribe", "embed", "score"},
                "ctc": {"transcribe", "embed", "score"},
                "classifier": {"classify", "embed"},
            }[self._kind]
        )
        self._fingerprint: str | None = None

    # -- identity ------------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """``"seq2seq"``, ``"ctc"`` or ``"classifier"``."""
        return self._kind

    @property
    def settings(self) -> dict:
        s: dict[str, object] = {
            "kind": self._kind,
            "dtype": self._dtype_name,
            "device": self._device,
        }
        if self._kind == "seq2seq":
            s.update(
                max_new_tokens=self._max_new_tokens,
                num_beams=self._num_beams,
                language=self._language,
            )
        return s

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            files = [
                p for p in self._folder.iterdir() if p.is_file() and p.suffix not in PICKLE_SUFFIXES
            ]
            versions = {
                "transformers": package_version("transformers"),
                "torch": package_version("torch"),
            }
            self._fingerprint = make_fingerprint(
                "hf", weights_digest(files), self.settings, versions
            )
        return self._fingerprint

    @property
    def labels(self) -> list[str]:
        """Class labels (classifiers), in id order."""
        id2label = getattr(self._model.config, "id2label", {}) or {}
        return [str(id2label[k]) for k in sorted(id2label, key=int)]

    def close(self) -> None:
        if getattr(self, "_model", None) is not None:
            self._model = None
            if self._device == "cuda":
                import torch

                torch.cuda.empty_cache()

    def _check_open(self) -> None:
        if self._model is None:
            raise RuntimeError(f"{self._id}: the backend was closed; get a new one")

    # -- batching ------------------------------------------------------------------------------
    def _batches(self, audios: list[np.ndarray]):
        """Yield lists of indices; longest first, one clip per batch when padding can't be masked."""
        order = sorted(range(len(audios)), key=lambda i: -audios[i].size)
        size = self._batch_size if self._masked else 1
        for s in range(0, len(order), size):
            yield order[s : s + size]

    def _check_window(self, audios: list[np.ndarray], what: str) -> None:
        if self._window is None:
            return
        for i, a in enumerate(audios):
            if a.size > self._window:
                raise ValueError(
                    f"{self._id}: cannot {what} item {i}: it lasts {a.size / SAMPLE_RATE:.1f} s and the "
                    f"model reads at most {self._window / SAMPLE_RATE:.0f} s (cut it into segments first)"
                )

    def _inputs(self, clips: list[np.ndarray]) -> dict:
        kw = dict(sampling_rate=SAMPLE_RATE, return_tensors="pt")
        if self._window is None:
            kw["padding"] = True  # to the longest clip (Whisper-type: always the full window)
        if self._masked:
            kw["return_attention_mask"] = True
        feats = self._fe(clips, **kw)
        dtype = next(self._model.parameters()).dtype
        out = {}
        for k, v in feats.items():
            v = v.to(self._device)
            out[k] = v.to(dtype) if v.is_floating_point() else v
        return out

    def _valid_frames(self, inputs: dict, clips: list[np.ndarray], n_out: int) -> list[int]:
        """Number of output frames that cover each clip (the rest is padding)."""
        import torch

        if self._window is None and hasattr(self._model, "_get_feat_extract_output_lengths"):
            if "attention_mask" in inputs:
                lengths = inputs["attention_mask"].sum(-1)
            else:
                lengths = torch.tensor([c.size for c in clips])
            frames = self._model._get_feat_extract_output_lengths(lengths)
            return [int(min(max(f, 1), n_out)) for f in frames.tolist()]
        total = self._window or max(c.size for c in clips)
        per_frame = total / n_out
        return [int(min(max(math.ceil(c.size / per_frame), 1), n_out)) for c in clips]

    # -- embed ---------------------------------------------------------------------------------
    def _hidden(self, inputs: dict):
        if self._kind == "seq2seq":
            return self._model.get_encoder()(**inputs).last_hidden_state
        return self._model(**inputs, output_hidden_states=True).hidden_states[-1]

    def embed(self, audios: Sequence[np.ndarray]) -> np.ndarray:
        """Mean-pooled last hidden states over each clip's frames; shape ``(n, d)``."""
        import torch

        self._check_open()
        audios = as_audio_batch(audios)
        require_nonempty(audios, self._id, "embed")
        self._check_window(audios, "embed")
        out: list[np.ndarray | None] = [None] * len(audios)
        with torch.inference_mode():
            for idx in self._batches(audios):
                clips = [audios[i] for i in idx]
                inputs = self._inputs(clips)
                hidden = self._hidden(inputs).float()
                frames = self._valid_frames(inputs, clips, hidden.shape[1])
                for j, (i, n) in enumerate(zip(idx, frames, strict=True)):
                    out[i] = hidden[j, :n].double().mean(0).cpu().numpy()
        return np.stack(all_filled(out, self._id)).astype(np.float32)

    # -- classify ------------------------------------------------------------------------------
    def classify(self, audios: Sequence[np.ndarray]) -> list[Classification]:
        """Softmax over the model's labels (``config.id2label``) for each clip."""
        import torch

        if self._kind != "classifier":
            raise self._unsupported("classify", f"it is a {self._kind} model")
        self._check_open()
        audios = as_audio_batch(audios)
        require_nonempty(audios, self._id, "classify")
        self._check_window(audios, "classify")
        labels = self.labels
        out: list[Classification | None] = [None] * len(audios)
        with torch.inference_mode():
            for idx in self._batches(audios):
                logits = self._model(**self._inputs([audios[i] for i in idx])).logits.float()
                probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()
                for i, p in zip(idx, probs, strict=True):
                    k = int(np.argmax(p))
                    out[i] = Classification(
                        labels[k],
                        float(p[k]),
                        {lab: float(v) for lab, v in zip(labels, p, strict=True)},
                    )
        return all_filled(out, self._id)

    # -- transcribe ----------------------------------------------------------------------------
    def transcribe(self, audios: Sequence[np.ndarray]) -> list[Transcription]:
        """Greedy CTC decoding, or seq2seq generation (deterministic: no sampling)."""
        if self._kind == "classifier":
            raise self._unsupported("transcribe", "it is an audio classifier")
        self._check_open()
        audios = as_audio_batch(audios)
        self._check_window(audios, "transcribe")
        out: list[Transcription | None] = [None] * len(audios)
        todo = [i for i, a in enumerate(audios) if a.size]
        for i, a in enumerate(audios):
            if not a.size:
                out[i] = Transcription("", (), None, self._language)
        run = self._transcribe_ctc if self._kind == "ctc" else self._transcribe_seq2seq
        sub = [audios[i] for i in todo]
        for i, t in zip(todo, run(sub) if sub else [], strict=True):
            out[i] = t
        return all_filled(out, self._id)

    def _transcribe_ctc(self, audios: list[np.ndarray]) -> list[Transcription]:
        import torch

        out: list[Transcription | None] = [None] * len(audios)
        stride = getattr(self._model.config, "inputs_to_logits_ratio", None)
        with torch.inference_mode():
            for idx in self._batches(audios):
                clips = [audios[i] for i in idx]
                inputs = self._inputs(clips)
                logp = torch.log_softmax(self._model(**inputs).logits.float(), dim=-1)
                frames = self._valid_frames(inputs, clips, logp.shape[1])
                best, ids = logp.max(dim=-1)
                for j, (i, n) in enumerate(zip(idx, frames, strict=True)):
                    path = ids[j, :n].tolist()
                    path_lp = best[j, :n].cpu().numpy()
                    out[i] = self._ctc_result(path, path_lp, stride, clips[j].size)
        return all_filled(out, self._id)

    def _ctc_result(
        self, path: list[int], path_lp: np.ndarray, stride, n_samples: int
    ) -> Transcription:
        tok = self._tok
        words: list[Word] = []
        try:
            dec = tok.decode(path, output_word_offsets=True, skip_special_tokens=True)
            text = dec.text
            lower = bool(getattr(tok, "do_lower_case", False))
            if stride:
                for w in dec.word_offsets:
                    s, e = int(w["start_offset"]), int(w["end_offset"])
                    prob = float(np.exp(np.mean(path_lp[s:e]))) if e > s else None
                    words.append(
                        Word(
                            str(w["word"]).lower() if lower else str(w["word"]),
                            round(min(s * stride / SAMPLE_RATE, n_samples / SAMPLE_RATE), 3),
                            round(min(e * stride / SAMPLE_RATE, n_samples / SAMPLE_RATE), 3),
                            prob,
                        )
                    )
        except TypeError:  # a CTC tokenizer without word offsets
            text = tok.decode(path, skip_special_tokens=True)
        confidence = float(np.exp(np.mean(path_lp))) if len(path_lp) else None
        return Transcription(text.strip(), tuple(words), confidence, self._language)

    def _generate_kwargs(self) -> dict:
        kw: dict[str, object] = dict(
            max_new_tokens=self._max_new_tokens, num_beams=self._num_beams, do_sample=False
        )
        gen = getattr(self._model, "generation_config", None)
        if self._language and getattr(gen, "lang_to_id", None):
            kw.update(language=self._language, task="transcribe")
        return kw

    def _transcribe_seq2seq(self, audios: list[np.ndarray]) -> list[Transcription]:
        import torch

        texts: list[str] = [""] * len(audios)
        with torch.inference_mode():
            for idx in self._batches(audios):
                inputs = self._inputs([audios[i] for i in idx])
                seqs = self._model.generate(**inputs, **self._generate_kwargs())
                seqs = seqs.sequences if hasattr(seqs, "sequences") else seqs
                for i, t in zip(
                    idx, self._tok.batch_decode(seqs, skip_special_tokens=True), strict=True
                ):
                    texts[i] = t.strip()
        # Confidence: teacher-forced log-probability of the decoded text, per token.
        token_lists = [self._target_tokens(t) for t in texts]
        logps = self._seq2seq_logprobs(audios, token_lists)
        return [
            Transcription(t, (), float(math.exp(lp / max(len(toks), 1))), self._language)
            for t, toks, lp in zip(texts, token_lists, logps, strict=True)
        ]

    # -- score ---------------------------------------------------------------------------------
    def _prefix(self) -> list[int]:
        prefix = getattr(self._tok, "prefix_tokens", None)
        if prefix:
            return list(prefix)
        start = self._model.config.decoder_start_token_id
        if start is None:
            raise ValueError(
                f"{self._id}: config has no decoder_start_token_id; cannot teacher-force"
            )
        return [int(start)]

    def _target_tokens(self, text: str) -> list[int]:
        """Text tokens plus end-of-text (what the decoder must produce after the prompt)."""
        text = str(text).strip()
        if getattr(self._model.config, "model_type", "") == "whisper" and text:
            text = " " + text
        ids = self._tok(text, add_special_tokens=False).input_ids if text else []
        eos = self._tok.eos_token_id
        if eos is None:
            eos = self._model.config.eos_token_id
        return list(ids) + [int(eos)]

    def _seq2seq_logprobs(
        self, audios: list[np.ndarray], token_lists: list[list[int]]
    ) -> list[float]:
        import torch

        prefix = self._prefix()
        pad = self._tok.pad_token_id if self._tok.pad_token_id is not None else 0
        out = [0.0] * len(audios)
        with torch.inference_mode():
            for idx in self._batches(audios):
                inputs = self._inputs([audios[i] for i in idx])
                seqs = [prefix + token_lists[i] for i in idx]
                width = max(len(s) for s in seqs) - 1
                dec_in = torch.full((len(idx), width), pad, dtype=torch.long)
                dec_mask = torch.zeros((len(idx), width), dtype=torch.long)
                for j, s in enumerate(seqs):
                    dec_in[j, : len(s) - 1] = torch.tensor(s[:-1])
                    dec_mask[j, : len(s) - 1] = 1
                logits = self._model(
                    **inputs,
                    decoder_input_ids=dec_in.to(self._device),
                    decoder_attention_mask=dec_mask.to(self._device),
                ).logits
                logp = torch.log_softmax(logits.double(), dim=-1).cpu()
                for j, (i, s) in enumerate(zip(idx, seqs, strict=True)):
                    targets = torch.tensor(s[len(prefix) :])
                    pos = torch.arange(len(prefix) - 1, len(s) - 1)
                    out[i] = float(logp[j, pos, targets].sum())
        return out

    def score(self, audio: np.ndarray, text: str) -> float:
        """Log-probability of ``text`` given ``audio`` (see the module docstring)."""
        return self.score_many([audio], [text])[0]

    def score_many(self, audios: Sequence[np.ndarray], texts: Sequence[str]) -> list[float]:
        """:meth:`score` for many (audio, text) pairs, batched."""
        if self._kind == "classifier":
            raise self._unsupported("score", "it is an audio classifier")
        self._check_open()
        audios = as_audio_batch(audios)
        if len(audios) != len(texts):
            raise ValueError(f"{len(audios)} clips but {len(texts)} texts")
        require_nonempty(audios, self._id, "score")
        self._check_window(audios, "score")
        if self._kind == "seq2seq":
            return self._seq2seq_logprobs(audios, [self._target_tokens(t) for t in texts])
        return self._ctc_scores(audios, list(texts))

    def _ctc_scores(self, audios: list[np.ndarray], texts: list[str]) -> list[float]:
        import torch

        blank = self._model.config.pad_token_id
        if blank is None:
            blank = self._tok.pad_token_id
        out = [0.0] * len(audios)
        with torch.inference_mode():
            for idx in self._batches(audios):
                clips = [audios[i] for i in idx]
                inputs = self._inputs(clips)
                logp = torch.log_softmax(self._model(**inputs).logits.double(), dim=-1)
                frames = self._valid_frames(inputs, clips, logp.shape[1])
                targets = [list(self._tok(str(texts[i]).strip()).input_ids) for i in idx]
                flat = torch.tensor([t for tt in targets for t in tt], dtype=torch.long)
                loss = torch.nn.functional.ctc_loss(
                    logp.transpose(0, 1).cpu(),
                    flat,
                    torch.tensor(frames, dtype=torch.long),
                    torch.tensor([len(t) for t in targets], dtype=torch.long),
                    blank=int(blank),
                    reduction="none",
                    zero_infinity=False,
                )
                for i, v in zip(idx, loss.tolist(), strict=True):
                    out[i] = -float(v)
        return out
