"""A local Hugging Face model folder: which kind of model it holds, whether it is safe to
load (safetensors only), and on which torch device to run it. Nothing here imports torch
at module level."""

from __future__ import annotations

import json
import os
from pathlib import Path

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
KINDS = ("seq2seq", "ctc", "classifier")


def _offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def detect_kind(folder: str | os.PathLike) -> str:
    """Inspect a model folder and return ``"seq2seq"``, ``"ctc"`` or ``"classifier"``.

    Checks, with messages that say what to do: the folder exists, has ``config.json`` and has
    safetensors weights (pickle-only folders are refused).

    Raises
    ------
    FileNotFoundError, ValueError
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"model folder not found: {folder} (give the folder that save_pretrained wrote)"
        )
    config_path = folder / "config.json"
    files = [p for p in folder.iterdir() if p.is_file()]
    if not config_path.is_file():
        raise FileNotFoundError(
            f"{folder} has no config.json: it is not a transformers model folder. Save the model "
            "with model.save_pretrained(folder, safe_serialization=True) (and its processor with "
            "processor.save_pretrained(folder)), or copy the complete model repository there"
        )
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{config_path} is not valid JSON ({e}); re-save the model") from None
    if (
        (folder / "model.bin").is_file()
        and (folder / "vocabulary.txt").is_file()
        and "architectures" not in config
    ):
        raise ValueError(
            f"{folder} looks like a CTranslate2 model (model.bin + vocabulary.txt), not a "
            f"transformers one: load it as 'ct2:{folder}'"
        )
    if not any(
        p.name.endswith(".safetensors") or p.name.endswith(".safetensors.index.json") for p in files
    ):
        pickles = sorted(p.name for p in files if p.suffix in PICKLE_SUFFIXES)
        if pickles:
            raise ValueError(
                f"{folder} has only pickle weights ({', '.join(pickles)}); fairdesk loads safetensors "
                "only, because loading a pickle can run arbitrary code. Convert once, in an "
                "environment you trust: load the model with from_pretrained(folder) and call "
                "save_pretrained(folder, safe_serialization=True)"
            )
        raise FileNotFoundError(
            f"{folder} has config.json but no weights (*.safetensors); copy the model's "
            "model.safetensors into it, or re-save it with save_pretrained(folder, safe_serialization=True)"
        )
    for index in (p for p in files if p.name.endswith(".safetensors.index.json")):
        check_weight_index(index)
    archs = [str(a) for a in config.get("architectures") or []]
    if any(a.endswith("ForCTC") for a in archs):
        return "ctc"
    if any(a.endswith(("ForSequenceClassification", "ForAudioClassification")) for a in archs):
        return "classifier"
    if any(a.endswith(("ForConditionalGeneration", "ForSpeechSeq2Seq")) for a in archs) or (
        not archs and config.get("is_encoder_decoder")
    ):
        return "seq2seq"
    raise ValueError(
        f"{config_path}: cannot tell what kind of model this is (architectures={archs or 'missing'}, "
        f"model_type={config.get('model_type')!r}); fairdesk supports speech seq2seq "
        "(...ForConditionalGeneration, e.g. Whisper), CTC (...ForCTC, e.g. wav2vec2) and audio "
        "classification (...ForSequenceClassification/...ForAudioClassification) models"
    )


def check_weight_index(index: Path) -> list[str]:
    """The shard files a ``*.safetensors.index.json`` names, each checked: a safetensors file
    (never a pickle, whatever the index says), a plain name inside the model folder, present.

    Raises
    ------
    ValueError
        For an unreadable index, or any shard that is not a safetensors file in the folder.
    """
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        weight_map = data.get("weight_map") if isinstance(data, dict) else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(
            f"{index} is not a readable weight index ({e}); re-save the model "
            "with save_pretrained(folder, safe_serialization=True)"
        ) from None
    if not isinstance(weight_map, dict) or not weight_map:
        raise ValueError(
            f"{index} has no weight_map; re-save the model with "
            "save_pretrained(folder, safe_serialization=True)"
        )
    shards = sorted({str(v) for v in weight_map.values()})
    for name in shards:
        if not name.endswith(".safetensors"):
            raise ValueError(
                f"{index} points at {name!r}, which is not a safetensors file; fairdesk loads "
                "safetensors only, because loading a pickle can run arbitrary code. Convert the "
                "model in an environment you trust: from_pretrained(folder) then "
                "save_pretrained(folder, safe_serialization=True)"
            )
        if "/" in name or "\\" in name or name in (".", "..") or Path(name).is_absolute():
            raise ValueError(
                f"{index} points at {name!r} outside the model folder; the "
                "shards must sit next to the index"
            )
        if not (index.parent / name).is_file():
            raise FileNotFoundError(
                f"{index} names the shard {name!r}, which is missing; copy "
                "every shard of the model into the folder"
            )
    return shards


def resolve_torch_device(device: str, who: str = "the model") -> str:
    """Map ``"auto"`` to ``"cuda"`` when torch has a usable GPU, else ``"cpu"``; ``"cuda"``
    without one is refused (:func:`fairdesk.models.device.resolve_device`)."""
    from .device import resolve_device

    return resolve_device(device, "torch", who)
