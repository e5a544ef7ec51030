"""Reading ELAN and Praat annotation files as their own programs do, with a message for
every fault that names the file, the line or annotation, and what to do.

* :func:`textgrid_tiers` reads Praat's long and short text formats with Praat's own rule:
  the file is a sequence of whitespace-separated tokens, of which only numbers (a leading
  minus sign kept), quoted strings (``""`` inside is one quote) and the ``<exists>`` flag
  count; labels such as ``xmin =`` or ``intervals [1]:`` are skipped. Every interval is
  returned, overlapping or not, so that one bad interval can be refused alone. UTF-8 and
  UTF-16 (with its byte-order mark, as Praat writes files with non-ASCII letters) are read;
  another encoding is refused with the line of its first undecodable byte.
* :func:`eaf_document` opens an ELAN file with pympi, adding the schema attribute that pympi
  needs when the file lacks it (ELAN itself does not), and :func:`eaf_intervals` turns a
  tier's alignable annotations into ``(start s, end s, text)``: an unaligned time slot (no
  ``TIME_VALUE``, legal in ELAN) gets its time by interpolation between the aligned slots
  around it in the file's time order, as ELAN places it; an annotation whose slot is not
  defined, or cannot be placed, is refused with its id.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["SessionFileError", "eaf_document", "eaf_intervals", "textgrid_tiers"]


class SessionFileError(ValueError):
    """A whole annotation file that cannot be read (the message says why and what to do)."""


# -- Praat ----------------------------------------------------------------------------------
_TOKEN = re.compile(r'"((?:[^"]|"")*)"|(\S+)', re.S)
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def _decode(raw: bytes, path: Path) -> str:
    if not raw.strip():
        raise SessionFileError("the file is empty; re-save the TextGrid from Praat")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SessionFileError(
            f"line {line} holds byte 0x{raw[exc.start]:02X}, which is not UTF-8 (the file is "
            "probably Latin-1 or Windows-1252, as older Praat versions wrote); open it in "
            "Praat and save it again (Praat writes UTF-8 or UTF-16), or convert it with "
            f"iconv -f latin1 -t utf-8 {path.name}"
        ) from None


def _tokens(text: str):
    """(kind, value, line) of the tokens that count: 'n' numbers, 's' strings, 'f' flags."""
    line_starts = [m.start() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        import bisect

        return bisect.bisect_left(line_starts, pos) + 1

    for m in _TOKEN.finditer(text):
        if m.group(1) is not None:
            yield "s", m.group(1).replace('""', '"'), line_of(m.start())
            continue
        tok = m.group(2)
        if _NUMBER.match(tok):
            yield "n", float(tok), line_of(m.start())
        elif tok in ("<exists>", "<absent>"):
            yield "f", tok, line_of(m.start())


class _Reader:
    def __init__(self, tokens):
        self.toks = list(tokens)
        self.i = 0

    def take(self, kind: str, what: str):
        if self.i >= len(self.toks):
            raise SessionFileError(
                f"the file ends where {what} should follow; it is cut short: re-save it from Praat"
            )
        k, v, line = self.toks[self.i]
        if k != kind:
            want = {"n": "a number", "s": "a quoted text", "f": "<exists>"}[kind]
            raise SessionFileError(
                f"line {line}: {want} ({what}) expected, found {v!r}; re-save the TextGrid "
                "from Praat"
            )
        self.i += 1
        return v, line


def textgrid_tiers(path) -> dict[str, tuple[str, list[tuple[float, float, str, int]]]]:
    """``{tier name: (class, entries)}`` of a Praat TextGrid (long or short text format).

    ``entries`` are ``(start, end, label, line)`` for an IntervalTier and ``(time, time,
    label, line)`` for a TextTier, in the file's order, every one of them (overlapping,
    reversed or negative ones too: the caller refuses those alone).

    Raises
    ------
    SessionFileError
        The file is empty, not a TextGrid, not UTF-8/UTF-16, or cut short.
    """
    path = Path(path)
    text = _decode(path.read_bytes(), path)
    r = _Reader(_tokens(text))
    kind, _ = r.take("s", "the file type")
    cls, _ = r.take("s", "the object class")
    if kind != "ooTextFile" or cls != "TextGrid":
        raise SessionFileError(
            f"not a Praat TextGrid (it says {kind!r} / {cls!r}, not 'ooTextFile' / 'TextGrid'); "
            "give a TextGrid saved as a text file from Praat"
        )
    r.take("n", "xmin")
    r.take("n", "xmax")
    if r.i < len(r.toks) and r.toks[r.i][0] == "f":
        flag, _ = r.take("f", "tiers?")
        if flag == "<absent>":
            return {}
    n_tiers, _ = r.take("n", "the number of tiers")
    out: dict[str, tuple[str, list]] = {}
    for _ in range(int(n_tiers)):
        tclass, _ = r.take("s", "a tier's class")
        name, _ = r.take("s", "a tier's name")
        r.take("n", "the tier's xmin")
        r.take("n", "the tier's xmax")
        count, _ = r.take("n", "the tier's size")
        entries = []
        for _ in range(int(count)):
            if tclass == "IntervalTier":
                a, line = r.take("n", "an interval's xmin")
                b, _ = r.take("n", "an interval's xmax")
                label, _ = r.take("s", "an interval's text")
                entries.append((a, b, label, line))
            else:
                t, line = r.take("n", "a point's time")
                label, _ = r.take("s", "a point's mark")
                entries.append((t, t, label, line))
        out[name] = (tclass, entries)
    return out


# -- ELAN -----------------------------------------------------------------------------------
_XSI = (
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:noNamespaceSchemaLocation="http://www.mpi.nl/tools/elan/EAFv3.0.xsd"'
)


def eaf_document(path):
    """The file opened with pympi (``pympi.Elan.Eaf``); an ELAN file without the
    ``xsi:noNamespaceSchemaLocation`` attribute, which ELAN does not need but pympi does,
    is read with it added in memory (the file is not changed).

    Raises
    ------
    SessionFileError
        Not readable as ELAN XML (the parser's reason).
    """
    import pympi

    path = Path(path)
    try:
        return pympi.Elan.Eaf(str(path))
    except KeyError as exc:
        if "noNamespaceSchemaLocation" not in str(exc):
            raise SessionFileError(
                f"not a readable ELAN file (missing {exc}); re-save it in ELAN"
            ) from None
    except Exception as exc:  # noqa: BLE001 - pympi raises whatever the XML parser does
        raise SessionFileError(f"not a readable ELAN file ({exc}); re-save it in ELAN") from None
    import tempfile

    raw = path.read_bytes()
    fixed = re.sub(
        rb"<ANNOTATION_DOCUMENT\b", b"<ANNOTATION_DOCUMENT " + _XSI.encode(), raw, count=1
    )
    with tempfile.TemporaryDirectory() as tmp:  # pympi reads a path only
        copy = Path(tmp) / path.name
        copy.write_bytes(fixed)
        try:
            return pympi.Elan.Eaf(str(copy))
        except Exception as exc:  # noqa: BLE001
            raise SessionFileError(
                f"not a readable ELAN file ({exc}); re-save it in ELAN"
            ) from None


def _slot_times(eaf) -> dict[str, float | None]:
    """Every time slot's time in ms; unaligned slots interpolated between the aligned ones
    around them in the file's time order (None where no aligned slot lies on one side)."""
    order = list(eaf.timeslots.items())
    out: dict[str, float | None] = {}
    k = 0
    while k < len(order):
        sid, v = order[k]
        if v is not None:
            out[sid] = float(v)
            k += 1
            continue
        j = k
        while j < len(order) and order[j][1] is None:
            j += 1
        before = float(order[k - 1][1]) if k > 0 else None
        after = float(order[j][1]) if j < len(order) else None
        run = j - k
        for n in range(run):
            if before is None or after is None:
                out[order[k + n][0]] = None
            else:
                out[order[k + n][0]] = before + (after - before) * (n + 1) / (run + 1)
        k = j
    return out


def eaf_intervals(eaf, tier: str, problems: list[str]) -> list[tuple[float, float, str]]:
    """``(start s, end s, text)`` of ``tier``'s alignable annotations; an annotation that
    cannot be placed in time is left out and described in ``problems``."""
    times = _slot_times(eaf)
    out = []
    for aid, (ts1, ts2, value, *_rest) in eaf.tiers[tier][0].items():
        bad = [s for s in (ts1, ts2) if s not in times]
        if bad:
            problems.append(
                f"tier {tier!r} annotation {aid}: its time slot {bad[0]!r} is not defined in "
                "the file's TIME_ORDER; fix or delete the annotation in ELAN"
            )
            continue
        a, b = times[ts1], times[ts2]
        if a is None or b is None:
            problems.append(
                f"tier {tier!r} annotation {aid}: its time slot has no time and no aligned "
                "slot on both sides to place it between; align it in ELAN"
            )
            continue
        out.append((a / 1000.0, b / 1000.0, value))
    return out
