"""A user's own JointBERT-style NLU, from a local Hugging Face folder (``get_nlu("hf:<folder>")``).

JointBERT (Chen et al., 2019; the SLU model of Sekkat et al. 2024) puts an intent head on the pooled
output and a BIO slot-tagging head on the token outputs of one encoder. No standard
transformers class has both heads, so fairdesk reads such a model as two ordinary models that
share one tokenizer. The folder convention::

    my-slu/
        tokenizer.json, tokenizer_config.json, ...   one *fast* tokenizer shared by both heads
                                                     (if absent here, it is read from intent/)
        intent/   config.json + model.safetensors    AutoModelForSequenceClassification;
                                                     config.id2label = the intent names
        slots/    config.json + model.safetensors    AutoModelForTokenClassification;
                                                     config.id2label = BIO tags: "O",
                                                     "B-artist", "I-artist", ...
        fairdesk_nlu.json   (optional) {"lowercase": true, "strip_punctuation": true,
                                        "max_length": 128, "batch_size": 32}

A JointBERT checkpoint is converted by saving its encoder twice, once with the intent head as
``BertForSequenceClassification`` and once with the slot head as ``BertForTokenClassification``
(``save_pretrained`` writes safetensors). Everything is loaded with ``local_files_only=True``,
``use_safetensors=True`` and ``trust_remote_code=False``: nothing is downloaded and no code from
the folder runs. torch and transformers are imported only when the model is first used.

Decoding: the tag of a word is the tag of its first sub-word token (the JointBERT convention).
``B-x`` (or ``S-x``/``U-x``) starts a span of slot ``x``; ``I-x`` (or ``E-x``/``L-x``)
continues a span of ``x`` and starts one when none is open; a tag without a prefix is read as
``I-``. The slot value is the input text between the first and the last character of the
span (from the tokenizer's offset mapping). When a slot name occurs twice, the first span is
kept.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fairdesk.nlu.base import NluModel, NluResult

__all__ = ["HfJointNlu", "decode_bio"]

_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt")
_PUNCT = re.compile(r"[^\w\s']|_")
_DEFAULTS = {"lowercase": True, "strip_punctuation": True, "max_length": 128, "batch_size": 32}


def decode_bio(words: Sequence[tuple[int, int, str]], text: str) -> dict[str, str]:
    """Turn per-word tags into slot values.

    Parameters
    ----------
    words : sequence of (start, end, tag)
        Character span of each word in ``text`` and its predicted tag, in order.
    text : str
        The text the offsets refer to.

    Returns
    -------
    dict[str, str]
        Slot name -> text of its first span.
    """
    spans: list[list] = []
    current: list | None = None
    for start, end, tag in words:
        if not tag or tag.upper() == "O":
            current = None
            continue
        if len(tag) > 2 and tag[1] in "-_" and tag[0].upper() in "BIESLU":
            prefix, name = tag[0].upper(), tag[2:]
        else:
            prefix, name = "I", tag
        if prefix in "BSU" or current is None or current[0] != name:
            current = [name, start, end]
            spans.append(current)
        else:
            current[2] = end
        if prefix in "SUEL":
            current = None
    slots: dict[str, str] = {}
    for name, start, end in spans:
        value = text[start:end].strip()
        if value and name not in slots:
            slots[name] = value
    return slots


def _folder_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder).as_posix()).encode() + b"\0")
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


class HfJointNlu(NluModel):
    """JointBERT-style NLU from a local folder (see the module docstring for the layout).

    Parameters
    ----------
    folder : str or Path
        The model folder, holding ``intent/`` and ``slots/``.
    device : str, default "cpu"
        torch device to run on.

    Raises
    ------
    FileNotFoundError
        When the folder, a sub-folder, its ``config.json``, its safetensors weights or the
        tokenizer is missing (checked before torch is imported).
    """

    def __init__(self, folder: str | Path, device: str = "cpu"):
        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise FileNotFoundError(f"NLU model folder not found: {self.folder}")
        for sub in ("intent", "slots"):
            d = self.folder / sub
            if not (d / "config.json").is_file():
                raise FileNotFoundError(
                    f"{d}/config.json is missing: a JointBERT-style folder needs intent/ "
                    "(sequence classification) and slots/ (token classification) sub-folders, "
                    "each saved with save_pretrained"
                )
            if not any(d.glob("*.safetensors")):
                raise FileNotFoundError(
                    f"{d} has no .safetensors weights; re-save the model with "
                    "save_pretrained() (safetensors), fairdesk does not load pickled weights"
                )
        top = self.folder
        if any((top / f).is_file() for f in _TOKENIZER_FILES):
            self.tokenizer_dir = top
        elif any((top / "intent" / f).is_file() for f in _TOKENIZER_FILES):
            self.tokenizer_dir = top / "intent"
        else:
            raise FileNotFoundError(
                f"no tokenizer in {top} or {top / 'intent'}: save the shared tokenizer there "
                "with tokenizer.save_pretrained()"
            )
        options = dict(_DEFAULTS)
        opt_file = self.folder / "fairdesk_nlu.json"
        if opt_file.is_file():
            try:
                options.update(json.loads(opt_file.read_text(encoding="utf-8")))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{opt_file} is not valid JSON ({exc})") from exc
        self.options = options
        self.device = device
        self.id = f"hf:{self.folder.name}"
        self.fingerprint = _folder_digest(self.folder)
        self._loaded: tuple[Any, Any, Any] | None = None  # (tokenizer, intent, slots)

    def _load(self):
        if self._loaded is None:
            from fairdesk.core.optional import require_torch

            require_torch(f"NLU model {self.id}")
            import torch  # noqa: F401
            from transformers import (
                AutoModelForSequenceClassification,
                AutoModelForTokenClassification,
                AutoTokenizer,
            )

            common = {"local_files_only": True, "trust_remote_code": False}
            tok = AutoTokenizer.from_pretrained(str(self.tokenizer_dir), **common)
            if not getattr(tok, "is_fast", False):
                raise ValueError(
                    f"the tokenizer in {self.tokenizer_dir} is not a fast tokenizer; fairdesk "
                    "needs offsets to recover slot text: save a tokenizer.json"
                )
            intent = AutoModelForSequenceClassification.from_pretrained(
                str(self.folder / "intent"), use_safetensors=True, **common
            )
            slots = AutoModelForTokenClassification.from_pretrained(
                str(self.folder / "slots"), use_safetensors=True, **common
            )
            intent.to(self.device).eval()
            slots.to(self.device).eval()
            self._loaded = (tok, intent, slots)
        return self._loaded

    def _prepare(self, text: object) -> str:
        t = text if isinstance(text, str) else ""
        if self.options.get("lowercase"):
            t = t.lower()
        if self.options.get("strip_punctuation"):
            t = _PUNCT.sub(" ", t)
        return " ".join(t.split())

    @property
    def intents(self) -> list[str]:
        """Intent labels (from intent/config.json)."""
        _, intent, _ = self._load()
        return [intent.config.id2label[i] for i in range(intent.config.num_labels)]

    def parse(self, texts: Sequence[str]) -> list[NluResult]:
        import torch

        tok, intent_model, slot_model = self._load()
        prepared = [self._prepare(t) for t in texts]
        size = max(1, int(self.options.get("batch_size", 32)))
        max_length = int(self.options.get("max_length", 128))
        out: list[NluResult] = []
        for lo in range(0, len(prepared), size):
            batch = prepared[lo : lo + size]
            enc = tok(
                batch,
                padding=True,
                truncation=True,
                max_length=max_length,
                return_offsets_mapping=True,
                return_tensors="pt",
            )
            offsets = enc.pop("offset_mapping").tolist()
            inputs = {k: v.to(self.device) for k, v in enc.items()}
            with torch.inference_mode():
                proba = intent_model(**inputs).logits.float().softmax(-1).cpu()
                tags = slot_model(**inputs).logits.argmax(-1).cpu().tolist()
            for i, text in enumerate(batch):
                k = int(proba[i].argmax())
                words: dict[int, list] = {}
                for pos, wid in enumerate(enc.word_ids(i)):
                    if wid is None:
                        continue
                    start, end = offsets[i][pos]
                    if wid not in words:
                        words[wid] = [start, end, slot_model.config.id2label[tags[i][pos]]]
                    else:
                        words[wid][1] = end
                spans = [tuple(words[w]) for w in sorted(words)]
                out.append(
                    NluResult(
                        str(intent_model.config.id2label[k]),
                        decode_bio(spans, text),
                        float(proba[i, k]),
                    )
                )
        return out
