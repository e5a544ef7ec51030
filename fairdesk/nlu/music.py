"""The embedded music-domain NLU used by the demo (``get_nlu("demo-music")``).

Intent: a multinomial logistic regression over TF-IDF word 1-2-grams and character 2-4-grams,
trained by ``resources/nlu/train_music_nlu.py`` from the demo's labelled prompts plus
paraphrase templates, and evaluated here with numpy from the coefficients saved in
``resources/nlu/music_nlu.json`` (plain JSON: safe to load, independent of library versions).

Slots: carrier phrases ("play X by Y", "the album X", "my X playlist") with a fuzzy gazetteer
of the prompts' entities deciding the kind of an ambiguous span
(:class:`fairdesk.nlu.music_slots.MusicSlotFiller`); number slots (``volume``) take the first
number in the text, with number words read as digits.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from fairdesk.nlu.base import NluModel, NluResult
from fairdesk.nlu.features import LinearTextClassifier
from fairdesk.nlu.music_slots import MUSIC_SLOTS, MusicSlotFiller
from fairdesk.nlu.normalize import normalize_text

__all__ = ["ARTIFACT_FORMAT", "MusicNlu", "default_artifact_path"]

ARTIFACT_FORMAT = "fairdesk-music-nlu"
ARTIFACT_VERSION = 1
_NUMBER = re.compile(r"\b\d+\b")


def default_artifact_path() -> Path:
    """Where the shipped artifact lives: ``<resources>/nlu/music_nlu.json``."""
    from fairdesk.paths import resources_dir

    return resources_dir() / "nlu" / "music_nlu.json"


class MusicNlu(NluModel):
    """Intent classifier + slot filler for the demo's music domain.

    Parameters
    ----------
    classifier : LinearTextClassifier
        Intent model over normalised text.
    gazetteer : mapping of str to list of str
        Slot name -> known values (normalised).
    intent_slots : mapping of str to list of str
        Intent -> slot names it can carry (intents absent here carry none).
    numeric_slots : sequence of str
        Slot names whose value is a number (filled with the first number in the text).
    fingerprint : str
        Digest of the artifact.
    """

    id = "demo-music"

    def __init__(
        self,
        classifier: LinearTextClassifier,
        gazetteer: Mapping[str, Sequence[str]],
        intent_slots: Mapping[str, Sequence[str]],
        numeric_slots: Sequence[str],
        fingerprint: str,
    ):
        self.classifier = classifier
        self.filler = MusicSlotFiller(gazetteer)
        self.intent_slots = {k: list(v) for k, v in intent_slots.items()}
        self.numeric_slots = list(numeric_slots)
        self.fingerprint = fingerprint

    @classmethod
    def load(cls, path: str | Path | None = None) -> MusicNlu:
        """Load the JSON artifact written by ``resources/nlu/train_music_nlu.py``.

        Parameters
        ----------
        path : str or Path, optional
            Defaults to :func:`default_artifact_path`.
        """
        path = Path(path) if path is not None else default_artifact_path()
        if not path.is_file():
            raise FileNotFoundError(
                f"music NLU artifact not found at {path}; build it with "
                "`python resources/nlu/train_music_nlu.py`"
            )
        raw = path.read_bytes()
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON ({exc}); rebuild it") from exc
        return cls.from_dict(data, fingerprint=hashlib.sha256(raw).hexdigest())

    @classmethod
    def from_dict(cls, data: dict, fingerprint: str | None = None) -> MusicNlu:
        """Build from the artifact's parsed JSON."""
        if data.get("format") != ARTIFACT_FORMAT or data.get("version") != ARTIFACT_VERSION:
            raise ValueError(
                f"not a {ARTIFACT_FORMAT} v{ARTIFACT_VERSION} artifact (format="
                f"{data.get('format')!r}, version={data.get('version')!r}); rebuild it with "
                "resources/nlu/train_music_nlu.py"
            )
        if fingerprint is None:
            blob = json.dumps(data, sort_keys=True).encode()
            fingerprint = hashlib.sha256(blob).hexdigest()
        return cls(
            LinearTextClassifier.from_dict(data["classifier"]),
            data["gazetteer"],
            data["intent_slots"],
            data.get("numeric_slots", []),
            fingerprint,
        )

    @property
    def intents(self) -> list[str]:
        """Intent labels the classifier knows."""
        return list(self.classifier.classes)

    def parse(self, texts: Sequence[str]) -> list[NluResult]:
        norm = [normalize_text(t) if isinstance(t, str) else "" for t in texts]
        if not norm:
            return []
        proba = self.classifier.predict_proba(norm)
        out = []
        for text, p in zip(norm, proba, strict=True):
            k = int(p.argmax())
            intent = self.classifier.classes[k]
            out.append(NluResult(intent, self.slots(text, intent), float(p[k])))
        return out

    def slots(self, text: str, intent: str) -> dict[str, str]:
        """Slots of one normalised text given its intent."""
        names = self.intent_slots.get(intent, [])
        if not names or not text:
            return {}
        slots: dict[str, str] = {}
        numeric = [n for n in names if n in self.numeric_slots]
        if numeric:
            m = _NUMBER.search(text)
            if m:
                slots[numeric[0]] = m.group(0)
        music = [n for n in names if n in MUSIC_SLOTS]
        if music:
            slots.update(self.filler.fill(text, music))
        return slots
