"""Issue 47's field journey, from an empty folder as after a fresh clone: the Igbo minimal-pair
prompt list (resources/prompts) read by four speakers, recorded in the main window's Record tab
from audio files played as the microphone (espeak-ng's voice, a file per take, as ``fairdesk gui
--input-file`` records), then everything else as a user types it on the command line: an audit
with ``predictions:FILE``, the run's TextGrids exported, two annotators' copies of them edited
(Obi hears other tones than Ada on known letters), ``fairdesk annotate --annotator`` twice,
``fairdesk agreement --json``, ``fairdesk adjudicate`` and audits with ``--reference-text
adjudicated`` and ``resample``. Every number is checked against a computation of its own."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import unicodedata

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import Qt

from tests.gui.test_journeys import (
    _open,
    _pick_file,
    _settings,
    _tab,
    watch,  # noqa: F401 - the journeys' fixture
)

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")

LIST = "igbo_tonal_minimal_pairs"
#: speaker: (accent, espeak-ng pitch, words per minute) - four voices, two groups
SPEAKERS = {
    "n1": ("north", 35, 150),
    "n2": ("north", 60, 165),
    "s1": ("south", 45, 140),
    "s2": ("south", 70, 175),
}
#: (speaker, prompt number) whose marks the model drops
DROPPED_AT = (("n2", 3), ("s1", 0), ("s1", 1), ("s2", 0))
#: Where Obi hears other tones than the prompt (speaker, prompt number): his text. Ada writes
#: every prompt as it is. Units that differ: n1's first a (ákwá: mark dropped), s1's second a
#: (àkwà: grave heard acute), s1's second a (àkwá: mark dropped), s2's first a (ákwà: dropped).
OBI = {("n1", 0): "akwá", ("s1", 2): "àkwá", ("s1", 3): "àkwa", ("s2", 1): "akwà"}


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def clip(folder, speaker: str, k: int, text: str):
    """espeak-ng reading ``text`` in ``speaker``'s voice (a 22,050 Hz WAV)."""
    _accent, pitch, speed = SPEAKERS[speaker]
    out = folder / f"{speaker}_{k}.wav"
    subprocess.run(
        ["espeak-ng", "-v", "sw", "-p", str(pitch), "-s", str(speed), "-w", str(out), text],
        check=True,
        capture_output=True,
    )
    return out


def record_in_the_gui(qtbot, folder, tmp_path, monkeypatch, guard, prompts):
    """Every speaker reads every prompt in the Record tab, each take from its own clip."""
    win = _open(qtbot, folder, _settings(tmp_path), (1366, 768), guard)
    rp = _tab(qtbot, win, 5, "record")
    i = rp.list_combo.findData(LIST)
    assert i >= 0
    rp.list_combo.setCurrentIndex(i)
    assert [p.text for p in rp.prompt_list] == prompts
    clips = tmp_path / "clips"
    clips.mkdir()
    seconds = {}  # (speaker, prompt): the clip's length
    for spk, (accent, _p, _s) in SPEAKERS.items():
        rp.speaker_id.clear()
        qtbot.keyClicks(rp.speaker_id, spk)
        rp.meta["accent"].clear()
        qtbot.keyClicks(rp.meta["accent"], accent)
        for k, text in enumerate(prompts):
            rect = rp.prompts.visualItemRect(rp.prompts.item(k))
            qtbot.mouseClick(rp.prompts.viewport(), Qt.LeftButton, pos=rect.center())
            assert rp.index == k
            wav = clip(clips, spk, k, text)
            seconds[spk, text] = sf.info(str(wav)).duration
            _pick_file(monkeypatch, wav)
            qtbot.mouseClick(rp.devices.file_btn, Qt.LeftButton)
            assert rp.devices.input_choice() == "file" and rp.can_record
            with qtbot.waitSignal(rp.take_recorded, timeout=20000):
                qtbot.mouseClick(rp.record_btn, Qt.LeftButton)
            qtbot.waitUntil(rp.accept_btn.isEnabled, timeout=10000)
            with qtbot.waitSignal(rp.take_accepted, timeout=10000):
                qtbot.mouseClick(rp.accept_btn, Qt.LeftButton)
    rp.shutdown()
    win.close()
    guard.check()
    return seconds


