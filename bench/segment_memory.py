"""Peak memory of importing and auditing a long session segmented in ELAN (issue: segments
as items; target below 500 MB for a 60-minute session of 300 segments, model loaded).

A 60-minute 16 kHz session WAV is written one utterance at a time (the embedded real
speech, speechocean762, 300 utterances spread over the hour with silence between them) with
an ELAN file of two tiers, one per speaker. Then, each in a fresh process so the peaks do not
mix:

- ``model``: load whisper-tiny.en (faster-whisper, int8 on CPU) and transcribe one
  utterance: the floor any audit with this model pays;
- ``audit``: import the session (``--format eaf``) and audit it with whisper-tiny.en by tier.

Each prints its peak resident set (``ru_maxrss`` of the process and of any child it ran);
the bench prints them side by side with the target and with what decoding the whole session
once would take (60 min × 16 kHz × 4 bytes, float32), which an audit that read the session
per segment would pay many times over.

``--single-hours H`` measures the other long case instead: recordings that are one item
each (two files of H hours, 16 kHz mono, real speech with pauses; default 3 h), imported
from a manifest and audited with imported predictions (the acoustic covariates included:
the Silero VAD and the SNR over the whole recording), each step in a fresh process; the
target is 1 GB (:data:`SINGLE_TARGET_MB`), against a peak of 9.1 GB before the block-wise
probe and covariates.

``--whisper-minutes M`` measures a recording of M minutes that is one item (16 kHz mono,
real speech with pauses; and a one-minute recording as the other group) imported from a
manifest and audited with whisper-tiny.en, acoustic covariates included; target 1 GB.

Run: ``.venv/bin/python bench/segment_memory.py [--minutes 60] [--segments 300]``,
``.venv/bin/python bench/segment_memory.py --single-hours 3`` or
``.venv/bin/python bench/segment_memory.py --whisper-minutes 30``.

Measured on this machine (2 shared cores, 24 GiB, CPU only), 60 minutes, 300 segments (18.4
minutes of speech): model floor 236 MB, import 48 MB, import + audit 458 MB (0.92 of the
target; audit 165 s). With whisper-tiny.en's earlier CPU batch of 8 clips the audit peaked at
851 MB: each clip of a batch holds a copy of the cross-attention cache per beam, so the CPU
default now keeps batch × beam at most 10.

``--whisper-minutes 30``, measured 2026-12-06 on a 2-core AMD EPYC virtual machine (23 GiB,
CPU only, cores shared): import 158 MB, import + audit 890 MB (0.87 of the target; audit
93 s). Before whisper's log-mel features of a long clip were computed in blocks
(:func:`fairdesk.models.whisper_features.bound_features`) the same audit peaked at 1,879 MB:
faster-whisper built the windowed frames and spectrum of the whole 30 minutes at once. The
model's transcription of the 30-minute clip alone (model and clip loaded first) peaks at
574 MB.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MB = 500.0
SINGLE_TARGET_MB = 1024.0


def _peak_mb() -> tuple[float, float]:
    """Peak RSS (MB) of this process and of its largest finished child."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return own, kids


def child_model(folder: Path) -> dict:
    from fairdesk.core import spans
    from fairdesk.models import get_backend

    be = get_backend("whisper-tiny.en")
    clip = spans.load(folder / "corpus" / "session.wav", start_s=0.5, end_s=4.0).samples
    t0 = time.perf_counter()
    be.transcribe([clip])
    own, kids = _peak_mb()
    return {"peak_mb": own, "children_mb": kids, "seconds": time.perf_counter() - t0}


def child_audit(folder: Path) -> dict:
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    sys.path.insert(0, str(ROOT))
    from tests.session_fixture import audit_by_tier

    project = Project(folder / "proj")
    t0 = time.perf_counter()
    rep = import_dataset(project, "session", folder / "corpus", fmt="eaf", tiers="Ana-tx,Ben-tx")
    t_import = time.perf_counter() - t0
    own_import, _ = _peak_mb()
    t0 = time.perf_counter()
    out = audit_by_tier(project, "session", "whisper-tiny.en")
    own, kids = _peak_mb()
    return {
        "imported": rep.imported,
        "problems": len(rep.problems),
        "items": int(len(out.frame)),
        "failures": len(out.failures),
        "import_s": t_import,
        "audit_s": time.perf_counter() - t0,
        "import_peak_mb": own_import,
        "peak_mb": own,
        "children_mb": kids,
    }


