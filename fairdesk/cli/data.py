"""``fairdesk init/demo/import/datasets/items/models``: projects, datasets and models."""

from __future__ import annotations

import argparse
import sys

from ..presentation import MISSING, count, number, plural
from .common import (
    EXIT_NOTHING,
    EXIT_OK,
    UsageError,
    _project,
    dump_json,
    parse_filters,
    positive_int,
    term,
)


# -- commands --------------------------------------------------------------------------
def cmd_init(a):
    p = _project(a.dir, create=True)
    print(f"fairdesk project at {p.folder} (schema {p.schema_version})")
    return EXIT_OK


def _print_summary(s: dict, keys=None):
    print(
        f"{s['name']}: {count(s['items'], 'item')}, {count(s['speakers'], 'speaker')}, {number(s['hours'], 2)} h "
        f"({s['format']}, root {s['root']})"
        + (f", {s['problems']} import problems" if s.get("problems") else "")
    )
    roots = s.get("audio_roots") or []
    if len(roots) > 1:  # audio read from several folders: each, with its items
        for r in roots:
            print(f"  audio from {r['root']}: {count(r['items'], 'item')}")
    for col, values in sorted(s["columns"].items()):
        if keys and col not in keys:
            continue
        if len(values) > 40:
            print(f"  {col}: {len(values)} distinct values")
            continue
        print(f"  {col}:")
        for v, c in sorted(values.items()):
            print(
                f"    {v:<24} {c['items']:>6} {plural(c['items'], 'item'):<5} "
                f"{c['speakers']:>5} {plural(c['speakers'], 'speaker')}"
            )
        gap = (s.get("missing") or {}).get(col)
        if gap:  # no value: missing, as the audit counts it (docs/METHODS.md, "Missing values")
            print(f"    {'(no value)':<24} {gap:>6} {plural(gap, 'item')}")


def cmd_demo(a):
    from ..core.demo import open_demo

    p = _project(a.project, create=True)
    rep = open_demo(p)
    ds = p.dataset("demo")
    s = p.dataset_summary(ds)
    if a.json:
        dump_json(
            {"project": str(p.folder), "dataset": s, "import": rep.to_dict() if rep else None}
        )
    else:
        print(f"demo project at {p.folder}" + (" (created)" if rep else " (already there)"))
        _print_summary(s, keys={"accent", "gender", "age_band"})
    return EXIT_OK


def cmd_import(a):
    from ..core.importers import import_dataset

    if not a.name.strip():
        raise UsageError("--name: give the dataset a name (letters, digits, spaces ...)")
    p = _project(a.project, create=True, write="an import")
    rep = import_dataset(
        p,
        a.name,
        a.path,
        fmt=a.format,
        language=a.language,
        audio_col=a.audio_col,
        text_col=a.text_col,
        speaker_col=a.speaker_col,
        content_col=a.content_col,
        id_col=a.id_col,
        split=a.split,
        kaldi_meta=a.kaldi_meta,
        audio_root=a.audio_root,
        tiers=a.tiers,
        speaker_tier=a.speaker_tier,
        speaker_by=a.speaker_by,
        speakers=a.speakers,
    )
    d = rep.to_dict()
    if a.json:
        dump_json(d)
    else:
        print(
            f"{term(rep.dataset)}: {count(rep.imported, 'item')} imported ({rep.added} new, "
            f"{rep.updated} updated, {rep.unchanged} unchanged) as {rep.format}; "
            f"{count(len(rep.problems), 'problem')}"
            + (f", {count(len(rep.warnings), 'warning')}" if rep.warnings else "")
            + (
                f"; {count(rep.stale, 'item')} no longer listed marked stale (kept; "
                "`fairdesk items --stale` lists them)"
                if rep.stale
                else ""
            )
        )
        if rep.roots:  # the folder chosen for relative paths, and any other audio root
            from ..core.importers_formats import OPTIONS

            rooted = "audio_root" in OPTIONS.get(rep.format, ())
            said = "relative paths read from" if rooted else "audio read from"
            if rep.roots[1:]:
                said = f"{said} {rep.roots[0]}; also audio from {', '.join(rep.roots[1:])}"
            else:
                said = f"{said} {rep.roots[0]}"
            print(
                f"  {said}" + (" (--audio-root to read them from another folder)" if rooted else "")
            )
        for pr in rep.problems:  # file: line N: path: reason (each part when known)
            line = f"line {pr.row}" if pr.row is not None else None
            where = ": ".join(str(x) for x in (pr.source, line, pr.path) if x)
            print(term(f"  {where}: {pr.reason}" if where else f"  {pr.reason}"), file=sys.stderr)
        for w in rep.warnings:
            print(term(f"  warning: {w['item']} ({w['path']}): {w['warning']}"), file=sys.stderr)
        if rep.speakers is not None:
            from ..presentation.imports import speaker_sheet_lines

            for line in speaker_sheet_lines(rep.speakers):
                print(term(line))
    return EXIT_OK if rep.imported else EXIT_NOTHING


