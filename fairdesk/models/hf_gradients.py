"""The differentiable score of a local Hugging Face model, for the explain stage.

A mixin of :class:`fairdesk.models.hf.HFBackend` (see its module docstring, "differentiable
score"): the model's own input for a clip, and the score of a text with its gradient with
respect to that input. torch is imported when called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from fairdesk.constants import SAMPLE_RATE
from fairdesk.models.base import as_audio_batch, require_nonempty

if TYPE_CHECKING:

    class _Host(Protocol):
        """What the mixin reads of the :class:`HFBackend` it is mixed into."""

        _id: str
        _kind: str
        _device: str
        _masked: bool
        _model: Any
        _tok: Any
        _fe: Any

        @property
        def differentiable(self) -> bool: ...
        def _unsupported(self, capability: str, why: str = "") -> NotImplementedError: ...
        def _check_open(self) -> None: ...
        def _check_window(self, audios: list[np.ndarray], what: str) -> None: ...
        def _inputs(self, clips: list[np.ndarray]) -> dict: ...
        def _prefix(self) -> list[int]: ...
        def _target_tokens(self, text: str) -> list[int]: ...
        def _seq2seq_lp_tensor(self, x: Any, text: str) -> Any: ...
        def _ctc_lp_tensor(self, x: Any, text: str) -> Any: ...


class DifferentiableScore:
    """``model_input`` and ``score_with_grad`` over an open :class:`HFBackend`'s model."""

    @property
    def differentiable(self: _Host) -> bool:
        """Whether :meth:`score_with_grad` works (CTC and seq2seq models)."""
        return self._kind in ("seq2seq", "ctc")

    def model_input(self: _Host, audio: np.ndarray) -> tuple[np.ndarray, float, int]:
        """The model's input for one clip: ``(values (T, F), seconds per step, steps of clip)``.

        See the module docstring (differentiable score).
        """
        if not self.differentiable:
            raise self._unsupported("score", "it is an audio classifier")
        self._check_open()
        audios = as_audio_batch([audio])
        require_nonempty(audios, self._id, "explain")
        self._check_window(audios, "explain")
        inputs = self._inputs(audios)
        if self._kind == "seq2seq":
            feats = inputs["input_features"][0].float().cpu().numpy()  # (n_mels, T)
            hop = int(getattr(self._fe, "hop_length", 160))
            values = np.ascontiguousarray(feats.T)
            step_s = hop / SAMPLE_RATE
            n_valid = min(values.shape[0], math.ceil(audios[0].size / hop))
        else:
            values = inputs["input_values"][0].float().cpu().numpy()[:, None]
            step_s = 1.0 / SAMPLE_RATE
            n_valid = values.shape[0]
        return values.astype(np.float32), float(step_s), int(n_valid)

    def score_with_grad(
        self: _Host, inputs: np.ndarray, text: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """Scores of ``text`` for a batch of model inputs ``(B, T, F)`` and their gradients.

        Returns
        -------
        (numpy.ndarray of shape (B,), numpy.ndarray of shape (B, T, F))
        """
        import torch

        if not self.differentiable:
            raise self._unsupported("score", "it is an audio classifier")
        self._check_open()
        dtype = next(self._model.parameters()).dtype
        x = torch.tensor(
            np.asarray(inputs, dtype=np.float32),
            dtype=dtype,
            device=self._device,
            requires_grad=True,
        )
        if x.ndim != 3:
            raise ValueError(
                f"score_with_grad takes inputs of shape (B, T, F), not {tuple(x.shape)}"
            )
        with torch.enable_grad():
            lp = (
                self._seq2seq_lp_tensor(x, text)
                if self._kind == "seq2seq"
                else self._ctc_lp_tensor(x, text)
            )
            (grad,) = torch.autograd.grad(lp.sum(), x)
        return (lp.detach().double().cpu().numpy(), grad.detach().float().cpu().numpy())

    def _seq2seq_lp_tensor(self: _Host, x, text: str):
        import torch

        b = x.shape[0]
        prefix = self._prefix()
        seq = prefix + self._target_tokens(text)
        dec_in = torch.tensor([seq[:-1]] * b, dtype=torch.long, device=self._device)
        logits = self._model(input_features=x.transpose(1, 2), decoder_input_ids=dec_in).logits
        logp = torch.log_softmax(logits.double(), dim=-1)
        targets = torch.tensor(seq[len(prefix) :], device=self._device)
        pos = torch.arange(len(prefix) - 1, len(seq) - 1, device=self._device)
        return logp[:, pos, targets].sum(dim=-1)

    def _ctc_lp_tensor(self: _Host, x, text: str):
        import torch

        b, n = x.shape[0], x.shape[1]
        kw = {"input_values": x[..., 0]}
        if self._masked:
            kw["attention_mask"] = torch.ones((b, n), dtype=torch.long, device=self._device)
        logp = torch.log_softmax(self._model(**kw).logits.double(), dim=-1)
        blank = self._model.config.pad_token_id
        if blank is None:
            blank = self._tok.pad_token_id
        ids = list(self._tok(str(text).strip()).input_ids)
        frames = logp.shape[1]
        loss = torch.nn.functional.ctc_loss(
            logp.transpose(0, 1).cpu(),
            torch.tensor(ids * b, dtype=torch.long),
            torch.full((b,), frames, dtype=torch.long),
            torch.full((b,), len(ids), dtype=torch.long),
            blank=int(blank),
            reduction="none",
            zero_infinity=False,
        )
        return -loss