def write_long(folder: Path, hours: float, name: str) -> str:
    """A WAV of ``hours`` of the embedded real utterances with 0.6 s pauses, written a block
    at a time; returns its transcript."""
    import numpy as np
    import soundfile as sf

    sys.path.insert(0, str(ROOT))
    from tests.session_fixture import _utterances

    total = int(hours * 3600 * 16000)
    pause = np.zeros(int(0.6 * 16000), dtype=np.float32)
    words, n = [], 0
    with sf.SoundFile(str(folder / name), "w", 16000, 1, subtype="PCM_16") as f:
        for text, x in _utterances(10**7):
            if n + x.size + pause.size > total:
                break
            f.write(x)
            f.write(pause)
            n += x.size + pause.size
            words.append(text)
    return " ".join(words)


def child_single(folder: Path, model: str | None = None) -> dict:
    """Import ``corpus/manifest.csv`` and audit it with ``model`` (default: the imported
    predictions beside it)."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    project = Project(folder / "proj")
    t0 = time.perf_counter()
    rep = import_dataset(project, "long", folder / "corpus" / "manifest.csv")
    t_import = time.perf_counter() - t0
    own_import, _ = _peak_mb()
    t0 = time.perf_counter()
    out = run_audit(
        project,
        AuditRequest(
            dataset="long",
            model=model or f"predictions:{folder / 'corpus' / 'predictions.csv'}",
            by=("group",),
            metrics=("wer",),
            nlu="none",
            settings=AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1),
        ),
    )
    own, kids = _peak_mb()
    acoustic = out.result.acoustics if hasattr(out.result, "acoustics") else None
    return {
        "imported": rep.imported,
        "problems": len(rep.problems),
        "items": int(len(out.frame)),
        "failures": len(out.failures),
        "measured": None if acoustic is None else getattr(acoustic, "n_measured", None),
        "snr": [None if v != v else round(float(v), 1) for v in out.frame.get("snr_db", [])],
        "import_s": t_import,
        "audit_s": time.perf_counter() - t0,
        "import_peak_mb": own_import,
        "peak_mb": own,
        "children_mb": kids,
    }


def single_main(hours: float) -> None:
    import csv

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus = folder / "corpus"
        corpus.mkdir()
        t0 = time.perf_counter()
        rows, preds = [], []
        for k, name in enumerate(("a.wav", "b.wav")):
            text = write_long(corpus, hours, name)
            words = text.split()
            hyp = " ".join(w for i, w in enumerate(words) if i % 10 != 3)  # a word in ten lost
            rows.append({"path": name, "text": text, "speaker_id": f"s{k}", "group": "ab"[k]})
            preds.append({"path": name, "text": hyp})
        for fname, data in (("manifest.csv", rows), ("predictions.csv", preds)):
            with open(corpus / fname, "w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, fieldnames=list(data[0]))
                w.writeheader()
                w.writerows(data)
        size = sum(p.stat().st_size for p in corpus.glob("*.wav")) / 2**20
        print(
            f"two recordings of {hours:g} h each (16 kHz mono, {size:.0f} MB of WAV), one item "
            f"each, written in {time.perf_counter() - t0:.0f} s"
        )
        got = _run_child("single", folder)
    whole_mb = hours * 3600 * 16000 * 4 / 2**20
    _report(
        got,
        [
            ("import of the two recordings", got["import_peak_mb"]),
            ("import + audit with imported predictions", got["peak_mb"]),
            ("one recording decoded whole (float32)", whole_mb),
        ],
    )


def child_whisper(folder: Path) -> dict:
    return child_single(folder, "whisper-tiny.en")


def whisper_main(minutes: float) -> None:
    """A recording of ``minutes`` (one item, 16 kHz mono real speech with pauses) and a
    one-minute one (the other group), imported from a manifest and audited with
    whisper-tiny.en, acoustic covariates included; target 1 GB."""
    import csv

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus = folder / "corpus"
        corpus.mkdir()
        t0 = time.perf_counter()
        rows = []
        for k, (name, mins) in enumerate((("long.wav", minutes), ("short.wav", 1.0))):
            text = write_long(corpus, mins / 60.0, name)
            rows.append({"path": name, "text": text, "speaker_id": f"s{k}", "group": "ab"[k]})
        with open(corpus / "manifest.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        print(
            f"one recording of {minutes:g} min and one of 1 min (16 kHz mono), one item each, "
            f"written in {time.perf_counter() - t0:.0f} s"
        )
        got = _run_child("whisper", folder)
    whole_mb = minutes * 60 * 16000 * 4 / 2**20
    _report(
        got,
        [
            ("import of the two recordings", got["import_peak_mb"]),
            ("import + audit with whisper-tiny.en", got["peak_mb"]),
            ("largest child", got["children_mb"]),
            (f"the {minutes:g}-min recording decoded whole (float32)", whole_mb),
        ],
    )


def _report(got: dict, rows: list[tuple[str, float]]) -> None:
    """The audit's line, then each peak beside the target, then the verdict."""
    print(
        f"audit: {got['imported']} imported ({got['problems']} problems), {got['items']} scored, "
        f"{got['failures']} failures, SNR {got['snr']} dB; import {got['import_s']:.0f} s, "
        f"audit {got['audit_s']:.0f} s"
    )
    print()
    print(f"{'peak RSS (MB)':<52}{'MB':>8}{'÷ target':>10}")
    for name, mb in [*rows, ("target", SINGLE_TARGET_MB)]:
        print(f"{name:<52}{mb:>8.0f}{mb / SINGLE_TARGET_MB:>10.2f}")
    peak = max(got["peak_mb"], got["children_mb"])
    print(f"{'below' if peak < SINGLE_TARGET_MB else 'ABOVE'} the {SINGLE_TARGET_MB:.0f} MB target")