def list_prompts() -> list[str]:
    """The prompt texts of the built-in list, read from its file (NFC)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "resources" / "prompts" / f"{LIST}.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() and not line.startswith("#") else {}
        if "text" in row:
            out.append(nfc(row["text"]))
    return out


def strip_marks(text: str) -> str:
    return nfc(
        "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    )


def audit(folder, preds, out, capsys, *extra) -> dict:
    """``fairdesk audit`` of the field dataset with the predictions; its JSON result."""
    code = cli(
        "audit",
        "--project",
        folder,
        "--dataset",
        "field",
        "--model",
        f"predictions:{preds}",
        "--by",
        "accent",
        "--n-bootstrap",
        1000,
        "--min-items",
        2,
        "--min-speakers",
        2,
        "--json",
        out,
        "--quiet",
        *extra,
    )
    assert code == 0, capsys.readouterr()
    return json.loads(out.read_text(encoding="utf-8"))


def run_references(folder, run_id, out) -> dict[str, str]:
    """The reference each item of a run was scored against (``fairdesk export --items``)."""
    assert cli("export", "--project", folder, "--run", run_id, "--items", out, "--quiet") == 0
    with open(out, encoding="utf-8", newline="") as f:
        return {r["id"]: nfc(r["reference"]) for r in csv.DictReader(f)}


def run_label(folder, run_id, capsys) -> str:
    """The run's line in ``fairdesk runs`` (its name)."""
    capsys.readouterr()
    assert cli("runs", "--project", folder) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(f"run {run_id} ")]
    assert len(lines) == 1
    return lines[0]


def predictions(path) -> dict[str, str]:
    with open(path, encoding="utf-8", newline="") as f:
        return {r["id"]: nfc(r["text"]) for r in csv.DictReader(f)}


def marks(text: str) -> list[str]:
    """The mark set of each base letter of ``text`` ('' without one), in order."""
    out: list[str] = []
    for c in unicodedata.normalize("NFD", text):
        if unicodedata.combining(c) and out:
            out[-1] += c
        elif not c.isspace():
            out.append("")
    return out


def der_gap(refs: dict, accent: dict, hyps: dict) -> float:
    """South minus north of (dropped + hallucinated marks) / expected marks, pooled over a
    group's items, each item's counts averaged over its reference versions (``refs[item]``:
    a list); the letters of these one-word items align one to one."""
    rate = {}
    for g in ("north", "south"):
        wrong = expected = 0.0
        for i, versions in refs.items():
            if accent[i] != g:
                continue
            for ref in versions:
                r, h = marks(ref), marks(hyps[i])
                assert len(r) == len(h)
                expected += sum(bool(m) for m in r) / len(versions)
                wrong += sum(bool(a) != bool(b) for a, b in zip(r, h)) / len(versions)
        rate[g] = wrong / expected
    return rate["south"] - rate["north"]


def comparison(result: dict, metric: str) -> dict:
    (c,) = [c for c in result["comparisons"] if c["metric"] == metric]
    return c


def edit_reference_tiers(folder, texts: dict[str, str], item: dict) -> int:
    """Write ``texts[item]`` in the reference tier of each item's TextGrid (found by its
    speaker's folder and the prompt it shows), as an annotator edits them in Praat."""
    from praatio import textgrid

    done = 0
    for path in sorted(folder.rglob("*.TextGrid")):
        tg = textgrid.openTextgrid(str(path), includeEmptyIntervals=True)
        tier = tg.getTier("reference")
        words = [e for e in tier.entries if e.label.strip()]
        assert len(words) == 1, (path, tier.entries)
        key = item[path.parent.name, nfc(words[0].label)]
        tier = tier.new(
            entries=[e._replace(label=texts[key]) if e.label.strip() else e for e in tier.entries]
        )
        tg.replaceTier("reference", tier)
        tg.save(str(path), format="long_textgrid", includeBlankSpaces=True)
        done += 1
    return done


