"""Prompt lists for recording sessions.

Two formats:

* text (``.txt``): one prompt per line; blank lines and lines starting with ``#`` are
  skipped. Header comments ``# name: ...`` and ``# language: xx`` name the list.
* JSONL (``.jsonl``): one object per line with ``text`` and optionally ``content_id``,
  ``gloss``, ``intent``, ``slots`` (an object); other keys are kept in ``extra``
  (``instruction``: shown to the speaker; ``placeholder: true``: a slot for the linguist to
  fill, whose text is an instruction and which a session refuses to record; ``category``:
  stored with the recorded item). A line
  ``{"_list": {"name": ..., "language": ...}}`` names the list.

Texts are NFC-normalised with their tone marks and dots kept (``àkwà`` stays ``àkwà``); the
``content_id`` is :func:`fairdesk.core.importers.derive_content_id` of that text unless the
line gives one, so the same prompt has the same id in every list and every import.
Bad lines are reported with their line number and the rest of the list is used.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..core.demo import resources_dir
from ..core.errors import FairdeskError
from ..core.import_rows import read_text
from ..core.importers import bad_utf8, derive_content_id

__all__ = [
    "Prompt",
    "PromptError",
    "PromptList",
    "PromptProblem",
    "LIST_ALIASES",
    "builtin_lists",
    "builtin_name",
    "load_builtin",
    "load_prompts",
    "nfc",
    "parse_prompts",
]

_WS = re.compile(r"\s+")
_HEADER = re.compile(r"^#\s*(name|language)\s*:\s*(.+?)\s*$", re.IGNORECASE)
_KNOWN = ("text", "content_id", "gloss", "intent", "slots")


class PromptError(FairdeskError):
    """A prompt list could not be used at all (missing, unreadable, no prompts)."""


def nfc(text: str) -> str:
    """NFC, whitespace collapsed, stripped; combining marks (tone, dot below) kept."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


@dataclass(frozen=True)
class Prompt:
    """One prompt: NFC text, its content id, and optional gloss, intent and slots."""

    text: str
    content_id: str
    gloss: str | None = None
    intent: str | None = None
    slots: dict = field(default_factory=dict, hash=False, compare=False)
    extra: dict = field(default_factory=dict, hash=False, compare=False)
    line: int | None = field(default=None, compare=False)

    @property
    def placeholder(self) -> bool:
        """A slot a linguist still has to fill (``"placeholder": true`` in JSONL): its text
        is an instruction, not something to read aloud, so it cannot be recorded."""
        return self.extra.get("placeholder") is True

    @property
    def instruction(self) -> str | None:
        """What the speaker or the linguist is asked to do (JSONL ``instruction``)."""
        v = self.extra.get("instruction")
        return None if v is None else str(v)


@dataclass(frozen=True)
class PromptProblem:
    """A refused line: 1-based ``line`` of ``source`` and what to fix."""

    line: int
    reason: str
    source: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


@dataclass(frozen=True)
class PromptList:
    """A prompt list; ``problems`` are the lines that were skipped."""

    name: str
    language: str | None
    prompts: tuple[Prompt, ...]
    problems: tuple[PromptProblem, ...] = ()
    source: str | None = None

    def __len__(self) -> int:
        return len(self.prompts)

    def __getitem__(self, i: int) -> Prompt:
        return self.prompts[i]