def cmd_datasets(a):
    p = _project(a.project)
    sums = [p.dataset_summary(d) for d in p.datasets()]
    if a.json:
        dump_json(sums)
    else:
        if not sums:
            print(f"no datasets in {p.folder}; add one with `fairdesk import` or `fairdesk demo`")
        from ..core.relink import audio_root

        for ds, s in zip(p.datasets(), sums):
            _print_summary(s)
            where = audio_root(p, ds, sample=20)
            if not where.exists or where.missing:
                several = len(s.get("audio_roots") or []) > 1
                print(
                    f"  warning: {where.describe()}; `fairdesk relink --project {p.folder} "
                    f"--dataset {ds.name!r} "
                    + (f"--from {where.root} " if several else "")
                    + "NEW_FOLDER`",
                    file=sys.stderr,
                )
    return EXIT_OK


def cmd_relink(a):
    from ..core.relink import relink_dataset

    p = _project(a.project, write="relinking a dataset")

    def progress(frac, msg):
        if not a.json:
            print(f"\r  {msg}", end="\n" if frac >= 1 else "", file=sys.stderr, flush=True)

    rep = relink_dataset(p, a.dataset, a.root, old_root=a.old_root, progress=progress)
    if a.json:
        dump_json(rep.to_dict())
    else:
        print(
            f"{a.dataset}: audio is read from {rep.new_root} (was {rep.old_root}); "
            f"all {count(rep.items, 'file')} found there; "
            + (
                f"{count(rep.changed, 'file')} hold other audio than before and will be "
                "transcribed again"
                if rep.changed
                else "every file holds the same audio as before"
            )
        )
    return EXIT_OK


def _id_shown(v) -> str:
    """A speaker id as ``items`` lists it: the missing marker where there is none (None,
    NaN or blank: docs/METHODS.md, "Missing values"), never "nan"."""
    from ..stats.slicing import is_missing_value

    return MISSING if is_missing_value(v) else str(v)


def cmd_items(a):
    p = _project(a.project)
    ds = p.dataset(a.dataset)
    frame = p.items(ds, parse_filters(a.filter), stale=True if a.stale else False)
    frame = frame.drop(columns=["db_id", "audio_hash", "sample_rate", "channels"], errors="ignore")
    records = frame.to_dict(orient="records")
    shown = records[: a.limit] if a.limit else records
    if a.json:
        dump_json(shown)
    else:
        for r in shown:
            warn = f"\t[{'; '.join(r['warnings'])}]" if r.get("warnings") else ""
            print(
                term(
                    f"{r['id']}\t{_id_shown(r['speaker_id'])}\t{number(r['duration'], 2)}s\t"
                    f"{r['text']}{warn}"
                )
            )
        what = "stale items (no longer in the dataset's source; kept)" if a.stale else "items"
        print(
            f"{len(records)} {what}"
            + (f", {len(shown)} shown" if len(shown) < len(records) else "")
        )
    return EXIT_OK


