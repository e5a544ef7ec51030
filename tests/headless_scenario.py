"""What a headless install (``pip install fairdesk``, no extras) must do, as one script.

Run by tests/test_optional_deps.py with every optional package blocked
(tests/block_imports.py), and by installer/headless_check.sh against a fresh virtual
environment with fairdesk installed without extras. Standard library only.

Usage: python tests/headless_scenario.py WORKDIR [--no-extras] -- FAIRDESK_COMMAND...
  e.g. ``... /tmp/w -- /tmp/venv/bin/fairdesk``: each step runs that command in WORKDIR.
  ``-- --in-process``: each step calls ``fairdesk.cli.main`` in this process instead, after
  blocking the packages named in ``FAIRDESK_BLOCK`` (tests/block_imports.py; ``all``: every
  extra's). ``--no-extras`` also checks that each missing extra is named in one clean line
  (exit code 2, no traceback); leave it out when the extras are installed.

Steps: ``--help``; ``audit --table`` and ``regress --table`` of a references/hypotheses
table; ``import`` of a small manifest of WAV files; a project ``audit`` with
``--model predictions:FILE``; ``export`` of its items/groups/comparisons tables and of
TextGrids and ELAN files (``--aligner even``: reference word times by an even split, no
model; ``auto`` falls back to it without fairdesk[asr]); ``show`` and ``models``. Prints one
line per step and exits 1 on the first failure.
"""

from __future__ import annotations

import csv
import json
import math
import random
import re
import subprocess
import sys
import wave
from pathlib import Path

ACCENTS = ("north", "south")
SPEAKERS = 4  # per accent
UTTERANCES = 4  # per speaker
WORDS = "the quick brown fox jumps over a lazy dog near the river bank".split()


def rows():
    """A deterministic corpus: the south accent gets more substitutions."""
    rng = random.Random(7)
    out = []
    for accent in ACCENTS:
        for s in range(SPEAKERS):
            for u in range(UTTERANCES):
                ref = rng.sample(WORDS, 6)
                hyp = list(ref)
                for k in range(2 if accent == "south" else rng.choice((0, 0, 1))):
                    hyp[k] = "uh"
                out.append(
                    {
                        "id": f"{accent}-{s}-{u}",
                        "speaker": f"{accent}{s}",
                        "accent": accent,
                        "reference": " ".join(ref),
                        "hypothesis": " ".join(hyp),
                        "path": f"audio/{accent}-{s}-{u}.wav",
                    }
                )
    return out


