"""``fairdesk record ...``: field recording from the command line (what the Record tab does).

Sub-commands: ``lists``, ``prompts``, ``devices``, ``take``, ``accept``, ``transcript``,
``recover``. sounddevice is imported only by ``devices`` and ``take`` (through
``recording.recorder``).
"""

from __future__ import annotations

import sys
import time

from ..presentation import MISSING, count
from .common import EXIT_NOTHING, EXIT_OK, UsageError, dump_json


def add_command(sub):
    r = sub.add_parser("record", help="record speakers reading prompts; annotate transcripts")
    rs = r.add_subparsers(dest="record_command", metavar="ACTION")
    r.set_defaults(func=lambda a: (r.print_help(), EXIT_OK)[1])

    s = rs.add_parser("lists", help="list the built-in prompt lists")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_lists)

    s = rs.add_parser(
        "prompts",
        help="check a prompt list (.txt or .jsonl, or a built-in "
        "name) and show its prompts and bad lines",
    )
    s.add_argument("list")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_prompts)

    s = rs.add_parser("devices", help="can this machine record? (input device check)")
    s.set_defaults(func=cmd_devices)

    def session_args(s, prompt=True):
        s.add_argument("--project", required=True)
        s.add_argument("--dataset", required=True)
        s.add_argument("--speaker", required=True, help="speaker id (names its folder)")
        s.add_argument(
            "--meta",
            action="append",
            metavar="KEY=VALUE",
            help="speaker metadata, e.g. --meta accent=owerri --meta age=34",
        )
        s.add_argument("--language", help="dataset language (default: the list's, else en)")
        if prompt:
            s.add_argument("--list", required=True, help="prompt list file or built-in name")
            s.add_argument(
                "--prompt",
                required=True,
                help="the prompt: its number in the list (1-based), content id or text",
            )
        s.add_argument("--json", action="store_true")

    s = rs.add_parser("take", help="record one take from the sound card")
    session_args(s)
    s.add_argument("--seconds", type=float, required=True, help="length of the take")
    s.add_argument("--accept", action="store_true", help="accept the take into the dataset")
    s.set_defaults(func=cmd_take)

    s = rs.add_parser("accept", help="accept a recorded take into the dataset")
    session_args(s)
    s.add_argument("--take", type=int, required=True, help="take number")
    s.set_defaults(func=cmd_accept)

    s = rs.add_parser(
        "transcript", help="correct the transcript of an accepted take (tone marks kept, NFC)"
    )
    session_args(s)
    s.add_argument("--text", required=True)
    s.add_argument(
        "--annotator",
        default="",
        metavar="NAME",
        help="whose version this is (each annotator keeps their own; without it: unnamed)",
    )
    s.set_defaults(func=cmd_transcript)

    s = rs.add_parser("recover", help="make takes left unfinished by a crash readable")
    s.add_argument("--project", required=True)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_recover)


def _load_list(name):
    from pathlib import Path

    from ..recording.prompts import builtin_lists, builtin_name, load_builtin, load_prompts

    if builtin_name(name) in builtin_lists() and not Path(name).exists():
        return load_builtin(name)
    return load_prompts(name)


def cmd_lists(a):
    from ..recording.prompts import builtin_lists, load_prompts

    out = []
    for name, path in builtin_lists().items():
        pl = load_prompts(path)
        out.append(
            {
                "name": name,
                "title": pl.name,
                "language": pl.language,
                "prompts": len(pl),
                "path": str(path),
            }
        )
    if a.json:
        dump_json(out)
    else:
        for d in out:
            print(
                f"{d['name']:<32} {d['language'] or MISSING:<4} {d['prompts']:>4} prompts  {d['title']}"
            )
    return EXIT_OK


def cmd_prompts(a):
    pl = _load_list(a.list)
    if a.json:
        dump_json(
            {
                "name": pl.name,
                "language": pl.language,
                "prompts": [
                    {
                        "text": p.text,
                        "content_id": p.content_id,
                        "gloss": p.gloss,
                        "intent": p.intent,
                        "slots": p.slots,
                        "line": p.line,
                        **p.extra,
                    }
                    for p in pl.prompts
                ],
                "problems": [{"line": p.line, "reason": p.reason} for p in pl.problems],
            }
        )
    else:
        print(f"{pl.name} ({pl.language or 'language not set'}): {count(len(pl), 'prompt')}")
        for i, p in enumerate(pl.prompts, 1):
            print(f"{i:>4}  {p.content_id}  {p.text}" + (f"  ‘{p.gloss}’" if p.gloss else ""))
            if p.instruction:
                print(f"{'':>6}{'(not recordable) ' if p.placeholder else ''}{p.instruction}")
    for p in pl.problems:
        print(f"  {p}", file=sys.stderr)
    return EXIT_OK


