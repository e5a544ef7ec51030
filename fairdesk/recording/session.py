"""Recording sessions: takes on disk, the ``recordings`` table, and accepted takes imported
as dataset items (pure: no Qt, no device; the recorder is passed in).

Layout of a session's dataset ``<project>/recordings/<dataset>/``::

    manifest.jsonl                    one row per accepted (speaker, prompt): the dataset
    <speaker>/<content>_<take>.wav    every take ever recorded (never deleted)
    <speaker>/<content>_<take>.wav.json   its format and status (see recording.recorder)

``<content>`` is the prompt's content id made safe for file names (``t:580dd0d06170`` ->
``t-580dd0d06170``).

* A take is registered in ``recordings`` when it starts (status ``recording``) and updated
  when it stops (``done``); :func:`recover_recordings` marks takes of a crashed session
  ``recovered`` (or ``failed``).
* Accepting a take writes its row (speaker id and metadata, prompt, content id, take path)
  into the manifest, which is rewritten atomically (temporary file, fsync, rename), then
  imports the manifest with :func:`fairdesk.core.importers.import_dataset`: the item is
  added or updated in one transaction, with the importer's validation. Re-recording and
  accepting again points the item at the new take; the old file stays.
* A corrected transcript (tone marks kept, NFC) is written to the manifest, and in one
  transaction stored as an annotation (``kind="transcript"``, with the previous text) and
  as the item's reference text. The item keeps the prompt's content id.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..constants import SAMPLE_RATE
from ..core import recordings as recdb
from ..core.atomic import write_text
from ..core.errors import FairdeskError
from ..core.importers import import_dataset
from ..core.store import Project
from ..core.versions import annotator_name
from . import recorder as rec
from .prompts import Prompt, nfc

__all__ = [
    "RESERVED_KEYS",
    "RecordingSession",
    "SessionError",
    "Speaker",
    "Take",
    "recover_recordings",
    "safe_name",
]

RECORDINGS_DIR = "recordings"
MANIFEST = "manifest.jsonl"
#: Manifest columns the importer reads itself; speaker metadata may not use these names.
RESERVED_KEYS = frozenset(
    {
        "id",
        "path",
        "text",
        "speaker_id",
        "content_id",
        "prompt",
        "take",
        "recording_id",
        "gloss",
        "intent",
        "slots",
        "recorded_at",
    }
)
_UNSAFE = re.compile(r"[^0-9A-Za-z._-]+")
STATUS_ACCEPTED = "accepted"


class SessionError(FairdeskError):
    """A session action was refused (the message says why and what to do)."""


def refuse_placeholder(prompt: Prompt) -> None:
    """Refuse to record a placeholder slot (its text is an instruction for the linguist)."""
    if prompt.placeholder:
        raise SessionError(
            f"“{prompt.text}” is a slot to be filled by the linguist, not a prompt: write the "
            "text to read in a copy of the list (a line with 'text', without 'placeholder') "
            "and record from that list"
        )


def safe_name(value: str, what: str = "name") -> str:
    """``value`` as a file-name-safe token (letters, digits, ``. _ -``)."""
    s = _UNSAFE.sub("-", nfc(str(value))).strip("-")
    if not s or s.startswith("."):
        raise SessionError(
            f"{what} {value!r} cannot name a folder; use letters, digits, "
            "'-', '_' or '.' (not starting with '.')"
        )
    return s


@dataclass(frozen=True)
class Speaker:
    """A speaker: an id (used as folder name) and metadata such as ``accent``, ``gender``,
    ``age``, ``dialect``; empty values are dropped."""

    id: str
    metadata: dict = field(default_factory=dict, hash=False)

    def __post_init__(self):
        sid = nfc(str(self.id or ""))
        if not sid:
            raise SessionError("the speaker id is empty; enter an id such as 'spk01'")
        if safe_name(sid, "speaker id") != sid:
            raise SessionError(
                f"speaker id {self.id!r}: use letters, digits, '-', '_' or '.' "
                "only (it names the speaker's folder)"
            )
        meta = {}
        for k, v in (self.metadata or {}).items():
            k = nfc(str(k))
            if k in RESERVED_KEYS:
                raise SessionError(f"speaker metadata {k!r} is a reserved column name; rename it")
            if isinstance(v, str):
                v = nfc(v)
            if v not in (None, ""):
                meta[k] = v
        object.__setattr__(self, "id", sid)
        object.__setattr__(self, "metadata", meta)


@dataclass(frozen=True)
class Take:
    """One take of a prompt by the session's speaker."""

    rec_id: int
    path: Path
    number: int
    status: str
    duration: float | None
    accepted: bool = False

    @property
    def label(self) -> str:
        d = "…" if self.duration is None else f"{self.duration:.2f} s"
        state = "✓ accepted" if self.accepted else self.status
        return f"take {self.number} · {d} · {state}"