def write_wav(path: Path, seconds: float, freq: float) -> None:
    """Silence, a tone with some noise (speech-like energy), silence: 16 kHz mono 16-bit."""
    rng = random.Random(int(freq))
    sr = 16000
    frames = bytearray()
    for i in range(int(seconds * sr)):
        t = i / sr
        on = 0.2 < t < seconds - 0.2
        v = (0.3 * math.sin(2 * math.pi * freq * t) if on else 0.0) + rng.gauss(0, 0.003)
        frames += int(max(-1.0, min(1.0, v)) * 32767).to_bytes(2, "little", signed=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(bytes(frames))


def write_csv(path: Path, records, fields) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(records)
    return path


def in_process(args, cwd):
    """``fairdesk ARGS`` by ``fairdesk.cli.main`` here: (exit code, stdout + stderr); an
    exception that escapes ``main`` is printed as the traceback a user would see."""
    import contextlib
    import io
    import os
    import traceback

    from fairdesk.cli import main

    buf = io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                rc = main(args)
            except SystemExit as exc:  # argparse: --help, usage errors
                rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:  # noqa: BLE001 - exactly what must not happen
                traceback.print_exc()
                rc = "an exception"
    finally:
        os.chdir(old)
    return rc, buf.getvalue()


class Scenario:
    def __init__(self, work: Path, fairdesk: list[str]):
        self.work, self.fairdesk = work, fairdesk
        self.work.mkdir(parents=True, exist_ok=True)

    def run(self, title, args, want=0, expect=()):
        """Run ``fairdesk ARGS``; check its exit code, that it printed no traceback, and
        that its output holds every string of ``expect``. Returns the output."""
        if self.fairdesk == ["--in-process"]:
            rc, out = in_process([str(x) for x in args], self.work)
        else:
            r = subprocess.run(
                [*self.fairdesk, *map(str, args)],
                cwd=self.work,
                capture_output=True,
                text=True,
                timeout=600,
            )
            rc, out = r.returncode, r.stdout + r.stderr
        why = []
        if rc != want:
            why.append(f"exit {rc}, expected {want}")
        if "Traceback" in out:
            why.append("a traceback")
        why += [f"no {e!r} in the output" for e in expect if e not in out]
        if why:
            print(f"FAILED {title}: {'; '.join(why)}\n  fairdesk {' '.join(map(str, args))}")
            print("\n".join("  | " + line for line in out.splitlines()[-30:]))
            raise SystemExit(1)
        print(f"ok {title}")
        return out

    def tables(self):
        table = write_csv(
            self.work / "table.csv", rows(), ["id", "speaker", "accent", "reference", "hypothesis"]
        )
        self.run("fairdesk --help", ["--help"], expect=["audit", "regress", "export"])
        out = self.work / "table-audit.json"
        self.run(
            "audit --table",
            [
                "audit",
                "--table",
                table,
                "--by",
                "accent",
                "--reference",
                "north",
                "--speaker-col",
                "speaker",
                "--n-bootstrap",
                "200",
                "--min-speakers",
                "2",
                "--min-items",
                "5",
                "--json",
                out,
                "--quiet",
            ],
        )
        res = json.loads(out.read_text(encoding="utf-8"))
        assert res["comparisons"], "audit --table: no comparisons"
        out = self.work / "table-regress.json"
        self.run(
            "regress --table",
            [
                "regress",
                "--table",
                table,
                "--vars",
                "accent",
                "--outcome",
                "wer",
                "--reference",
                "accent=north",
                "--json",
                out,
            ],
        )
        assert json.loads(out.read_text(encoding="utf-8")), "regress --table: empty result"

    def project(self, no_extras: bool):
        data = self.work / "corpus"
        recs = rows()
        for k, r in enumerate(recs):
            write_wav(data / r["path"], 1.2 + 0.1 * (k % 4), 180.0 + 10 * k)
        manifest = write_csv(
            data / "manifest.csv", recs, ["id", "path", "reference", "speaker", "accent"]
        )
        proj = self.work / "project"
        self.run(
            "import",
            [
                "import",
                "--project",
                proj,
                "--name",
                "toy",
                "--audio-col",
                "path",
                "--text-col",
                "reference",
                "--speaker-col",
                "speaker",
                "--id-col",
                "id",
                manifest,
            ],
        )
        preds = [{"path": r["path"], "text": r["hypothesis"]} for r in recs]
        pfile = write_csv(self.work / "predictions.csv", preds, ["path", "text"])
        out = self.work / "project-audit.json"
        self.run(
            "audit --model predictions:FILE",
            [
                "audit",
                "--project",
                proj,
                "--dataset",
                "toy",
                "--model",
                f"predictions:{pfile}",
                "--by",
                "accent",
                "--reference",
                "north",
                "--n-bootstrap",
                "200",
                "--min-speakers",
                "2",
                "--min-items",
                "5",
                "--json",
                out,
            ],
            expect=[
                "acoustic covariates (duration, non-speech share, SNR: the Silero VAD) need fairdesk[asr]"
            ]
            if no_extras
            else (),
        )
        res = json.loads(out.read_text(encoding="utf-8"))
        assert res["comparisons"], "project audit: no comparisons"
        run = res["run_id"]
        self.run(
            "show --worst",
            ["show", "--project", proj, "--run", run, "--worst", "2"],
            expect=["REF:", "HYP:"],
        )
        self.run(
            "models",
            ["models"],
            expect=["predictions:<file>", "pip install 'fairdesk[asr]'"] if no_extras else (),
        )
        ex = self.work / "export"
        self.run(
            "export tables, TextGrids and ELAN files",
            [
                "export",
                "--project",
                proj,
                "--run",
                run,
                "--items",
                ex / "items.csv",
                "--groups",
                ex / "groups.tsv",
                "--comparisons",
                ex / "comparisons.csv",
                "--textgrid",
                ex / "textgrid",
                "--eaf",
                ex / "eaf",
                "--aligner",
                "even",
            ],
        )
        n_items = len(recs)
        with open(ex / "items.csv", encoding="utf-8") as f:
            got = sum(1 for _ in csv.DictReader(f))
        assert got == n_items, f"items.csv: {got} rows, expected {n_items}"
        for folder, ext in (("textgrid", ".TextGrid"), ("eaf", ".eaf")):
            n = len(list((ex / folder).rglob(f"*{ext}")))
            assert n == n_items, f"{folder}: {n} files, expected {n_items}"
        # auto: whisper-tiny.en would align English; without fairdesk[asr] an even split
        self.run(
            "export TextGrids (--aligner auto)",
            ["export", "--project", proj, "--run", run, "--textgrid", ex / "auto"],
        )
        return proj, run

    def missing_extras(self, proj, run):
        """Each missing extra: one clean line naming it, exit code 2 (``record``: 1)."""
        ex = self.work / "export"
        checks = [
            ("gui", ["gui", "--project", proj]),
            (
                "asr",
                [
                    "audit",
                    "--quiet",
                    "--project",
                    proj,
                    "--dataset",
                    "toy",
                    "--model",
                    "whisper-tiny.en",
                    "--by",
                    "accent",
                ],
            ),
            (
                "hf",
                [
                    "audit",
                    "--quiet",
                    "--project",
                    proj,
                    "--dataset",
                    "toy",
                    "--model",
                    f"hf:{self.work / 'no-model'}",
                    "--by",
                    "accent",
                ],
            ),
            ("report", ["report", "--project", proj, "--run", run, "--html", ex / "r.html"]),
            ("parquet", ["export", "--project", proj, "--run", run, "--items", ex / "i.parquet"]),
            (
                "asr",
                [
                    "export",
                    "--project",
                    proj,
                    "--run",
                    run,
                    "--textgrid",
                    ex / "w",
                    "--aligner",
                    "whisper",
                ],
            ),
            ("gui", ["record", "devices"], 1),  # recording unavailable: exit 1, as without a device
            (
                "cluster",
                [
                    "audit",
                    "--quiet",
                    "--project",
                    proj,
                    "--dataset",
                    "toy",
                    "--model",
                    f"predictions:{self.work / 'predictions.csv'}",
                    "--by",
                    "accent",
                    "--engine",
                    "ray",
                ],
            ),
        ]
        for extra, args, *want in checks:
            out = self.run(
                f"{args[0]} without fairdesk[{extra}] says so",
                args,
                want=want[0] if want else 2,
                expect=[f"fairdesk[{extra}]", f"pip install 'fairdesk[{extra}]'"],
            )
            # one message; a progress line the job printed before it failed ("[  0.0%] ...")
            # does not count
            lines = [
                ln for ln in out.splitlines() if ln.strip() and not re.match(r"\[\s*[\d.]+%\]", ln)
            ]
            assert len(lines) == 1, f"{args[0]}: {len(lines)} lines, expected one:\n{out}"
            print(f"   says: {lines[0]}")


def main(argv) -> int:
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    k = argv.index("--")
    opts, fairdesk = argv[:k], argv[k + 1 :]
    no_extras = "--no-extras" in opts
    work = Path([o for o in opts if o != "--no-extras"][0])
    if fairdesk == ["--in-process"]:
        import os

        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from block_imports import OPTIONAL, install

        names = [n.strip() for n in os.environ.get("FAIRDESK_BLOCK", "").split(",") if n.strip()]
        install(OPTIONAL if names == ["all"] else names)
    s = Scenario(work, fairdesk)
    s.tables()
    proj, run = s.project(no_extras)
    if no_extras:
        s.missing_extras(proj, run)
    print("headless scenario: PASSED")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
