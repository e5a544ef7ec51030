"""Shared fixtures: small audio trees built by the tests themselves."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def tone(seconds=0.5, sr=16000, freq=220.0, channels=1, amp=0.3):
    t = np.arange(int(seconds * sr)) / sr
    x = (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    if channels > 1:
        x = np.stack([x * (1 + 0.1 * c) for c in range(channels)], axis=1)
    return x


def write_wav(path, seconds=0.5, sr=16000, channels=1, freq=220.0, fmt=None, subtype=None):
    import soundfile as sf

    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), tone(seconds, sr, freq, channels), sr, format=fmt, subtype=subtype)
    return path


@pytest.fixture(autouse=True, scope="session")
def _decoded_cache(tmp_path_factory):
    """The decoded-audio cache (fairdesk.core.decoded) of the test run: a temporary folder,
    never the user's own cache (set before any test, inherited by the CLI's processes)."""
    if "FAIRDESK_CACHE" not in os.environ:
        os.environ["FAIRDESK_CACHE"] = str(tmp_path_factory.mktemp("fairdesk-cache"))
    yield


@pytest.fixture(autouse=True)
def _no_kept_saliency_model():
    """A test starts with no model kept loaded by an earlier test's saliency job
    (fairdesk.jobs.tasks.saliency_backend): a fake ``get_backend`` must be the one asked."""
    yield
    tasks = sys.modules.get("fairdesk.jobs.tasks")
    if tasks is not None:
        tasks.release_saliency_backends()


@pytest.fixture
def wav_factory(tmp_path):
    def make(rel, **kw):
        return write_wav(tmp_path / rel, **kw)

    return make


# Python 3.11 + PySide6 6.12: after a full run that mixes soxr resampling with many Qt
# widgets, interpreter finalisation can abort in a C extension ("bool_dealloc: deallocating
# True or False") although every test passed. The results are final once pytest has printed
# its summary, so the test process leaves without finalisation, keeping pytest's exit code.
def pytest_sessionfinish(session, exitstatus):
    session.config._fairdesk_exitstatus = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    status = getattr(config, "_fairdesk_exitstatus", None)
    if status is not None and os.environ.get("FAIRDESK_TEST_HARD_EXIT", "1") == "1":
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def espeak(text: str, folder, voice: str = "en-us", name: str = "speech.wav"):
    """``text`` spoken by espeak-ng as float32 mono 16 kHz (the test is skipped without it)."""
    import shutil
    import subprocess

    import soundfile as sf
    import soxr

    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip(
            "espeak-ng is not installed: cannot synthesise test speech (apt install espeak-ng)"
        )
    path = folder / name
    subprocess.run([exe, "-v", voice, "-w", str(path), text], check=True, capture_output=True)
    audio, sr = sf.read(str(path), dtype="float32", always_2d=False)
    return soxr.resample(audio, sr, 16000).astype(np.float32)


def tone_project(tmp_path, durations: dict, n_speakers: int, n_contents: int, text: str):
    """A project with dataset ``d``: per accent (key of ``durations``) ``n_speakers`` speakers
    each reading ``n_contents`` sentences; every file is a distinct tone of the accent's
    duration. Returns (project, data folder)."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    root = tmp_path / "data"
    lines = ["path,text,speaker_id,content_id,accent"]
    for accent, secs in durations.items():
        for s in range(n_speakers):
            for c in range(n_contents):
                rel = f"{accent}/{s}_{c}.wav"
                write_wav(root / rel, seconds=secs, freq=200 + 10 * c + 3 * s)
                lines.append(f"{rel},{text},{accent}{s},c{c},{accent}")
    (root / "m.csv").write_text("\n".join(lines) + "\n")
    p = Project(tmp_path / "proj")
    n = len(durations) * n_speakers * n_contents
    assert import_dataset(p, "d", root / "m.csv").imported == n
    return p, root


