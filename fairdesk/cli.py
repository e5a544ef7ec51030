"""The ``fairdesk`` command: everything the GUI does, a command can do.

Exit codes: 0 ok, 1 nothing was done (e.g. nothing imported, every item failed),
2 usage error (bad arguments, unknown dataset or column).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from . import __version__

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A mistake in the command line; printed and exit code 2."""


def _json_default(o):
    import numpy as np

    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return None if not math.isfinite(float(o)) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if hasattr(o, "to_dict"):
        return o.to_dict()
    return str(o)


def clean_json(o):
    """Replace NaN/inf by None recursively (JSON has no NaN)."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {str(k): clean_json(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean_json(v) for v in o]
    return o


def dump_json(obj, out=None) -> str:
    text = json.dumps(clean_json(json.loads(json.dumps(obj, default=_json_default))),
                      ensure_ascii=False, indent=2)
    if out is None or out == "-":
        print(text)
    else:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return text


def parse_filters(pairs) -> dict[str, list[str]]:
    """``COL=VAL`` pairs (repeatable; the same column twice keeps either value)."""
    out: dict[str, list[str]] = {}
    for p in pairs or []:
        if "=" not in p:
            raise UsageError(f"--filter {p!r}: expected COL=VAL")
        k, v = p.split("=", 1)
        out.setdefault(k.strip(), []).append(v.strip())
    return out


def _project(path):
    from .core.store import Project

    return Project(path, create=True)


# -- commands --------------------------------------------------------------------------
def cmd_init(a):
    p = _project(a.dir)
    print(f"fairdesk project at {p.folder} (schema {p.schema_version})")
    return EXIT_OK


def _print_summary(s: dict, keys=None):
    print(f"{s['name']}: {s['items']} items, {s['speakers']} speakers, {s['hours']:.2f} h "
          f"({s['format']}, root {s['root']})" + (f", {s['problems']} import problems"
                                                  if s.get("problems") else ""))
    for col, values in sorted(s["columns"].items()):
        if keys and col not in keys:
            continue
        if len(values) > 40:
            print(f"  {col}: {len(values)} distinct values")
            continue
        print(f"  {col}:")
        for v, c in sorted(values.items()):
            print(f"    {v:<24} {c['items']:>6} items {c['speakers']:>5} speakers")


def cmd_demo(a):
    from .core.demo import open_demo

    p = _project(a.project)
    rep = open_demo(p)
    ds = p.dataset("demo")
    s = p.dataset_summary(ds)
    if a.json:
        dump_json({"project": str(p.folder), "dataset": s,
                   "import": rep.to_dict() if rep else None})
    else:
        print(f"demo project at {p.folder}" + (" (created)" if rep else " (already there)"))
        _print_summary(s, keys={"accent", "gender", "age_band"})
    return EXIT_OK


def cmd_import(a):
    from .core.importers import import_dataset

    p = _project(a.project)
    rep = import_dataset(p, a.name, a.path, fmt=a.format, language=a.language,
                         audio_col=a.audio_col, text_col=a.text_col, speaker_col=a.speaker_col,
                         content_col=a.content_col, id_col=a.id_col, split=a.split)
    d = rep.to_dict()
    if a.json:
        dump_json(d)
    else:
        print(f"{rep.dataset}: {rep.imported} items imported ({rep.added} new, {rep.updated} "
              f"updated, {rep.unchanged} unchanged) as {rep.format}; "
              f"{len(rep.problems)} problems")
        for pr in rep.problems:
            where = f"{pr.source}:" if pr.source else ""
            print(f"  {where}row {pr.row}: {pr.path or ''}: {pr.reason}", file=sys.stderr)
    return EXIT_OK if rep.imported else EXIT_NOTHING


def cmd_datasets(a):
    p = _project(a.project)
    sums = [p.dataset_summary(d) for d in p.datasets()]
    if a.json:
        dump_json(sums)
    else:
        if not sums:
            print(f"no datasets in {p.folder}; add one with `fairdesk import` or `fairdesk demo`")
        for s in sums:
            _print_summary(s)
    return EXIT_OK


def cmd_items(a):
    p = _project(a.project)
    ds = p.dataset(a.dataset)
    frame = p.items(ds, parse_filters(a.filter))
    frame = frame.drop(columns=["db_id", "audio_hash", "sample_rate", "channels"],
                       errors="ignore")
    records = frame.to_dict(orient="records")
    if a.json:
        dump_json(records)
    else:
        for r in records[: a.limit or None]:
            print(f"{r['id']}\t{r['speaker_id'] or '-'}\t{r['duration']:.2f}s\t{r['text']}")
        print(f"{len(records)} items")
    return EXIT_OK


def cmd_models(a):
    from .models import list_models

    infos = list_models()
    if a.json:
        dump_json([i.__dict__ if not hasattr(i, "to_dict") else i.to_dict() for i in infos])
    else:
        for i in infos:
            state = "available" if i.available else f"unavailable: {i.reason}"
            print(f"{i.id:<22} {i.kind:<16} {state}\n    {i.description}")
        print("Your own models: hf:<local folder> (transformers, safetensors) and "
              "predictions:<file> (imported hypotheses).")
    return EXIT_OK


# -- parser -------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="fairdesk",
        description="Audit whether a speech model works equally well for everyone.")
    ap.add_argument("--version", action="version", version=f"fairdesk {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("init", help="create an empty project folder")
    s.add_argument("dir")
    s.set_defaults(func=cmd_init)

    s = sub.add_parser("demo", help="create (or reopen) the demo project")
    s.add_argument("--project", default="fairdesk-demo")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_demo)

    s = sub.add_parser("import", help="import a dataset (manifest, audiofolder, Common Voice, "
                       "LibriSpeech)")
    s.add_argument("--project", required=True)
    s.add_argument("--name", required=True)
    s.add_argument("path")
    s.add_argument("--format", default="auto",
                   choices=["auto", "manifest", "audiofolder", "commonvoice", "librispeech"])
    s.add_argument("--language", default="en", help="transcript language (default en)")
    s.add_argument("--audio-col")
    s.add_argument("--text-col")
    s.add_argument("--speaker-col")
    s.add_argument("--content-col")
    s.add_argument("--id-col")
    s.add_argument("--split", help="Common Voice split (validated, test, ...)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("datasets", help="list the project's datasets with group counts")
    s.add_argument("--project", required=True)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_datasets)

    s = sub.add_parser("items", help="list a dataset's items")
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    s.add_argument("--filter", action="append", metavar="COL=VAL")
    s.add_argument("--limit", type=int, default=0)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_items)

    s = sub.add_parser("models", help="list the available models")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_models)

    from . import cli_audit, cli_gui, cli_incremental, cli_record, cli_report, cli_show

    cli_audit.add_commands(sub)
    cli_show.add_command(sub)
    cli_gui.add_command(sub)
    cli_record.add_command(sub)
    cli_incremental.add_command(sub)
    cli_report.add_commands(sub)
    return ap


def main(argv=None) -> int:
    from .core.errors import FairdeskError, ImportFailed

    ap = build_parser()
    a = ap.parse_args(argv)
    if not getattr(a, "func", None):
        ap.print_help()
        return EXIT_USAGE
    try:
        return int(a.func(a) or 0)
    except UsageError as exc:
        print(f"fairdesk {a.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImportFailed as exc:
        print(f"fairdesk {a.command}: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    except (FairdeskError, ValueError) as exc:
        print(f"fairdesk {a.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fairdesk: interrupted", file=sys.stderr)
        return 130