def _write_atomic(path: Path, text: str) -> None:
    """The session manifest, complete or not at all (:mod:`fairdesk.core.atomic`)."""
    write_text(path, text, encoding="utf-8", newline="\n")


class RecordingSession:
    """A speaker recording prompts into a dataset of ``project``.

    Parameters
    ----------
    project : the open project (used on the calling thread).
    dataset : dataset name (also the folder ``recordings/<dataset>``).
    speaker : who records.
    language : the dataset's language code (``ig``, ``yo``, ``en`` ...).
    samplerate, channels : format of new takes.
    """

    def __init__(
        self,
        project: Project,
        dataset: str,
        speaker: Speaker,
        language: str = "en",
        samplerate: int = SAMPLE_RATE,
        channels: int = 1,
    ):
        self.project = project
        self.dataset = nfc(dataset or "")
        if not self.dataset or safe_name(self.dataset, "dataset name") != self.dataset:
            raise SessionError(
                f"dataset name {dataset!r}: use letters, digits, '-', '_' or "
                "'.' (it names the folder recordings/<dataset>)"
            )
        self.speaker = speaker
        self.language = language or "en"
        self.samplerate, self.channels = int(samplerate), int(channels)
        self.root = (project.folder / RECORDINGS_DIR / self.dataset).resolve()
        self.manifest = self.root / MANIFEST
        self.speaker_dir = self.root / speaker.id
        root = recdb.dataset_root(project, self.dataset)
        if root is not None and Path(root).resolve() != self.root:
            raise SessionError(
                f"dataset {self.dataset!r} already exists with its audio in "
                f"{root}; record into a new dataset name"
            )
        self.rows = self._read_manifest()

    # -- manifest ---------------------------------------------------------------------
    def _read_manifest(self) -> dict[str, dict]:
        rows: dict[str, dict] = {}
        if self.manifest.exists():
            for i, line in enumerate(self.manifest.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                    rows[str(r["id"])] = r
                except (ValueError, KeyError, TypeError) as exc:
                    raise SessionError(
                        f"{self.manifest}:{i}: unreadable row ({exc}); fix or remove the line"
                    ) from None
        return rows

    def _write_manifest(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        text = "".join(
            json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in self.rows.values()
        )
        _write_atomic(self.manifest, text)

    def item_key(self, prompt: Prompt) -> str:
        return f"{self.speaker.id}/{prompt.content_id}"

    def item(self, prompt: Prompt) -> dict | None:
        """The accepted item of ``prompt`` by this speaker: its manifest row plus ``db_id``
        (None when no take was accepted)."""
        row = self.rows.get(self.item_key(prompt))
        if row is None:
            return None
        r = recdb.item_of_key(self.project, self.dataset, row["id"])
        return {
            **row,
            "db_id": None if r is None else r[0],
            "text": row["text"] if r is None else r[1],
        }

    def version(self, prompt: Prompt, annotator: str) -> str | None:
        """``annotator``'s own version of the accepted item of ``prompt`` (None: they have
        none, or no take is accepted)."""
        item = self.item(prompt)
        if item is None or item["db_id"] is None:
            return None
        iv = self.project.transcript_versions([item["db_id"]]).get(item["db_id"])
        v = iv.version(annotator) if iv is not None else None
        return None if v is None else v.text

    def speakers(self) -> dict[str, dict]:
        """Speakers of the dataset so far with their metadata (from the manifest)."""
        out: dict[str, dict] = {}
        for r in self.rows.values():
            out[r["speaker_id"]] = {k: v for k, v in r.items() if k not in RESERVED_KEYS}
        return out

    # -- takes ------------------------------------------------------------------------
    def _rel(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.project.folder).as_posix()

    def _stem(self, prompt: Prompt) -> str:
        return safe_name(prompt.content_id, "content id")

    def next_take_path(self, prompt: Prompt) -> tuple[Path, int]:
        """``<speaker>/<content>_<n>.wav`` with the first unused ``n`` (files on disk and
        rows of ``recordings`` both count, so no take is ever overwritten)."""
        stem = self._stem(prompt)
        used = set()
        pat = re.compile(re.escape(stem) + r"_(\d+)\.wav$")
        if self.speaker_dir.is_dir():
            for p in self.speaker_dir.iterdir():
                m = pat.match(p.name) or pat.match(p.name.removesuffix(rec.SIDECAR_SUFFIX))
                if m:
                    used.add(int(m.group(1)))
        for t in self._take_rows(prompt):
            used.add(t.number)
        n = max(used, default=0) + 1
        return self.speaker_dir / f"{stem}_{n}.wav", n

    def start_take(self, prompt: Prompt, recorder: rec.Recorder) -> Take:
        """Register a new take of ``prompt`` (status ``recording``) and start ``recorder``
        on its file.

        Raises
        ------
        RecorderUnavailable, RecorderError
            From the recorder; the row is then removed when no file was created (no
            device), else marked ``failed``.
        """
        refuse_placeholder(prompt)
        path, n = self.next_take_path(prompt)
        made = [d for d in (self.root, self.speaker_dir) if not d.exists()]
        self.root.mkdir(parents=True, exist_ok=True)
        rec_id, ds_id, new_ds = recdb.add_take(
            self.project,
            self.dataset,
            str(self.root),
            self.language,
            self._rel(path),
            prompt.text,
            self.speaker.id,
            rec.RECORDING,
        )
        try:
            recorder.start(
                path,
                self.samplerate,
                self.channels,
                meta={
                    "recording_id": rec_id,
                    "dataset": self.dataset,
                    "speaker_id": self.speaker.id,
                    "content_id": prompt.content_id,
                    "prompt": prompt.text,
                },
            )
        except Exception:
            if path.exists():
                self._set_status(rec_id, rec.FAILED, None)
            else:  # nothing was recorded: the attempt leaves no take, and no empty dataset
                recdb.drop_take(self.project, rec_id, ds_id, new_ds)
                for d in reversed(made):  # folders this attempt created, if still empty
                    try:
                        d.rmdir()
                    except OSError:
                        pass
            raise
        return Take(rec_id, path, n, rec.RECORDING, None)

    def stop_take(self, take: Take, recorder: rec.Recorder) -> Take:
        """Stop ``recorder`` and mark the take ``done`` with its duration (``failed`` when
        writing failed; the error is raised after the row is updated)."""
        try:
            done = recorder.stop()
        except rec.RecorderError:
            self._set_status(take.rec_id, rec.FAILED, recorder.duration)
            raise
        self._set_status(take.rec_id, rec.DONE, done.duration)
        return Take(take.rec_id, take.path, take.number, rec.DONE, done.duration)

    def _set_status(self, rec_id: int, status: str, duration) -> None:
        recdb.set_take_status(self.project, rec_id, status, duration)

    def _take_rows(self, prompt: Prompt) -> list[Take]:
        stem = self._stem(prompt)
        prefix = self._rel(self.speaker_dir) + "/" + stem + "_"
        accepted = (self.rows.get(self.item_key(prompt)) or {}).get("path")
        out = []
        for r in recdb.takes_with_prefix(self.project, self.speaker.id, prefix):
            m = re.match(r"(\d+)\.wav$", r["path"][len(prefix) :])
            if not m:
                continue
            path = self.project.folder / r["path"]
            rel_root = path.relative_to(self.root).as_posix()
            out.append(
                Take(
                    int(r["id"]),
                    path,
                    int(m.group(1)),
                    r["status"],
                    r["duration"],
                    accepted == rel_root,
                )
            )
        return out

    def takes(self, prompt: Prompt) -> list[Take]:
        """Every take of ``prompt`` by this speaker, oldest first."""
        return self._take_rows(prompt)

    # -- accepting and annotating ---------------------------------------------------------
    def accept(self, prompt: Prompt, take: Take, text: str | None = None) -> int:
        """Make ``take`` the dataset item of (speaker, prompt); returns the item's db id.

        The reference text is ``text`` or the prompt's text. Re-accepting another take of
        the same prompt updates the item; older take files stay on disk.

        Raises
        ------
        SessionError
            The take is still recording, or the importer refused it (reason given).
        """
        refuse_placeholder(prompt)
        if take.status == rec.RECORDING:
            raise SessionError(f"{take.path.name} is still being recorded; stop it first")
        if not take.path.exists():
            raise SessionError(f"{take.path}: the take's file is missing; record it again")
        key = self.item_key(prompt)
        ref = nfc(text) if text is not None else prompt.text
        row = {
            "id": key,
            "path": take.path.relative_to(self.root).as_posix(),
            "text": ref,
            "speaker_id": self.speaker.id,
            "content_id": prompt.content_id,
            "prompt": prompt.text,
            "take": take.number,
            "recording_id": take.rec_id,
            "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
            **self.speaker.metadata,
        }
        if prompt.gloss:
            row["gloss"] = prompt.gloss
        if prompt.extra.get("category"):  # the Igbo tone-mark study's categories: `--by category`
            row["category"] = str(prompt.extra["category"])
        if prompt.intent:
            row["intent"] = prompt.intent
        if prompt.slots:
            row["slots"] = json.dumps(prompt.slots, ensure_ascii=False, sort_keys=True)
        old = self.rows.get(key)
        self.rows[key] = row
        try:
            self._write_manifest()
            rep = import_dataset(
                self.project,
                self.dataset,
                self.manifest,
                fmt="manifest",
                language=self.language,
                audio_col="path",
                text_col="text",
                speaker_col="speaker_id",
                content_col="content_id",
                id_col="id",
            )
        except Exception:
            self._restore(key, old)
            raise
        mine = [p for p in rep.problems if p.path == row["path"]]
        if mine:
            self._restore(key, old)
            raise SessionError(f"{take.path}: not accepted: {mine[0].reason}")
        prefix = self._rel(self.speaker_dir) + "/" + self._stem(prompt) + "_"
        recdb.accept_take(
            self.project, take.rec_id, self.speaker.id, prefix, STATUS_ACCEPTED, rec.DONE
        )
        item = self.item(prompt)
        if item is None or item["db_id"] is None:
            raise SessionError(f"{take.path}: the import did not create the item {key!r}")
        return item["db_id"]

    def _restore(self, key: str, old: dict | None) -> None:
        if old is None:
            self.rows.pop(key, None)
        else:
            self.rows[key] = old
        self._write_manifest()

    def save_transcript(
        self, prompt: Prompt, text: str, source: str = "record panel", annotator: str = ""
    ) -> int | None:
        """Store a corrected transcript of the accepted item of ``prompt`` at once.

        The text is NFC-normalised with its tone marks kept. In one transaction an
        annotation ``kind="transcript"`` (value: text, previous text, take path, source) is
        added and the item's reference text updated; the manifest is rewritten first, so a
        re-import gives the same text. ``annotator`` (who typed it) is stored with the
        annotation. Returns the annotation id, or None when the text did not change.

        Raises
        ------
        SessionError
            No take of the prompt is accepted yet, or the text is empty.
        """
        item = self.item(prompt)
        if item is None or item["db_id"] is None:
            raise SessionError("accept a take of this prompt before correcting its transcript")
        new = nfc(text)
        if not new:
            raise SessionError("the transcript is empty; type what the speaker said")
        annotator = annotator_name(annotator)
        # each annotator's own version: compared with theirs, else with the prompt's text
        # (docs/METHODS.md, "References from several annotators")
        own = self.version(prompt, annotator) if annotator else None
        current = own if own is not None else (prompt.text if annotator else item["text"])
        if new == current:
            return None
        key = self.item_key(prompt)
        self.rows[key] = {**self.rows[key], "text": new}
        self._write_manifest()
        value = {
            "text": new,
            "previous": current,
            "path": item["path"],
            "speaker_id": self.speaker.id,
            "content_id": prompt.content_id,
            "source": source,
        }
        return recdb.save_recorded_transcript(
            self.project, item["db_id"], value, new, annotator=annotator
        )

    def recover(self) -> list[rec.RecordedTake]:
        """Recover this dataset's unfinished takes (see :func:`recover_recordings`)."""
        return recover_recordings(self.project, self.root)


def recover_recordings(project: Project, folder=None) -> list[rec.RecordedTake]:
    """Make the takes of a crashed session readable and fix their ``recordings`` rows.

    Runs :func:`fairdesk.recording.recorder.recover` on ``folder`` (default: the project's
    ``recordings/``), then marks each row still ``recording`` whose take is not being
    written: ``recovered`` with its duration, or ``failed`` (file missing or unusable).
    """
    base = Path(folder) if folder is not None else project.folder / RECORDINGS_DIR
    if not base.is_dir():
        return []
    out = rec.recover(base)

    def decide(rel: str) -> dict | None:
        wav = project.folder / rel
        try:
            wav.resolve().relative_to(base.resolve())
        except ValueError:
            return None
        meta = rec.read_sidecar(wav) or {}
        status = meta.get("status")
        if status == rec.RECORDING:
            return None  # a live recorder writes it
        if status in (rec.DONE, rec.RECOVERED):
            return {
                "status": rec.RECOVERED if status == rec.RECOVERED else rec.DONE,
                "duration": meta.get("duration"),
            }
        return {"status": rec.FAILED}

    recdb.fix_unfinished(project, rec.RECORDING, decide)
    return out
