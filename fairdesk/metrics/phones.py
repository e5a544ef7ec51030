"""English words to ARPAbet phones: CMUdict, with espeak-ng for the words it lacks (docs/METHODS.md, "Phone confusions").

Definitions
-----------
CMUdict
    ``cmudict-en-us.dict`` as shipped by the ``pocketsphinx`` package (found with
    ``pocketsphinx.get_model_path()``): ``word PH PH ...``, variants as ``word(2)``. The first
    pronunciation is used; stress digits are dropped (``AH0`` → ``AH``), so the phone set is
    the 39 ARPAbet phones.
espeak-ng fallback
    A word CMUdict lacks (a name, a spelling mistake of the model, a digit string) is spoken
    by ``espeak-ng -q -v en-us --ipa --sep=_`` and its IPA mapped to ARPAbet by
    :data:`IPA_TO_ARPABET` (longest match first, stress and length marks dropped). A symbol
    outside the table is kept as ``?<symbol>`` so it is visible, never silently dropped.
    No G2P model and nothing downloaded: espeak-ng is a system program the installer adds.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

__all__ = ["IPA_TO_ARPABET", "cmudict", "cmudict_path", "ipa_to_arpabet", "Phonemizer"]

#: IPA (as espeak-ng writes it for en-us) → ARPAbet. Diphthongs and r-coloured vowels first
#: so that the longest match wins; ``ɾ`` (the flap of "butter") is T, ``ʔ`` (glottal stop) T.
IPA_TO_ARPABET: dict[str, tuple[str, ...]] = {
    "aɪə": ("AY", "AH"),
    "aɪɚ": ("AY", "ER"),
    "aʊɚ": ("AW", "ER"),
    "aɪ": ("AY",),
    "aʊ": ("AW",),
    "eɪ": ("EY",),
    "oʊ": ("OW",),
    "əʊ": ("OW",),
    "ɔɪ": ("OY",),
    "oɹ": ("AO", "R"),
    "tʃ": ("CH",),
    "dʒ": ("JH",),
    "ɜɹ": ("ER",),
    "ɝ": ("ER",),
    "ɚ": ("ER",),
    "ɜ": ("ER",),
    "ɑ": ("AA",),
    "ɒ": ("AA",),
    "a": ("AA",),
    "æ": ("AE",),
    "ʌ": ("AH",),
    "ə": ("AH",),
    "ɐ": ("AH",),
    "ɔ": ("AO",),
    "ɛ": ("EH",),
    "e": ("EH",),
    "ɪ": ("IH",),
    "ᵻ": ("IH",),
    "i": ("IY",),
    "o": ("OW",),
    "ʊ": ("UH",),
    "u": ("UW",),
    "ɨ": ("IH",),
    "b": ("B",),
    "d": ("D",),
    "ð": ("DH",),
    "f": ("F",),
    "ɡ": ("G",),
    "g": ("G",),
    "h": ("HH",),
    "k": ("K",),
    "l": ("L",),
    "ɫ": ("L",),
    "m": ("M",),
    "n": ("N",),
    "ŋ": ("NG",),
    "p": ("P",),
    "ɹ": ("R",),
    "r": ("R",),
    "ɾ": ("T",),
    "ʔ": ("T",),
    "s": ("S",),
    "ʃ": ("SH",),
    "t": ("T",),
    "θ": ("TH",),
    "v": ("V",),
    "w": ("W",),
    "j": ("Y",),
    "z": ("Z",),
    "ʒ": ("ZH",),
    "x": ("HH",),
    "ç": ("HH",),
}
#: Marks dropped before mapping: primary/secondary stress, length, syllabicity, ties.
_DROP = re.compile("[ˈˌːˑ̩̯͡‿\u0303-]")
_KEYS = sorted(IPA_TO_ARPABET, key=len, reverse=True)


def cmudict_path() -> Path:
    """The ``cmudict-en-us.dict`` file that the ``pocketsphinx`` package ships
    (:class:`~fairdesk.core.extras.MissingExtra` without it: it comes with fairdesk[asr])."""
    try:
        import pocketsphinx
    except ModuleNotFoundError as exc:
        from ..core.extras import MissingExtra

        raise MissingExtra("the CMU pronouncing dictionary", "asr", exc.name) from None

    base = Path(pocketsphinx.get_model_path())
    for p in (base / "en-us" / "cmudict-en-us.dict", base / "cmudict-en-us.dict"):
        if p.exists():
            return p
    raise FileNotFoundError(f"{base}: no cmudict-en-us.dict; reinstall the pocketsphinx package")


@functools.lru_cache(maxsize=1)
def cmudict() -> dict[str, tuple[str, ...]]:
    """word → phones (first pronunciation, stress digits dropped) of the shipped CMUdict."""
    out: dict[str, tuple[str, ...]] = {}
    with open(cmudict_path(), encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 2:
                continue
            word = parts[0]
            if word.endswith(")") and "(" in word:
                continue  # a variant pronunciation
            out[word.lower()] = tuple(re.sub(r"\d", "", p) for p in parts[1:])
    return out


def ipa_to_arpabet(ipa: str) -> tuple[str, ...]:
    """ARPAbet phones of an espeak-ng IPA string (``_`` or spaces between phones allowed)."""
    out: list[str] = []
    for seg in re.split(r"[_\s]+", ipa):
        s = _DROP.sub("", seg)
        i = 0
        while i < len(s):
            for k in _KEYS:
                if s.startswith(k, i):
                    out.extend(IPA_TO_ARPABET[k])
                    i += len(k)
                    break
            else:
                out.append("?" + s[i])
                i += 1
    return tuple(out)


class Phonemizer:
    """Words → ARPAbet phones; remembers which words came from espeak-ng.

    Attributes
    ----------
    from_espeak : words CMUdict lacked, phonemised by espeak-ng.
    unknown : words neither could phonemise (espeak-ng missing or silent).
    """

    def __init__(self, espeak: str | None = None, voice: str = "en-us"):
        self.dict = cmudict()
        self.espeak = espeak or shutil.which("espeak-ng")
        self.voice = voice
        self.cache: dict[str, tuple[str, ...]] = {}
        self.from_espeak: set[str] = set()
        self.unknown: set[str] = set()

    def _espeak(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        espeak = self.espeak
        if not words or not espeak:
            return {}

        def run(text: str) -> list[str]:
            r = subprocess.run(
                [espeak, "-q", "-v", self.voice, "--ipa", "--sep=_"],
                input=text,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            return [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]

        lines = run("\n".join(words))
        if len(lines) != len(words):  # espeak-ng joined lines: one word at a time
            lines = [" ".join(run(w)) for w in words]
        return {w: ipa_to_arpabet(ln) for w, ln in zip(words, lines, strict=True)}

    def prepare(self, words: Iterable[str]) -> None:
        """Phonemise every new word at once (one espeak-ng call for all the OOV words)."""
        todo = []
        for w in dict.fromkeys(words):
            if w in self.cache:
                continue
            key = w.lower().strip("'")
            if key in self.dict:
                self.cache[w] = self.dict[key]
            else:
                todo.append(w)
        for w, ph in self._espeak(todo).items():
            self.cache[w] = ph
            (self.from_espeak if ph else self.unknown).add(w)
        for w in todo:
            if w not in self.cache:
                self.cache[w] = ()
                self.unknown.add(w)

    def phones(self, word: str) -> tuple[str, ...]:
        """The ARPAbet phones of one word (empty when it cannot be phonemised)."""
        if word not in self.cache:
            self.prepare([word])
        return self.cache[word]