def missing_values_run(include_missing=False):
    """A --table audit by accent of 3 groups, the third with no accent value (None, only
    spaces, a JSON list: docs/METHODS.md, "Missing values"), for the views' tests."""
    import pandas as pd

    import fairdesk

    rng = np.random.default_rng(2)
    rows = []
    for acc, p, n_spk in (("north", 0.03, 7), ("south", 0.2, 6), (None, 0.3, 5)):
        for s in range(n_spk):
            for c in range(6):
                ref = f"play track number {c} from the album"
                hyp = " ".join(w if rng.random() > p else "zzz" for w in ref.split())
                value = acc if acc else [None, " ", ["x"]][s % 3]
                rows.append(
                    {
                        "reference": ref,
                        "hypothesis": hyp,
                        "speaker_id": f"{acc}{s}",
                        "accent": value,
                    }
                )
    df = pd.DataFrame(rows)
    return fairdesk.audit_table(
        df, by="accent", n_bootstrap=200, min_items=10, include_missing=include_missing
    )


ACCENT_SENTENCES = [
    "please book a table at the {} near the station",
    "we met for coffee at the {} after the long meeting",
    "turn left at the corner and walk past the old market",
    "the weather tomorrow will be cloudy with some light rain",
    "send the report to the whole team before friday morning",
    "remind me to call my sister when i get back home",
]


def english_accents_table():
    """English references, three accents × 6 speakers × 6 sentences; the word café (one
    mark) in both café sentences of a and b (E = 12 each) and in 3 of c's (E = 3); the
    recogniser drops the accent on every other café (docs/METHODS.md, "When the diacritic
    metrics apply")."""
    import pandas as pd

    rng = np.random.default_rng(4)
    rows = []
    for acc, p in (("a", 0.05), ("b", 0.2), ("c", 0.1)):
        for s in range(6):
            for k, sent in enumerate(ACCENT_SENTENCES):
                accented = k < 2 and (acc != "c" or (k == 0 and s < 3))
                ref = sent.format("café" if accented else "cafe")
                words = [w if rng.random() > p else "zzz" for w in ref.split()]
                hyp = " ".join(w.replace("é", "e") if s % 2 else w for w in words)
                rows.append(
                    {
                        "reference": ref,
                        "hypothesis": hyp,
                        "speaker_id": f"{acc}{s}",
                        "content_id": f"c{k}",
                        "accent": acc,
                    }
                )
    return pd.DataFrame(rows)


def english_accents_run(**kw):
    """A --table audit of :func:`english_accents_table` by accent, reference a (keywords go
    to ``fairdesk.audit_table``: ``metrics=["der"]``, ``language``)."""
    import fairdesk

    return fairdesk.audit_table(
        english_accents_table(), by="accent", reference="a", n_bootstrap=300, min_items=10, **kw
    )


def predictions_csv(path, lose, n_speakers: int = 6, n_contents: int = 5, accents=("a", "b")):
    """A predictions file for a :func:`tone_project` of "play the song now": the item
    ``<accent>/<speaker>_<content>.wav`` reads "play the song" (its last word lost) where
    ``lose(accent, speaker, content)`` is true, else the whole sentence. Returns ``path``."""
    import csv

    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["path", "text"])
        for accent in accents:
            for s in range(n_speakers):
                for c in range(n_contents):
                    text = "play the song" if lose(accent, s, c) else "play the song now"
                    w.writerow([f"{accent}/{s}_{c}.wav", text])
    return path


def underpowered_pilot(tmp_path):
    """A stored run whose accent-b comparisons are ``inconclusive_underpowered`` (6 speakers
    per accent × 5 items of tone audio, predictions imported: the b speakers drop the last
    word twice as often). Returns ``(project folder, AuditOutput)``; the project is closed.
    """
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.stats.settings import AuditSettings

    p, _root = tone_project(tmp_path, {"a": 0.4, "b": 0.4}, 6, 5, "play the song now")
    preds = predictions_csv(
        tmp_path / "preds.csv", lambda acc, s, c: (c + s) % 5 < (2 if acc == "b" else 1)
    )
    out = run_audit(
        p,
        AuditRequest(
            dataset="d",
            model=f"predictions:{preds}",
            by=("accent",),
            reference="a",
            nlu="none",
            settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2),
        ),
    )
    folder = str(p.folder)
    p.close()
    return folder, out


def coded_words(notes):
    """Coded notes (a Notice, or a dict of them by metric) in today's words; None and text as
    they are."""
    from fairdesk.presentation.notices import notice_text

    if notes is None or isinstance(notes, str):
        return notes
    if isinstance(notes, dict):
        return {k: coded_words(v) for k, v in notes.items()}
    return notice_text(notes)