def parse_prompts(
    text: str,
    source: str = "<prompts>",
    fmt: str = "text",
    name: str | None = None,
    language: str | None = None,
) -> PromptList:
    """Parse the content of a prompt list (see the module notes).

    Parameters
    ----------
    text : the file's content.
    source : its name, for the problems.
    fmt : ``"text"`` or ``"jsonl"``.
    name, language : defaults when the list does not name itself.
    """
    prompts: list[Prompt] = []
    problems: list[PromptProblem] = []
    seen: dict[str, int] = {}
    meta = {"name": name, "language": language}

    def add(i: int, raw, **kw) -> None:
        if not isinstance(raw, str):
            problems.append(PromptProblem(i, "'text' must be a string", source))
            return
        reason = bad_utf8(raw)
        if reason:
            problems.append(PromptProblem(i, reason, source))
            return
        t = nfc(raw)
        if not t:
            problems.append(
                PromptProblem(i, "empty prompt text; write the prompt or remove the line", source)
            )
            return
        cid = kw.pop("content_id", None) or derive_content_id(t)
        for k, what in ((cid, f"content id {cid}"), ("text:" + t, "the same text")):
            if k in seen:
                problems.append(
                    PromptProblem(
                        i,
                        f"duplicate prompt ({what} is already at line {seen[k]}); remove one",
                        source,
                    )
                )
                return
        seen[cid] = seen["text:" + t] = i
        prompts.append(Prompt(t, cid, line=i, **kw))

    for i, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        if fmt == "text":
            if s.startswith("#"):
                m = _HEADER.match(s)
                if m:
                    meta[m.group(1).lower()] = nfc(m.group(2))
                continue
            add(i, s)
            continue
        if s.startswith("#"):
            continue
        try:
            obj = json.loads(s)
        except json.JSONDecodeError as exc:
            problems.append(
                PromptProblem(
                    i, bad_utf8(s) or f"malformed JSON ({exc.msg} at column {exc.colno})", source
                )
            )
            continue
        if not isinstance(obj, dict):
            problems.append(PromptProblem(i, "line is not a JSON object", source))
            continue
        if "_list" in obj and isinstance(obj["_list"], dict):
            for k in ("name", "language"):
                if obj["_list"].get(k):
                    meta[k] = nfc(str(obj["_list"][k]))
            continue
        if "text" not in obj:
            problems.append(
                PromptProblem(i, "no 'text' key; every line needs the prompt text", source)
            )
            continue
        slots = obj.get("slots") or {}
        if not isinstance(slots, dict):
            problems.append(
                PromptProblem(i, '\'slots\' must be an object like {"artist": "queen"}', source)
            )
            continue
        cid = obj.get("content_id")
        if cid is not None and (not isinstance(cid, (str, int)) or not str(cid).strip()):
            problems.append(PromptProblem(i, "'content_id' must be a non-empty string", source))
            continue
        gloss, intent = obj.get("gloss"), obj.get("intent")
        add(
            i,
            obj["text"],
            content_id=None if cid is None else str(cid).strip(),
            gloss=None if gloss is None else nfc(str(gloss)),
            intent=None if intent is None else str(intent),
            slots={str(k): nfc(str(v)) for k, v in slots.items()},
            extra={k: v for k, v in obj.items() if k not in _KNOWN},
        )
    return PromptList(
        meta["name"] or Path(source).stem, meta["language"], tuple(prompts), tuple(problems), source
    )


def load_prompts(path, name: str | None = None, language: str | None = None) -> PromptList:
    """Read a prompt list from a ``.txt`` or ``.jsonl`` file.

    Raises
    ------
    PromptError
        The file is missing or unreadable, or holds no usable prompt (the message lists
        the first problems with their line numbers).
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise PromptError(f"{path}: no such prompt list")
    try:
        content = read_text(path)
    except OSError as exc:
        raise PromptError(f"{path}: cannot read the prompt list ({exc.strerror})") from None
    fmt = "jsonl" if path.suffix.lower() in (".jsonl", ".ndjson") else "text"
    out = parse_prompts(content, str(path), fmt, name, language)
    if not out.prompts:
        detail = "; ".join(str(p) for p in out.problems[:5])
        raise PromptError(
            f"{path}: no usable prompt" + (f" ({detail})" if detail else " (the file is empty)")
        )
    return out


def prompts_dir() -> Path:
    return resources_dir() / "prompts"


#: Old names of built-in prompt lists, still accepted wherever a list is named (``record
#: --list``, a saved Record tab, :func:`load_builtin`): {old name: name}.
LIST_ALIASES = {
    f"seed003_{n}": f"igbo_tone_marks_{n}"
    for n in (
        "1_orthographic_interference",
        "2_tone_sensitivity",
        "3_language_boundaries",
        "4_domain_terms",
    )
}


def builtin_name(name: str) -> str:
    """The current name of a built-in list named ``name`` (an old name read as its new one)."""
    return LIST_ALIASES.get(name, name)


def builtin_lists() -> dict[str, Path]:
    """The prompt lists shipped in ``resources/prompts``: {name: path}, sorted by name."""
    d = prompts_dir()
    files = sorted([*d.glob("*.txt"), *d.glob("*.jsonl")]) if d.is_dir() else []
    return {p.stem: p for p in files}


def load_builtin(name: str) -> PromptList:
    """A shipped prompt list by name (see :func:`builtin_lists`)."""
    lists = builtin_lists()
    name = builtin_name(name)
    if name not in lists:
        raise PromptError(f"no built-in prompt list {name!r} (lists: {', '.join(lists) or 'none'})")
    return load_prompts(lists[name])
