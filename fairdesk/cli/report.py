"""``fairdesk report``, ``fairdesk export`` and ``fairdesk annotate``: results leave fairdesk
as a report (HTML/PDF), tables (CSV/Parquet), Praat TextGrids and ELAN files, and corrected
transcripts come back from Praat and ELAN as annotations. The work is in
``fairdesk.reports``; this module only reads arguments and prints."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..presentation import count
from .common import EXIT_NOTHING, EXIT_OK, UsageError, dump_json

if TYPE_CHECKING:
    import pandas as pd


def add_commands(sub):
    s = sub.add_parser(
        "report",
        help="a self-contained HTML report of a run, audit or incremental (and PDF, figures)",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--run", type=int, required=True)
    s.add_argument("--html", required=True, metavar="OUT.html")
    s.add_argument("--pdf", metavar="OUT.pdf", help="the same content as PDF")
    s.add_argument(
        "--embed-audio",
        action="store_true",
        help="an audio player per worst item (Opus inside the HTML)",
    )
    s.add_argument("--figures", metavar="DIR", help="also write every chart as PNG and SVG")
    s.add_argument(
        "--worst",
        type=int,
        default=3,
        help="worst items per group (default 3); for an incremental run, the add/revoke timelines of the N streams with the "
        "highest edit overhead",
    )
    s.set_defaults(func=cmd_report)

    s = sub.add_parser(
        "export", help="tables (CSV/Parquet), Praat TextGrids and ELAN files of a run"
    )
    s.add_argument("--project", required=True)
    s.add_argument("--run", type=int, required=True)
    s.add_argument("--items", metavar="F", help="per-item rows (.csv, .tsv or .parquet)")
    s.add_argument("--groups", metavar="F", help="per-group values with CIs")
    s.add_argument("--comparisons", metavar="F", help="every comparison with every field")
    s.add_argument("--textgrid", metavar="DIR", help="one Praat TextGrid per item")
    s.add_argument("--eaf", metavar="DIR", help="one ELAN .eaf per item, linked to the audio")
    s.add_argument(
        "--aligner",
        default="auto",
        choices=["auto", "whisper", "even"],
        help="reference word times: auto (cached alignment, whisper-tiny.en for "
        "English, else an even split), whisper (fail without it), even",
    )
    s.add_argument(
        "--annotator-tiers",
        action="store_true",
        help="also one tier per annotator (annotator:NAME), their version of each item's "
        "reference, in the TextGrids and ELAN files",
    )
    s.add_argument("--item", action="append", metavar="ID", help="only this item (repeatable)")
    s.add_argument(
        "--copy-audio",
        action="store_true",
        help="copy each clip next to its TextGrid (Praat opens the pair); for segments of "
        "a session, the session recording once, under sessions/ (the TextGrids are in "
        "session times)",
    )
    s.add_argument("--json", metavar="OUT", help="what was written, as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser(
        "annotate",
        help="import corrected transcripts from Praat TextGrids or ELAN files as annotations",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-textgrid", metavar="DIR")
    src.add_argument("--from-eaf", metavar="DIR")
    s.add_argument("--tier", required=True, help="the tier holding the transcript (e.g. reference)")
    s.add_argument(
        "--annotator",
        default="",
        metavar="NAME",
        help="whose version the files hold (each annotator keeps their own version of an "
        "item; default: unnamed)",
    )
    s.add_argument("--json", metavar="OUT")
    s.set_defaults(func=cmd_annotate)


def _open(path, write: str | None = None):
    from ..core.integrity import refuse_read_only
    from ..core.store import Project

    folder = Path(path).expanduser()
    if not (folder / "project.sqlite").exists():
        raise UsageError(f"{folder}: no fairdesk project here")
    p = Project(folder, create=False)
    if write:
        refuse_read_only(p, write)
    return p


def _check_ext(path, exts, option):
    if path and Path(path).suffix.lower() not in exts:
        raise UsageError(f"{option} {path}: name the file {' or '.join(exts)}")


def _check_paths(files=(), folders=()) -> None:
    """Refuse output paths that cannot be written before any work (missing folders above a
    file or a folder are created when writing)."""
    from ..core.atomic import check_output_file, check_output_folder

    for f in files:
        if f:
            check_output_file(f, make_parents=True)
    for folder, purpose in folders:
        if folder:
            check_output_folder(folder, purpose)


def cmd_report(a):
    from ..core.extras import require

    require("report", "HTML reports", ("jinja2", "matplotlib"), verb="need")
    from ..reports.html import write_report
    from ..reports.pdf import PdfUnavailable

    _check_ext(a.html, (".html", ".htm"), "--html")
    _check_ext(a.pdf, (".pdf",), "--pdf")
    _check_paths(files=(a.html, a.pdf), folders=((a.figures, "the figures"),))
    p = _open(a.project)
    try:
        out = write_report(
            p, a.run, a.html, embed_audio=a.embed_audio, worst=a.worst, pdf=a.pdf, figures=a.figures
        )
    except PdfUnavailable as exc:
        raise UsageError(str(exc)) from None
    print(f"report: {out.html}")
    if out.pdf:
        print(f"pdf: {out.pdf}")
    if out.figures:
        print(f"figures: {count(len(out.figures), 'file')} in {a.figures}")
    for s in out.audio_skipped:
        print(f"audio not embedded: {s}", file=sys.stderr)
    return EXIT_OK


def cmd_export(a):
    from ..reports.data import load_run
    from ..reports.tables import export_tables, table_format

    if not any((a.items, a.groups, a.comparisons, a.textgrid, a.eaf)):
        raise UsageError(
            "nothing to export: give --items, --groups, --comparisons, --textgrid and/or --eaf"
        )
    for opt, f in (("--items", a.items), ("--groups", a.groups), ("--comparisons", a.comparisons)):
        if f:
            try:
                fmt = table_format(f)
            except ValueError as exc:
                raise UsageError(f"{opt} {exc}") from None
            if fmt == "parquet":  # before any table is written
                from ..core.extras import require

                require("parquet", f"{opt} {f}", ("pyarrow",))
    if a.annotator_tiers and not (a.textgrid or a.eaf):
        raise UsageError("--annotator-tiers adds tiers to --textgrid and --eaf files: give one")
    _check_paths(
        files=(a.items, a.groups, a.comparisons),
        folders=((a.textgrid, "the TextGrids"), (a.eaf, "the ELAN files")),
    )
    p = _open(a.project)
    d = load_run(p, a.run)
    if a.item:
        items: pd.DataFrame = d.items  # RunData types it as object
        known = set(items["id"].astype(str))
        unknown = [i for i in a.item if i not in known]
        if unknown:
            raise UsageError(f"run {a.run} has no item(s) {', '.join(map(repr, unknown))}")
    written: dict[str, list[Any]] = {
        "tables": [str(x) for x in export_tables(d, a.items, a.groups, a.comparisons)]
    }
    for path in written["tables"]:
        print(f"table: {path}")
    from ..reports.tiers import Aligners

    aligners = Aligners(a.aligner)  # one whisper-tiny.en for both kinds of file
    for kind, folder in (("textgrid", a.textgrid), ("eaf", a.eaf)):
        if not folder:
            continue
        progress = None if a.quiet else _progress_lines()
        try:
            if kind == "textgrid":
                from ..reports.praat import export_textgrids

                its = export_textgrids(
                    p,
                    a.run,
                    folder,
                    aligner=aligners,
                    items=a.item,
                    copy_audio=a.copy_audio,
                    progress=progress,
                    annotator_tiers=a.annotator_tiers,
                )
            else:
                from ..reports.elan import export_eafs

                its = export_eafs(
                    p,
                    a.run,
                    folder,
                    aligner=aligners,
                    items=a.item,
                    progress=progress,
                    annotator_tiers=a.annotator_tiers,
                )
        except KeyboardInterrupt:
            print(
                "fairdesk export: cancelled (Ctrl-C); the forced alignments made so far "
                f"({aligners.aligned}) are kept in the project and the same command goes on "
                "from them",
                file=sys.stderr,
            )
            raise
        sources: dict[str, int] = {}
        for it in its:
            sources[it.reference_source] = sources.get(it.reference_source, 0) + 1
        print(f"{kind}: {count(len(its), 'file')} in {folder}")
        for src, n in sorted(sources.items()):
            print(f"  reference word times for {count(n, 'item')}: {src}")
        notes = sorted({it.note for it in its if it.note})
        for n in notes:
            print(f"  note: {n}", file=sys.stderr)
        written[kind] = [
            {
                "item": it.item,
                "reference_times": it.reference_source,
                "hypothesis_times": it.hypothesis_source,
                "note": it.note,
                "duration": it.duration,
            }
            for it in its
        ]
    if a.json:
        dump_json(written, a.json)
    return EXIT_OK


def _progress_lines(every: float = 2.0):
    """``progress(fraction, message)`` printing ``[ 45.0%] message`` on stderr at most every
    ``every`` seconds and at the end, as ``fairdesk audit`` does."""
    import time

    last = [0.0]

    def progress(frac, msg):
        now = time.monotonic()
        if now - last[0] > every or frac >= 1.0:
            last[0] = now
            print(f"[{100 * frac:5.1f}%] {msg}", file=sys.stderr, flush=True)

    return progress


def cmd_annotate(a):
    from ..core.errors import StoreError
    from ..core.versions import said_annotator

    p = _open(a.project, write="importing transcripts")
    try:
        if a.from_textgrid:
            from ..reports.praat import import_textgrids

            rep = import_textgrids(p, a.dataset, a.from_textgrid, a.tier, a.annotator)
        else:
            from ..reports.elan import import_eafs

            rep = import_eafs(p, a.dataset, a.from_eaf, a.tier, a.annotator)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    folder = a.from_textgrid or a.from_eaf
    if rep.refused:
        if a.json:
            dump_json(rep.to_dict(), a.json)
        listed = "\n".join(f"  {f}: item {i!r}" for f, i in rep.unknown)
        raise UsageError(
            f"{folder}: nothing imported: {count(len(rep.unknown), 'file')} "
            f"{'names an item' if len(rep.unknown) == 1 else 'name items'} that dataset "
            f"{a.dataset!r} does not have (renamed files, or exported from another "
            f"dataset?):\n{listed}\nremove or rename {'it' if len(rep.unknown) == 1 else 'them'} "
            "and import again"
        )
    print(
        f"{count(rep.files, 'file')} in {folder}: {count(len(rep.imported), 'transcript')} "
        f"imported as annotations, {len(rep.unchanged)} unchanged, "
        f"{count(len(rep.problems), 'problem')} (annotator: {said_annotator(a.annotator)})"
    )
    for f, item, ann in rep.imported:
        print(f"  {f}: item {item} (annotation {ann})")
    for f, reason in rep.problems:
        print(f"  {f}: {reason}", file=sys.stderr)
    if a.json:
        dump_json(rep.to_dict(), a.json)
    if rep.files == 0:
        print(
            f"fairdesk annotate: no {'TextGrid' if a.from_textgrid else '.eaf'} files in {folder}",
            file=sys.stderr,
        )
    return EXIT_OK if (rep.imported or (rep.unchanged and not rep.problems)) else EXIT_NOTHING
