"""Text and slot-value normalisation for the NLU stage, kept in one place.

The NLU reads its input after this normalisation, and returns slot values in this form.
Exact match itself (EM, docs/METHODS.md, "Exact match and classification") has one implementation,
:func:`fairdesk.metrics.slots.exact_match` (the one the audit uses);
:func:`exact_match` and :func:`slots_match` here call it. The NLU's normalisation:

- Unicode NFKC, lower-case, diacritics removed (``beyoncé`` = ``beyonce``; EM is an
  English music-domain metric, diacritic metrics use their own tone-preserving normaliser);
- ``&`` reads ``and``; apostrophes inside words are dropped (``don't`` = ``dont``); any other
  punctuation becomes a space; runs of whitespace collapse;
- number words become digits (``twenty five`` = ``twenty-five`` = ``25``, ``seven`` = ``7``);
  :func:`digits_to_words` goes the other way;
- optionally (on by default for slot values) British spellings become American ones with
  Whisper's ``EnglishSpellingNormalizer`` (``rumours`` = ``rumors``), the same mapping the WER
  normaliser applies, so a spelling convention never counts as a misrecognised entity.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache

__all__ = [
    "digits_to_words",
    "exact_match",
    "normalize_slot_value",
    "normalize_slots",
    "normalize_text",
    "slots_match",
    "words_to_digits",
]

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9,
}  # fmt: skip
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_UNIT_NAMES = {v: k for k, v in {**_UNITS, **_TEENS}.items()}
_TENS_NAMES = {v: k for k, v in _TENS.items()}

_APOSTROPHES = re.compile(r"(?<=\w)['’‘`´](?=\w)")
_NON_WORD = re.compile(r"[^\w\s]|_")
_SPACES = re.compile(r"\s+")


def _kind(word: str) -> str | None:
    if word in _UNITS:
        return "unit"
    if word in _TEENS:
        return "teen"
    if word in _TENS:
        return "tens"
    if word == "hundred":
        return "hundred"
    if word == "thousand":
        return "thousand"
    return None


# Which kind of word may follow which inside one spoken number.
_FOLLOWS = {
    None: {"unit", "teen", "tens"},
    "unit": {"hundred", "thousand"},
    "teen": {"hundred", "thousand"},
    "tens": {"unit", "thousand"},
    "hundred": {"unit", "teen", "tens", "thousand", "and"},
    "thousand": {"unit", "teen", "tens", "and"},
    "and": {"unit", "teen", "tens"},
}


def words_to_digits(text: str) -> str:
    """Replace spoken English cardinal numbers with digits.

    Parameters
    ----------
    text : str
        Lower-case text whose words are separated by single spaces (as produced by
        :func:`normalize_text` before this step).

    Returns
    -------
    str
        The text with each maximal run of number words replaced by its value, e.g.
        ``"set the volume to twenty five"`` -> ``"set the volume to 25"``,
        ``"one hundred and five"`` -> ``"105"``. ``zero`` is only read on its own; a trailing
        ``and`` that is not followed by a number word is kept as a word.
    """
    words = text.split(" ") if text else []
    out: list[str] = []
    i = 0
    while i < len(words):
        kind = _kind(words[i])
        if kind not in _FOLLOWS[None]:
            out.append(words[i])
            i += 1
            continue
        total, current, last = 0, 0, None
        j = i
        while j < len(words):
            w = words[j]
            k = "and" if w == "and" else _kind(w)
            if k is None or k not in _FOLLOWS[last]:
                break
            if k == "and" and (j + 1 >= len(words) or _kind(words[j + 1]) not in _FOLLOWS["and"]):
                break
            if k == "unit":
                current += _UNITS[w]
            elif k == "teen":
                current += _TEENS[w]
            elif k == "tens":
                current += _TENS[w]
            elif k == "hundred":
                current *= 100
            elif k == "thousand":
                total += max(current, 1) * 1000
                current = 0
            last = k
            j += 1
            if w == "zero":
                break
        out.append(str(total + current))
        i = j
    return " ".join(out)


def _below_thousand(n: int) -> list[str]:
    words: list[str] = []
    if n >= 100:
        words += [_UNIT_NAMES[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        words.append(_TENS_NAMES[n - n % 10])
        n %= 10
        if n:
            words.append(_UNIT_NAMES[n])
    elif n or not words:
        words.append(_UNIT_NAMES[n])
    return words


def digits_to_words(text: str) -> str:
    """Spell out every whole number from 0 to 999,999 written in digits.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    str
        The text with each run of digits (``7``, ``25``, ``105``) replaced by English words
        (``seven``, ``twenty five``, ``one hundred five``); larger numbers are left as digits.
        ``words_to_digits(digits_to_words(s))`` gives back ``s`` for normalised text.
    """

    def spell(match: re.Match[str]) -> str:
        n = int(match.group(0))
        if n >= 1_000_000:
            return match.group(0)
        words = []
        if n >= 1000:
            words += _below_thousand(n // 1000) + ["thousand"]
            n %= 1000
            if n:
                words += _below_thousand(n)
        else:
            words = _below_thousand(n)
        return " ".join(words)

    return re.sub(r"\d+", spell, text)


@lru_cache(maxsize=1)
def _spelling():
    from whisper_normalizer.english import EnglishSpellingNormalizer

    return EnglishSpellingNormalizer()


def normalize_text(text: str | None, *, numbers: bool = True, spelling: bool = False) -> str:
    """Normalise text for the NLU stage and for slot comparison.

    Parameters
    ----------
    text : str or None
        Any text; ``None`` (or NaN) gives ``""``.
    numbers : bool, default True
        Replace number words with digits (:func:`words_to_digits`).
    spelling : bool, default False
        Map British spellings to American ones (Whisper's ``EnglishSpellingNormalizer``).

    Returns
    -------
    str
        Lower-case words without diacritics or punctuation, separated by single spaces.
    """
    if text is None or not isinstance(text, str):
        return ""
    t = unicodedata.normalize("NFKD", text)
    t = "".join(c for c in t if not unicodedata.combining(c))
    t = unicodedata.normalize("NFKC", t).lower()
    t = t.replace("&", " and ")
    t = _APOSTROPHES.sub("", t)
    t = _NON_WORD.sub(" ", t)
    t = _SPACES.sub(" ", t).strip()
    if spelling and t:
        t = _spelling()(t)
    if numbers:
        t = words_to_digits(t)
    return t


def normalize_slot_value(value: object) -> str:
    """Normalise one slot value for exact-match comparison.

    Parameters
    ----------
    value : object
        A slot value (numbers such as ``7`` are read as text).

    Returns
    -------
    str
        :func:`normalize_text` with number words as digits and American spellings.
    """
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return normalize_text(str(value), numbers=True, spelling=True)


def normalize_slots(slots: Mapping[str, object] | None) -> dict[str, str]:
    """Normalise a slot dictionary: names stripped and lower-cased, values normalised.

    Parameters
    ----------
    slots : mapping or None
        Slot name -> value. Slots whose value normalises to ``""`` are dropped (an empty slot
        is no slot).

    Returns
    -------
    dict[str, str]
    """
    out: dict[str, str] = {}
    for name, value in (slots or {}).items():
        v = normalize_slot_value(value)
        if v:
            out[str(name).strip().lower()] = v
    return out


def slots_match(
    reference: Mapping[str, object] | None, hypothesis: Mapping[str, object] | None
) -> bool:
    """Whether two slot dictionaries are equal as exact match compares them.

    Every reference slot must be present with an equal value, and the hypothesis must hold
    no extra slot (a spurious slot changes what the assistant does). The comparison is
    :func:`fairdesk.metrics.slots.slot_diff`, the one the audit's EM uses.
    """
    from fairdesk.metrics.slots import slot_diff

    return all(d.status == "ok" for d in slot_diff(reference, hypothesis))


def exact_match(
    ref_intent: str | None,
    ref_slots: Mapping[str, object] | None,
    hyp_intent: str | None,
    hyp_slots: Mapping[str, object] | None,
) -> int:
    """Exact match of one utterance (docs/METHODS.md, "Exact match and classification"; Sekkat et al. 2024), in the NLU's argument order.

    The same function the audit's EM uses, :func:`fairdesk.metrics.slots.exact_match`
    (English value normaliser), so the NLU tests and the audit cannot disagree.

    Returns
    -------
    int
        1 when the intents and every slot match, else 0.
    """
    from fairdesk.metrics.slots import exact_match as _exact_match

    return _exact_match(ref_intent, hyp_intent, ref_slots, hyp_slots, "en")