def cmd_models(a):
    from ..models import list_models

    infos = list_models()
    if a.json:
        dump_json([i.__dict__ if not hasattr(i, "to_dict") else i.to_dict() for i in infos])
    else:
        for i in infos:
            state = "available" if i.available else f"unavailable: {i.reason}"
            print(f"{i.id:<22} {i.kind:<16} {state}\n    {i.description}")
        print(
            "Your own models: hf:<local folder> (transformers, safetensors) and "
            "predictions:<file> (imported hypotheses)."
        )
    return EXIT_OK


def add_commands(sub):
    from ..core.importers_formats import FORMATS as IMPORT_FORMATS
    from .import_help import formats_epilog

    s = sub.add_parser("init", help="create an empty project folder")
    s.add_argument("dir")
    s.set_defaults(func=cmd_init)

    s = sub.add_parser("demo", help="create (or reopen) the demo project")
    s.add_argument("--project", default="fairdesk-demo")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_demo)

    s = sub.add_parser(
        "import",
        help="import a dataset (manifest, audiofolder, Common Voice, "
        "LibriSpeech, Speech Accent Archive, L2-ARCTIC, Kaldi, NeMo, Lhotse, VCTK, TIMIT, Hugging Face, "
        "ELAN, Praat, TalkBank CHAT)",
        epilog=formats_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("--project", required=True)
    s.add_argument("--name", required=True)
    s.add_argument("path")
    s.add_argument(
        "--format",
        default="auto",
        choices=list(IMPORT_FORMATS),
    )
    s.add_argument("--language", default="en", help="transcript language (default en)")
    s.add_argument("--audio-col")
    s.add_argument("--text-col")
    s.add_argument("--speaker-col")
    s.add_argument("--content-col")
    s.add_argument("--id-col")
    s.add_argument("--split", help="Common Voice split (validated, test, ...)")
    s.add_argument(
        "--kaldi-meta",
        metavar="FILES",
        help="Kaldi: the spk2*/utt2* tables kept as metadata: all (default), none, "
        "or names (spk2gender,spk2age)",
    )
    s.add_argument(
        "--audio-root",
        metavar="DIR",
        help="manifest, Kaldi, NeMo, Lhotse: the folder the listed relative audio paths "
        "start from (default: the manifest's folder or data directory, else the nearest "
        "parent folder where the paths resolve, as recipes write them); absolute paths are "
        "read as written",
    )
    s.add_argument(
        "--tiers",
        metavar="NAMES",
        help="ELAN, Praat: the tiers holding transcripts, comma-separated names or patterns "
        "such as '*-tx' (default: every time-aligned tier but the speaker tier and tiers of "
        "notes, comments, translations, glosses or phones, which are listed as skipped)",
    )
    s.add_argument(
        "--speakers",
        metavar="FILE",
        help="a speaker sheet (CSV, TSV or .xlsx, one row per speaker) joined to the items by "
        "speaker id: its other columns (gender, age, dialect ...) become metadata; speakers "
        "missing from it and rows no item uses are listed",
    )
    s.add_argument(
        "--speaker-tier",
        metavar="NAME",
        help="ELAN, Praat: the tier whose label at an utterance's midpoint names its speaker",
    )
    s.add_argument(
        "--speaker-by",
        choices=["participant", "tier"],
        help="ELAN: the speaker is the tier's PARTICIPANT attribute, else its name "
        "(participant, default) or always the tier's name (tier)",
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("datasets", help="list the project's datasets with group counts")
    s.add_argument("--project", required=True)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_datasets)

    s = sub.add_parser(
        "relink",
        help="read a dataset's audio from another folder (a copied or moved project)",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    s.add_argument("root", help="the folder that now holds the dataset's audio")
    s.add_argument(
        "--from",
        dest="old_root",
        metavar="OLD_FOLDER",
        help="the audio root that moved, when the dataset reads audio from several folders "
        "(`fairdesk datasets` lists them)",
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_relink)

    s = sub.add_parser("items", help="list a dataset's items")
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    s.add_argument("--filter", action="append", metavar="COL=VAL")
    s.add_argument("--limit", type=positive_int, help="show at most N items (default: all)")
    s.add_argument(
        "--stale",
        action="store_true",
        help="list the items a re-import no longer found (kept, not audited)",
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_items)

    s = sub.add_parser("models", help="list the available models")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_models)