def cmd_devices(a):
    from ..recording.recorder import input_status

    ok, why = input_status()
    print(why)
    return EXIT_OK if ok else EXIT_NOTHING


def _session(a, create: bool = False):
    from ..recording.session import RecordingSession, Speaker
    from .common import _project

    meta = {}
    for kv in a.meta or []:
        if "=" not in kv:
            raise UsageError(f"--meta {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        v = v.strip()
        meta[k.strip()] = int(v) if v.isdigit() and k.strip() == "age" else v
    pl = _load_list(a.list) if getattr(a, "list", None) else None
    lang = a.language or (pl.language if pl is not None else None) or "en"
    s = RecordingSession(
        _project(a.project, create=create, write="recording"),
        a.dataset,
        Speaker(a.speaker, meta),
        language=lang,
    )
    prompt = None
    if pl is not None:
        q = a.prompt.strip()
        if q.isdigit() and 1 <= int(q) <= len(pl):
            prompt = pl[int(q) - 1]
        else:
            from ..recording.prompts import nfc

            prompt = next(
                (p for p in pl.prompts if q in (p.content_id, nfc(p.text)) or nfc(q) == p.text),
                None,
            )
        if prompt is None:
            raise UsageError(
                f"--prompt {a.prompt!r}: not in {pl.name} (give its number "
                f"1..{len(pl)}, content id or text)"
            )
    return s, prompt


def _take_dict(t):
    return {
        "recording_id": t.rec_id,
        "path": str(t.path),
        "take": t.number,
        "status": t.status,
        "duration": t.duration,
        "accepted": t.accepted,
    }


def cmd_take(a):
    from ..recording.recorder import Recorder

    if not a.seconds > 0 or a.seconds == float("inf"):
        raise UsageError("--seconds must be a positive number of seconds")
    from ..recording.recorder import RecorderUnavailable, input_status

    ok, why = input_status()
    if not ok:  # before anything is created: no project, dataset or folder is left behind
        print(f"fairdesk record take: {why}", file=sys.stderr)
        return EXIT_NOTHING
    # Field recording may start a project (as import does); the other actions need one.
    s, prompt = _session(a, create=True)
    r = Recorder()
    try:
        take = s.start_take(prompt, r)
    except RecorderUnavailable as exc:
        print(f"fairdesk record take: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    print(
        f"recording take {take.number} of “{prompt.text}” for {a.seconds:g} s "
        "(Ctrl+C stops early)…",
        file=sys.stderr,
    )
    try:
        end = time.monotonic() + a.seconds
        while time.monotonic() < end and r.error is None:
            time.sleep(0.05)
    except KeyboardInterrupt:
        pass
    take = s.stop_take(take, r)
    out = _take_dict(take)
    if a.accept:
        out["item_db_id"] = s.accept(prompt, take)
        out["accepted"] = True
    if a.json:
        dump_json(out)
    else:
        print(f"{take.path} ({take.duration:.2f} s)" + (" accepted" if a.accept else ""))
    return EXIT_OK


def cmd_accept(a):
    s, prompt = _session(a)
    take = next((t for t in s.takes(prompt) if t.number == a.take), None)
    if take is None:
        nums = ", ".join(str(t.number) for t in s.takes(prompt)) or "none"
        raise UsageError(
            f"--take {a.take}: no such take of “{prompt.text}” by {a.speaker} (takes: {nums})"
        )
    db_id = s.accept(prompt, take)
    if a.json:
        dump_json({**_take_dict(take), "accepted": True, "item_db_id": db_id})
    else:
        print(f"take {take.number} accepted as {s.item_key(prompt)}")
    return EXIT_OK


def cmd_transcript(a):
    s, prompt = _session(a)
    ann = s.save_transcript(prompt, a.text, source="cli", annotator=a.annotator)
    item = s.item(prompt)
    if a.json:
        dump_json({"item": item["id"], "text": item["text"], "annotation_id": ann})
    else:
        print(f"{item['id']}: {item['text']}" + ("" if ann else " (unchanged)"))
    return EXIT_OK


def cmd_recover(a):
    from ..recording.session import recover_recordings
    from .common import _project

    out = recover_recordings(_project(a.project, write="recovering recordings"))
    rows = [
        {
            "path": str(t.path),
            "status": t.status,
            "frames": t.frames,
            "duration": t.duration,
            "error": t.meta.get("error"),
        }
        for t in out
    ]
    if a.json:
        dump_json(rows)
    else:
        for r in rows:
            print(
                f"{r['status']:<10} {r['duration']:.2f} s  {r['path']}"
                + (f"  ({r['error']})" if r["error"] else "")
            )
        print(f"{count(len(rows), 'unfinished take')}")
    return EXIT_OK