def _run_child(mode: str, folder: Path) -> dict:
    cmd = [sys.executable, __file__, "--child", mode, "--folder", str(folder)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"the {mode} step failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--segments", type=int, default=300)
    ap.add_argument(
        "--single-hours",
        type=float,
        help="measure two recordings of this many hours, one item each, instead",
    )
    ap.add_argument(
        "--whisper-minutes",
        type=float,
        help="measure one recording of this many minutes, one item, audited with "
        "whisper-tiny.en, instead",
    )
    ap.add_argument(
        "--child", choices=["model", "audit", "single", "whisper"], help=argparse.SUPPRESS
    )
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        fn = {
            "model": child_model,
            "audit": child_audit,
            "single": child_single,
            "whisper": child_whisper,
        }[a.child]
        print(json.dumps(fn(Path(a.folder))))
        return
    if a.single_hours:
        single_main(a.single_hours)
        return
    if a.whisper_minutes:
        whisper_main(a.whisper_minutes)
        return

    sys.path.insert(0, str(ROOT))
    from tests.session_fixture import write_elan_session

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        ivs = write_elan_session(
            folder / "corpus", n_intervals=a.segments, minutes=a.minutes, name="session"
        )
        wav = folder / "corpus" / "session.wav"
        speech = sum(iv.end - iv.start for iv in ivs)
        print(
            f"session: {a.minutes:g} min, {len(ivs)} segments ({speech / 60:.1f} min of speech), "
            f"{wav.stat().st_size / 2**20:.0f} MB WAV, written in {time.perf_counter() - t0:.1f} s"
        )
        model = _run_child("model", folder)
        audit = _run_child("audit", folder)
    whole_mb = a.minutes * 60 * 16000 * 4 / 2**20
    peak = max(audit["peak_mb"], audit["children_mb"])
    print(
        f"audit: {audit['imported']} imported ({audit['problems']} problems), "
        f"{audit['items']} scored, {audit['failures']} failures; import {audit['import_s']:.1f} s, "
        f"audit {audit['audit_s']:.0f} s"
    )
    print()
    print(f"{'peak RSS (MB)':<52}{'MB':>8}{'÷ target':>10}")
    rows = [
        ("model loaded, one utterance", model["peak_mb"]),
        ("import of the session", audit["import_peak_mb"]),
        ("import + audit (whole process)", audit["peak_mb"]),
        ("largest child (a fork starts at its parent's size)", audit["children_mb"]),
        ("decoding the whole session once (float32)", whole_mb),
        ("target", TARGET_MB),
    ]
    for name, mb in rows:
        print(f"{name:<52}{mb:>8.0f}{mb / TARGET_MB:>10.2f}")
    print()
    print(
        f"audit peak − model floor: {peak - model['peak_mb']:.0f} MB; "
        f"{'below' if peak < TARGET_MB else 'ABOVE'} the {TARGET_MB:.0f} MB target"
    )


if __name__ == "__main__":
    main()
