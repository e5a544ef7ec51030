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

Run: ``.venv/bin/python bench/segment_memory.py [--minutes 60] [--segments 300]``.

Measured on this machine (2 shared cores, 24 GiB, CPU only), 60 minutes, 300 segments (18.4
minutes of speech): model floor 236 MB, import 48 MB, import + audit 458 MB (0.92 of the
target; audit 165 s). With whisper-tiny.en's earlier CPU batch of 8 clips the audit peaked at
851 MB: each clip of a batch holds a copy of the cross-attention cache per beam, so the CPU
default now keeps batch × beam at most 10.
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
    ap.add_argument("--child", choices=["model", "audit"], help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        fn = child_model if a.child == "model" else child_audit
        print(json.dumps(fn(Path(a.folder))))
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