def cli(*args) -> int:
    from fairdesk.cli import main

    return main([str(a) for a in args])


def test_record_audit_annotate_twice_agree_adjudicate_and_resample(
    qtbot,
    tmp_path,
    watch,  # noqa: F811 - the journeys' fixture
    monkeypatch,
    capsys,
):
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    folder = tmp_path / "proj"
    assert cli("init", folder) == 0
    prompts = list_prompts()
    seconds = record_in_the_gui(qtbot, folder, tmp_path, monkeypatch, watch, prompts)
    capsys.readouterr()
    assert cli("items", "--project", folder, "--dataset", "field", "--json") == 0
    items = json.loads(capsys.readouterr().out)
    # every speaker read every prompt: one item each, its text the prompt's
    assert sorted((r["speaker_id"], nfc(r["text"])) for r in items) == sorted(
        (spk, t) for spk in SPEAKERS for t in prompts
    )
    item = {(r["speaker_id"], nfc(r["text"])): r["id"] for r in items}
    for r in items:  # each take is its clip, played through to its end
        assert r["duration"] == pytest.approx(seconds[r["speaker_id"], nfc(r["text"])], abs=0.02)
    accent = {r["id"]: r["accent"] for r in items}
    truth = {r["id"]: nfc(r["text"]) for r in items}
    DROPPED = [(spk, prompts[k]) for spk, k in DROPPED_AT]

    # the model's words (predictions:FILE): it drops every mark of some prompts, more in the
    # south (three items of eight) than in the north (one)
    preds = tmp_path / "predictions.csv"
    with preds.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "text"])
        for i, t in truth.items():
            drop = i in {item[s, t] for s, t in DROPPED}
            w.writerow([i, strip_marks(t) if drop else t])
    first = audit(folder, preds, tmp_path / "first.json", capsys)
    assert first["settings"]["reference_text"] == "latest"
    der = comparison(first, "der")
    assert der["gap"] == pytest.approx(
        der_gap({i: [t] for i, t in truth.items()}, accent, predictions(preds))
    )

    # the run's TextGrids, one per item in a folder per speaker; each annotator edits a copy
    tg = tmp_path / "textgrids"
    assert (
        cli(
            "export",
            "--project",
            folder,
            "--run",
            first["run_id"],
            "--textgrid",
            tg,
            "--aligner",
            "even",
            "--quiet",
        )
        == 0
    )
    ada = {i: t for i, t in truth.items()}  # Ada hears every prompt's tones
    obi = dict(ada)
    for (spk, k), heard in OBI.items():
        obi[item[spk, prompts[k]]] = nfc(heard)
    assert sum(obi[i] != ada[i] for i in truth) == len(OBI)
    for name, texts in (("Ada", ada), ("Obi", obi)):
        copy = tmp_path / name
        shutil.copytree(tg, copy)
        assert edit_reference_tiers(copy, texts, item) == len(truth)
        assert (
            cli(
                "annotate",
                "--project",
                folder,
                "--dataset",
                "field",
                "--from-textgrid",
                copy,
                "--tier",
                "reference",
                "--annotator",
                name,
            )
            == 0
        )

    # agreement: the mark units computed here, letter by letter
    out = tmp_path / "agreement.json"
    assert (
        cli(
            "agreement",
            "--project",
            folder,
            "--dataset",
            "field",
            "--by",
            "accent",
            "--n-bootstrap",
            200,
            "--json",
            out,
        )
        == 0
    )
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["annotators"] == ["Ada", "Obi"]
    groups = {g["group"]: g for g in got["groups"]}
    for g, block in (
        (None, got["overall"]),
        ("north", groups["north"]),
        ("south", groups["south"]),
    ):
        ids = [i for i in truth if g is None or accent[i] == g]
        a = [m for i in ids for m in marks(ada[i])]
        b = [m for i in ids for m in marks(obi[i])]
        units = [(x, y) for x, y in zip(a, b) if x or y]  # letters marked in a version
        assert block["n_items"] == len(ids) and block["n_marks"] == len(units)
        same = sum(x == y for x, y in units)
        assert block["raw"]["value"] == pytest.approx(same / len(units))
        x, y = zip(*units)
        assert block["kappa"]["value"] == pytest.approx(cohen_kappa_score(x, y))
        codes = {c: k for k, c in enumerate(sorted(set(x) | set(y)))}
        data = np.array([[codes[c] for c in x], [codes[c] for c in y]], dtype=float)
        alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert block["alpha"]["value"] == pytest.approx(alpha)
    assert got["overall"]["raw"]["value"] == pytest.approx(28 / 32)  # the four units of OBI
    ranked = {d["item"]: d["marks_differing"] for d in got["disagreements"]}
    assert ranked == {item[spk, prompts[k]]: 1 for spk, k in OBI}

    # adjudication: n1's by Ada's version, s1's àkwà by Obi's, s1's àkwá by a typed text;
    # s2's ákwà waits
    adjudicated = dict(ada)
    for (spk, k), how in (
        (("n1", 0), ("--pick", "Ada")),
        (("s1", 2), ("--pick", "Obi")),
        (("s1", 3), ("--text", prompts[3])),
    ):
        key = item[spk, prompts[k]]
        assert (
            cli(
                "adjudicate",
                "--project",
                folder,
                "--dataset",
                "field",
                "--item",
                key,
                *how,
                "--adjudicator",
                "Chi",
            )
            == 0
        )
        adjudicated[key] = (
            obi[key] if how == ("--pick", "Obi") else ada[key] if how[1] == "Ada" else nfc(how[1])
        )
    waiting = item["s2", prompts[1]]
    part = audit(folder, preds, tmp_path / "part.json", capsys, "--reference-text", "adjudicated")
    # the disagreeing item without adjudication is listed as a problem and left out
    assert [pr["item"] for pr in part["input_problems"]] == [waiting]
    assert "none is adjudicated" in part["input_problems"][0]["reason"]
    assert part["counts"]["n_items"] == len(truth) - 1

    assert (
        cli(
            "adjudicate",
            "--project",
            folder,
            "--dataset",
            "field",
            "--item",
            waiting,
            "--pick",
            "Obi",
            "--adjudicator",
            "Chi",
        )
        == 0
    )
    adjudicated[waiting] = obi[waiting]
    adj = audit(folder, preds, tmp_path / "adj.json", capsys, "--reference-text", "adjudicated")
    assert adj["settings"]["reference_text"] == "adjudicated"
    assert adj["counts"]["n_items"] == len(truth) and not adj["input_problems"]
    refs = run_references(folder, adj["run_id"], tmp_path / "adj.csv")
    assert refs == adjudicated
    hyps = predictions(preds)
    assert comparison(adj, "der")["gap"] == pytest.approx(
        der_gap({i: [t] for i, t in adjudicated.items()}, accent, hyps)
    )
    assert "references: adjudicated" in run_label(folder, adj["run_id"], capsys)

    # resample: every replicate draws Ada's or Obi's version of each item that has two
    res = audit(folder, preds, tmp_path / "res.json", capsys, "--reference-text", "resample")
    assert res["settings"]["reference_text"] == "resample"
    assert res["settings"]["annotators_resampled"] == len(OBI)  # items whose versions differ
    assert "annotators resampled" in run_label(folder, res["run_id"], capsys)
    # the point: each item's statistics averaged over its versions
    both = {i: sorted({ada[i], obi[i]}) for i in truth}
    d_res, d_adj = comparison(res, "der"), comparison(adj, "der")
    assert d_res["gap"] == pytest.approx(der_gap(both, accent, hyps))
    # the interval carries the disagreement: wider than the adjudicated run's (the same
    # speaker draws: the versions are drawn from a stream of their own)
    assert d_res["ci_low"] is not None and d_adj["ci_low"] is not None
    assert d_res["ci_high"] - d_res["ci_low"] > d_adj["ci_high"] - d_adj["ci_low"]
