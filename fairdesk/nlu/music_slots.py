"""Slot filling for the music domain: carrier phrases first, fuzzy gazetteer second.

The value of a slot is always the words of the *text* (normalised), never the gazetteer entry
they resemble: the gazetteer only decides where an entity is and which kind it is. So a
misheard name ("michael jason") yields a wrong value and fails exact match, as it would for a
real assistant that tags the transcript, instead of being silently corrected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rapidfuzz import fuzz, process

__all__ = ["MUSIC_SLOTS", "MusicSlotFiller"]

MUSIC_SLOTS = ("artist", "song", "album", "playlist")

_LEAD = (
    r"(?:(?:hey|ok|okay|please|so|now|um|uh|just|and|can you|could you|would you|will you|"
    r"i want you to|i would like you to|id like you to)\s+)*"
)
_VERB = (
    r"(?:start playing|start|play me|play|put on|queue up|queue|shuffle|listen to|"
    r"i want to hear|i wanna hear|i want to listen to|i would like to hear|"
    r"i would like to listen to|id like to hear|id like to listen to|let me hear|lets hear|"
    r"lets listen to|can i hear|can we hear|give me|i need)"
)
_PREFIX = re.compile(rf"^{_LEAD}{_VERB}\s+(?P<tail>.+)$")
_TRAILER = re.compile(r"\s+(?:please|now|for me|thanks|thank you|right now|again)$")

_GENERIC = r"(?:some |a few |a little |any |a bit of |more |a song |a track )?"
_MUSIC_WORD = r"(?:music|songs|song|tracks|track|something|anything|stuff|hits|tunes)"

# (regex on the tail, kind of the "work" group or None). Order matters: first match wins.
_PATTERNS: list[tuple[re.Pattern[str], str | None]] = [
    (re.compile(r"^(?:my |the |our |a )?playlist (?:called |named )?(?P<playlist>.+)$"), None),
    (re.compile(r"^(?:my |the |our )?(?P<playlist>.+?) playlist$"), None),
    (
        re.compile(
            r"^(?:the )?(?:song |track )?(?:called |named )?(?P<song>.+?) (?:from|off|on) "
            r"(?:the )?album (?P<album>.+?)(?: (?:by|from) (?P<artist>.+))?$"
        ),
        None,
    ),
    (
        re.compile(
            r"^(?:the |an |my )?(?:album|record) (?:called |named )?(?P<album>.+?)"
            r"(?: (?:by|from) (?P<artist>.+))?$"
        ),
        None,
    ),
    (
        re.compile(
            r"^(?:the |a )?(?:song|track) (?:called |named )?(?P<song>.+?)"
            r"(?: (?:by|from) (?P<artist>.+))?$"
        ),
        None,
    ),
    (re.compile(rf"^{_GENERIC}{_MUSIC_WORD}(?: else)? (?:by|from) (?P<artist>.+)$"), None),
    (re.compile(rf"^{_GENERIC}{_MUSIC_WORD}$"), None),
    (re.compile(r"^(?P<work>.+?) by (?P<artist>.+)$"), "song_or_album"),
    (re.compile(r"^(?P<work>.+)$"), "any"),
]

_WORK_KINDS = {"song_or_album": ("song", "album"), "any": ("song", "album", "artist", "playlist")}


class MusicSlotFiller:
    """Find artist / song / album / playlist slots in normalised text.

    Parameters
    ----------
    gazetteer : mapping of str to list of str
        Slot name -> known (normalised) values, gathered from the labelled prompts.
    type_threshold : float, default 60
        A span whose best fuzzy score (``rapidfuzz.fuzz.ratio``, 0-100) against every list is
        below this is not typed by the gazetteer: it becomes a ``song``.
    scan_threshold : float, default 85
        Score a word window needs to count as an entity when no carrier phrase applies.
    """

    def __init__(
        self,
        gazetteer: Mapping[str, Sequence[str]],
        type_threshold: float = 60.0,
        scan_threshold: float = 85.0,
    ):
        self.gazetteer = {k: list(v) for k, v in gazetteer.items() if k in MUSIC_SLOTS and v}
        self.type_threshold = type_threshold
        self.scan_threshold = scan_threshold

    def best_kind(self, span: str, kinds: Sequence[str]) -> tuple[str, float]:
        """The gazetteer list that ``span`` resembles most, with its score (ties: first kind)."""
        best, best_score = kinds[0], -1.0
        for kind in kinds:
            choices = self.gazetteer.get(kind)
            if not choices:
                continue
            hit = process.extractOne(span, choices, scorer=fuzz.ratio)
            if hit is not None and hit[1] > best_score:
                best, best_score = kind, float(hit[1])
        return best, best_score

    def fill(self, text: str, allowed: Sequence[str] = MUSIC_SLOTS) -> dict[str, str]:
        """Slots of one normalised text (see :func:`fairdesk.nlu.normalize.normalize_text`).

        Parameters
        ----------
        text : str
        allowed : sequence of str
            Slot names the intent can carry; others are dropped.

        Returns
        -------
        dict[str, str]
        """
        m = _PREFIX.match(text)
        if m:
            slots = self._from_tail(self._strip_trailer(m.group("tail")), allow_any=True)
        else:
            slots = self._from_tail(self._strip_trailer(text), allow_any=False)
            if not slots:
                slots = self._scan(text)
        return {k: v for k, v in slots.items() if k in allowed and v}

    @staticmethod
    def _strip_trailer(tail: str) -> str:
        while True:
            new = _TRAILER.sub("", tail)
            if new == tail or not new:
                return tail
            tail = new

    def _from_tail(self, tail: str, allow_any: bool) -> dict[str, str]:
        for pattern, work_kind in _PATTERNS:
            if work_kind == "any" and not allow_any:
                return {}
            m = pattern.match(tail)
            if not m:
                continue
            slots = {k: v for k, v in m.groupdict().items() if v and k != "work"}
            work = m.groupdict().get("work")
            if work:
                assert work_kind is not None  # a pattern with a work group names its kinds
                kind, score = self.best_kind(work, _WORK_KINDS[work_kind])
                slots[kind if score >= self.type_threshold else "song"] = work
            return slots
        return {}

    def _scan(self, text: str) -> dict[str, str]:
        """Entities anywhere in the text by fuzzy match of word windows (no carrier phrase)."""
        words = text.split()
        candidates: list[tuple[float, int, int, str]] = []
        for kind, choices in self.gazetteer.items():
            lengths = {len(c.split()) for c in choices}
            spans = {
                (i, i + n)
                for L in lengths
                for n in (L - 1, L, L + 1)
                if n >= 1
                for i in range(len(words) - n + 1)
            }
            if not spans:
                continue
            spans_l = sorted(spans)
            windows = [" ".join(words[i:j]) for i, j in spans_l]
            scores = process.cdist(windows, choices, scorer=fuzz.ratio).max(axis=1)
            for (i, j), s in zip(spans_l, scores, strict=True):
                if s >= self.scan_threshold:
                    candidates.append((float(s), j - i, i, kind))
        slots: dict[str, str] = {}
        taken: set[int] = set()
        for _score, n, i, kind in sorted(candidates, key=lambda c: (-c[0], -c[1], c[2])):
            span = set(range(i, i + n))
            if kind in slots or span & taken:
                continue
            slots[kind] = " ".join(words[i : i + n])
            taken |= span
        return slots
