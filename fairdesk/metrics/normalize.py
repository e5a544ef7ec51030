"""Text normalisers used before scoring (docs/METHODS.md, "Text normalisation").

* :func:`english` -- Whisper's ``EnglishTextNormalizer`` (package ``whisper-normalizer``), so
  English WER/CER compare with published Whisper numbers. It strips diacritics and spells
  numbers as digits ("seven" -> "7").
* :func:`basic` -- Whisper's ``BasicTextNormalizer`` with diacritics *kept*, for every other
  language. ``remove_diacritics=False`` alone is not enough: the basic normaliser would still
  replace every Unicode mark (category ``M*``) that NFKC cannot compose by a space, which splits
  Yoruba/Igbo words such as "ọ́kụ̀" in two. We therefore also pass ``preserve_marks=True``
  (whisper-normalizer >= 0.1), which keeps combining marks.
* :func:`tone_preserving` -- for diacritic and tone metrics in every language: NFC, lower case,
  punctuation (category ``P*``) replaced by a space, combining marks kept, whitespace collapsed.

After :func:`english` and :func:`basic`, adjacent digit-only tokens are joined on both sides
(:func:`join_digits`, docs/METHODS.md, "Text normalisation"): Whisper's English normaliser joins spelled-out digit runs
("six eight zero two" -> "6802") but leaves written ones apart ("6 8 0 2"), which would score a
correct transcript as four errors.

Every normaliser maps ``None``, NaN and non-text "missing" values to the empty string and always
returns a stripped string with single spaces.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable

from ..core.values import as_text

__all__ = [
    "NORMALIZERS",
    "as_text",
    "basic",
    "choose_normaliser",
    "english",
    "get_normalizer",
    "is_english",
    "join_digits",
    "label_text",
    "normalizer_for",
    "tone_preserving",
]

_WS = re.compile(r"\s+")
_english_impl = None
_basic_impl = None


def label_text(value) -> str:
    """A class label as a stripped string; integral floats print as integers.

    pandas turns an integer label column with a missing value into floats (``1`` -> ``1.0``);
    this keeps ``1.0`` and ``1`` the same label. Missing values give ``""``.
    """
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return as_text(value).strip()


def _collapse(s: str) -> str:
    return _WS.sub(" ", s).strip()


_DIGIT_TOKEN = re.compile(r"^\d+$")
_LEADING_ZERO = re.compile(r"(?<![\w.,])0\d+(?![\w.,])")


def join_digits(text: str, one_is_digit: bool = False) -> str:
    """Join runs of adjacent digit-only tokens: ``"call 6 8 0 2 now"`` -> ``"call 6802 now"``.

    Parameters
    ----------
    text : normalised text (single spaces).
    one_is_digit : treat the token ``one`` inside a run of two or more digit tokens as
        ``1``. Whisper's English normaliser writes every standalone ``1`` as ``one`` ("0 3 5
        1" -> "0 3 5 one") but joins a spelled run ("zero three five one" -> "0351"), so
        without this the two would differ.

    Returns
    -------
    str
    """
    toks = text.split()
    out: list[str] = []
    run: list[str] = []

    def digit(t: str) -> bool:
        return bool(_DIGIT_TOKEN.match(t)) or (one_is_digit and t == "one")

    def flush():
        if len(run) >= 2:
            out.append("".join("1" if t == "one" else t for t in run))
        else:
            out.extend(run)
        run.clear()

    for t in toks:
        if digit(t):
            run.append(t)
        else:
            flush()
            out.append(t)
    flush()
    return " ".join(out)


def english(text) -> str:
    """Normalise English text with Whisper's ``EnglishTextNormalizer``.

    Parameters
    ----------
    text : str or None/NaN (treated as empty).

    Returns
    -------
    str
        Lower case, punctuation removed, British spellings and number words standardised
        (``"Seven"`` -> ``"7"``), diacritics removed, single spaces, stripped. Fixes on top
        of Whisper's: tokens made only of punctuation (the ``"."`` Whisper leaves from an
        ellipsis) are dropped; adjacent digit tokens are joined (:func:`join_digits`) and
        leading zeros kept, so "6 8 0 2" equals "six eight zero two" and "0351" equals
        "zero three five one".
    """
    s = as_text(text)
    return _english_str(s) if s else ""


def _split_leading_zeros(s: str) -> str:
    """``0351`` -> ``0 3 5 1``: Whisper's number parser drops leading zeros ("0351" -> "351")
    while it keeps a spelled "zero three five one" as "0351"; spaced digits survive it and
    are joined again afterwards."""
    return _LEADING_ZERO.sub(lambda m: " ".join(m.group(0)), s)


@functools.lru_cache(maxsize=1 << 16)
def _english_str(s: str) -> str:
    global _english_impl
    if _english_impl is None:
        from whisper_normalizer.english import EnglishTextNormalizer

        _english_impl = EnglishTextNormalizer()
    # Whisper's normaliser leaves a lone "." from an ellipsis ("well..." -> "well ."); a token
    # made only of punctuation is not a word, so drop it.
    out = " ".join(t for t in _english_impl(_split_leading_zeros(s)).split() if not _all_punct(t))
    return join_digits(out, one_is_digit=True)


def _all_punct(token: str) -> bool:
    return all(unicodedata.category(c).startswith("P") for c in token)


def basic(text) -> str:
    """Normalise non-English text with Whisper's ``BasicTextNormalizer``, diacritics kept.

    Parameters
    ----------
    text : str or None/NaN (treated as empty).

    Returns
    -------
    str
        NFKC, lower case, bracketed/parenthesised spans removed, symbols and punctuation
        replaced by spaces, combining marks kept, adjacent digit tokens joined, single
        spaces, stripped.
    """
    s = as_text(text)
    return _basic_str(s) if s else ""


@functools.lru_cache(maxsize=1 << 16)
def _basic_str(s: str) -> str:
    global _basic_impl
    if _basic_impl is None:
        from whisper_normalizer.basic import BasicTextNormalizer

        try:
            _basic_impl = BasicTextNormalizer(remove_diacritics=False, preserve_marks=True)
        except TypeError as exc:  # older whisper-normalizer
            raise RuntimeError(
                "whisper-normalizer is too old: BasicTextNormalizer has no 'preserve_marks' "
                "option, so it would split words at every combining diacritic. Upgrade it "
                "with `pip install -U 'whisper-normalizer>=0.1'`."
            ) from exc
    return join_digits(_collapse(_basic_impl(s)))


def tone_preserving(text) -> str:
    """Normalise text for diacritic and tone metrics (docs/METHODS.md, "Text normalisation").

    Parameters
    ----------
    text : str or None/NaN (treated as empty).

    Returns
    -------
    str
        Unicode NFC, lower case, every punctuation character (category ``P*``) replaced by a
        space, combining marks and symbols kept, whitespace collapsed, stripped.
    """
    s = as_text(text)
    if not s:
        return ""
    s = unicodedata.normalize("NFC", s).lower()
    s = "".join(" " if unicodedata.category(c).startswith("P") else c for c in s)
    return _collapse(unicodedata.normalize("NFC", s))


def is_english(language) -> bool:
    """True for ``"en"``, ``"en-GB"``, ``"en_us"``, ``"eng"``, ``"english"`` (any case)."""
    lang = as_text(language).strip().lower()
    return lang in ("en", "eng", "english") or lang.startswith(("en-", "en_"))


def normalizer_for(language) -> Callable[[object], str]:
    """The WER/CER normaliser for a language code.

    Parameters
    ----------
    language : BCP-47-like code, e.g. ``"en"``, ``"en-GB"``, ``"yo"``, ``"ig"``.

    Returns
    -------
    callable
        :func:`english` for English, :func:`basic` for every other language.
    """
    return english if is_english(language) else basic


#: Normalisers by the names used in run settings (``AuditSettings.normaliser``).
NORMALIZERS: dict[str, Callable[[object], str]] = {
    "whisper-english": english,
    "whisper-basic": basic,
    "tone-preserving": tone_preserving,
}


def get_normalizer(name=None, language="en") -> Callable[[object], str]:
    """Resolve a normaliser from a settings name, a callable, or the language.

    Parameters
    ----------
    name : None (choose by ``language``), ``"auto"`` (same), one of ``NORMALIZERS``
        (``"whisper-english"``, ``"whisper-basic"``, ``"tone-preserving"``), or a callable
        ``str -> str``.
    language : used when ``name`` is None or ``"auto"``.

    Returns
    -------
    callable

    Raises
    ------
    ValueError
        For an unknown name.
    """
    if name is None or name == "auto":
        return normalizer_for(language)
    if callable(name):
        return name
    try:
        return NORMALIZERS[name]
    except KeyError:
        raise ValueError(
            f"unknown text normaliser {name!r}; use one of {sorted(NORMALIZERS)} or 'auto' "
            "(Whisper English for English, Whisper basic with diacritics otherwise)."
        ) from None


#: Normalised texts remembered per built-in normaliser: the texts the scoring normalised
#: (in worker processes too) are not normalised again by the hallucination flags and the
#: text blocks of the same run. Cleared when it would pass :data:`MEMO_LIMIT` entries.
_MEMO: dict[Callable, dict[str, str]] = {}
MEMO_LIMIT = 2_000_000


def remember(norm: Callable, raw, normed) -> None:
    """Keep ``normed[i] = norm(raw[i])`` for :func:`memoised` (built-in normalisers only)."""
    if norm not in NORMALIZERS.values():
        return
    memo = _MEMO.setdefault(norm, {})
    raw = list(raw)
    if len(memo) + len(raw) > MEMO_LIMIT:
        memo.clear()
    memo.update((r, n) for r, n in zip(raw, normed, strict=True) if type(r) is str)


def memoised(norm: Callable) -> Callable[[object], str]:
    """``norm`` normalising each distinct text once: a built-in normaliser answers from the
    texts remembered process-wide (:func:`remember`), another callable from a memo of its
    own that lives as long as the returned function."""
    memo = _MEMO.setdefault(norm, {}) if norm in NORMALIZERS.values() else {}

    def cached(text) -> str:
        if type(text) is not str:
            return norm(text)
        try:
            return memo[text]
        except KeyError:
            pass
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        out = memo[text] = norm(text)
        return out

    return cached


#: Share of ASCII letters in the references at or above which ``auto`` picks English.
ENGLISH_ASCII_SHARE = 0.99


def _letter_counts(text: str) -> tuple[int, int]:
    """(letters, plain ASCII letters) of a text; a letter carrying a mark is not plain."""
    s = unicodedata.normalize("NFC", text)
    letters = plain = 0
    for i, ch in enumerate(s):
        if not unicodedata.category(ch).startswith("L"):
            continue
        letters += 1
        marked = i + 1 < len(s) and unicodedata.category(s[i + 1]).startswith("M")
        plain += ch.isascii() and not marked
    return letters, plain


def choose_normaliser(references, language=None) -> tuple[str, dict]:
    """The WER/CER normaliser of a run, decided once from all its references (docs/METHODS.md, "Text normalisation").

    Parameters
    ----------
    references : every reference text of the run (None/NaN ignored).
    language : the dataset's or user's language; None, ``""`` or ``"auto"`` decides from
        the text, any other code decides by language (English → Whisper English).

    Returns
    -------
    (name, basis)
        ``"whisper-english"`` when at least 99% of the reference letters are plain ASCII
        (a letter with a combining mark, e.g. "ọ́", is not), else ``"whisper-basic"``
        (Whisper's basic normaliser with every mark kept, so tone marks count); and what
        decided it, as numbers to record with the run (the words are the presentation's):
        ``{"basis": "language", "language": code, "english": bool}``,
        ``{"basis": "no_letters"}`` or ``{"basis": "ascii_share", "share": plain share,
        "letters": n, "threshold": ENGLISH_ASCII_SHARE, "english": bool}``.
    """
    lang = as_text(language).strip()
    if lang and lang.lower() != "auto":
        english = bool(is_english(lang))
        name = "whisper-english" if english else "whisper-basic"
        return name, {"basis": "language", "language": lang, "english": english}
    letters = plain = 0
    for r in references:
        t = as_text(r)
        if t:
            a, b = _letter_counts(t)
            letters += a
            plain += b
    if letters == 0:
        return "whisper-english", {"basis": "no_letters"}
    share = plain / letters
    english = share >= ENGLISH_ASCII_SHARE
    basis = {"basis": "ascii_share", "share": share, "letters": letters}
    basis.update(threshold=ENGLISH_ASCII_SHARE, english=english)
    return ("whisper-english" if english else "whisper-basic"), basis
