"""The TextGrid and EAF ``errors`` tiers are the run's own alignment (issue 30, 3): on every
item of a run of the embedded real-speech demo (number prompts normalised across words,
``ZERO NINE THREE`` → ``093``) their S/D/I equal ``fairdesk show``'s; forced alignment
starts after leading silence; files are named after the item id with folders, and
``annotate`` reads those names and the old percent-encoded ones."""

from __future__ import annotations

import csv
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from fairdesk.cli import main

DIGITS = {
    "ZERO": "0",
    "ONE": "1",
    "TWO": "2",
    "THREE": "3",
    "FOUR": "4",
    "FIVE": "5",
    "SIX": "6",
    "SEVEN": "7",
    "EIGHT": "8",
    "NINE": "9",
}


def _hypothesis(k: int, text: str) -> str:
    """A made-up hypothesis with the errors a recogniser makes on these prompts: number
    words heard as digits with a stray letter (``4 c 42``), joined digits, a dropped or
    swapped word, an insertion, nothing at all."""
    words = text.lower().split()
    numbers = [DIGITS.get(w.upper()) for w in words]
    if numbers and all(numbers):
        d = "".join(numbers)
        return [d, f"{d[:1]} c {d[2:]}", f"{d[:-1]}", f"oh {d}", " ".join(d)][k % 5]
    if k % 5 == 1 and len(words) > 2:
        del words[1]
    elif k % 5 == 2:
        words[-1] = "there"
    elif k % 5 == 3:
        words.insert(0, "so")
    elif k % 5 == 4 and k % 3 == 0:
        return ""
    return " ".join(words)


@dataclass
class DemoRun:
    project: Path
    run: int
    textgrids: Path
    eafs: Path
    show: dict  # item id -> show --json report


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> DemoRun:
    from fairdesk.core.demo import L2_NAME, open_demo_dataset
    from fairdesk.core.store import Project

    base = tmp_path_factory.mktemp("l2demo")
    p = Project(base / "proj", create=True)
    assert open_demo_dataset(p, L2_NAME).imported == 1250
    items = p.items(p.dataset(L2_NAME))
    p.close()
    preds = base / "preds.csv"
    with preds.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["item_id", "text"])
        for k, (i, t) in enumerate(zip(items["id"], items["text"], strict=True)):
            w.writerow([i, _hypothesis(k, t)])
    args = ["--project", str(base / "proj")]
    assert (
        main(
            ["audit", *args, "--dataset", L2_NAME, "--model", f"predictions:{preds}"]
            + ["--by", "gender", "--filter", "age_group=child", "--n-bootstrap", "200"]
            + ["--quiet"]
        )
        == 0
    )
    run = 1
    tg, eaf = base / "tg", base / "eaf"
    for opt, folder in (("--textgrid", tg), ("--eaf", eaf)):
        assert (
            main(["export", *args, "--run", str(run), opt, str(folder), "--aligner", "even"]) == 0
        )
    out = base / "show.json"
    show = ["show", *args, "--run", str(run), "--worst", "100000", "--json", str(out)]
    assert main(show) == 0
    reports = {r["id"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    return DemoRun(base / "proj", run, tg, eaf, reports)


def _ops(label: str) -> list[str]:
    """The operations of one interval label (``S a→b; D c; T x→y (dropped 1; not scored)``)."""
    out: list[str] = []
    for piece in label.split("; "):
        if re.match(r"[SDIT] ", piece) or not out:
            out.append(piece)
        else:  # the rest of a detail in brackets
            out[-1] += "; " + piece
    return out


def _counts(labels) -> dict[str, int]:
    n = {"S": 0, "D": 0, "I": 0}
    for lab in labels:
        for op in _ops(lab):
            kind = op[0]
            if kind == "T":
                if op.endswith("not scored)"):
                    continue  # a mark the normaliser removed: no error of the run
                kind = "S"  # a tone-mark substitution is a scored substitution
            n[kind] += 1
    return n


def _show_counts(rep: dict) -> dict[str, int]:
    return {"S": rep["substitutions"], "D": rep["deletions"], "I": rep["insertions"]}


def _textgrid_errors(path: Path) -> list[str]:
    from praatio import textgrid

    tg = textgrid.openTextgrid(str(path), includeEmptyIntervals=False)
    return [e.label for e in tg.getTier("errors").entries]


@pytest.mark.slow
def test_textgrid_errors_equal_show_on_every_item(demo_run):
    from fairdesk.reports.item_files import ItemResolver, item_from_file

    files = sorted(demo_run.textgrids.rglob("*.TextGrid"))
    assert len(files) == len(demo_run.show) > 500
    resolve = ItemResolver(demo_run.show)
    with_digits = 0
    for f in files:
        item = resolve(item_from_file(f.relative_to(demo_run.textgrids), ".TextGrid"))
        rep = demo_run.show[item]
        labels = _textgrid_errors(f)
        assert _counts(labels) == _show_counts(rep), (item, rep["alignment"], labels)
        if any(ch.isdigit() for ch in rep["hypothesis"] or "") and any(labels):
            with_digits += 1
    assert with_digits > 30  # the number prompts, normalised across words, were checked


@pytest.mark.slow
def test_eaf_errors_equal_show_on_every_item(demo_run):
    from fairdesk.reports.elan import read_eaf

    files = sorted(demo_run.eafs.rglob("*.eaf"))
    assert len(files) == len(demo_run.show)
    for f in files:
        item, tiers = read_eaf(f)
        labels = [lab for _s, _e, lab in tiers["errors"]]
        assert _counts(labels) == _show_counts(demo_run.show[item]), (item, labels)


@pytest.mark.slow
def test_a_joined_number_spans_the_words_it_was_said_in(demo_run):
    """``ZERO NINE THREE`` is one token ``093``: its error covers all three words."""
    from praatio import textgrid

    from fairdesk.reports.item_files import ItemResolver, item_from_file

    resolve = ItemResolver(demo_run.show)
    checked = 0
    for f in sorted(demo_run.textgrids.rglob("*.TextGrid")):
        rep = demo_run.show[resolve(item_from_file(f.relative_to(demo_run.textgrids), ".TextGrid"))]
        words = str(rep["reference"]).split()
        if not (len(words) >= 3 and all(w in DIGITS for w in words)):
            continue
        tg = textgrid.openTextgrid(str(f), includeEmptyIntervals=False)
        ref = tg.getTier("reference").entries
        errors = tg.getTier("errors").entries
        if len(errors) == 1 and rep["substitutions"] == 1:  # "0351" heard "0 c 51", "035"
            assert errors[0].start == ref[0].start and errors[0].end == ref[-1].end
            assert sum(op.startswith("S ") for op in _ops(errors[0].label)) == 1
            checked += 1
    assert checked > 10


@pytest.mark.slow
def test_files_are_named_with_folders_and_annotate_reads_old_names_too(demo_run, capsys):
    from praatio import textgrid

    from fairdesk.core.store import Project

    ids = sorted(demo_run.show)
    assert all("/" in i and i.endswith(".opus") for i in ids)  # audio/<speaker>/<utt>.opus
    first, second = ids[0], ids[1]
    # named as the guide's example: folders for the id's parts, no audio extension before
    # the suffix (audio/0001/000010011.TextGrid, beside the clip audio/0001/000010011.opus)
    stem = first.removesuffix(".opus")
    nested = demo_run.textgrids / f"{stem}.TextGrid"
    assert nested.is_file() and not list(demo_run.textgrids.glob("*%2F*"))
    assert not list(demo_run.textgrids.rglob("*.opus.TextGrid"))
    assert len(list(demo_run.textgrids.rglob("*.TextGrid"))) == len(ids)
    assert (demo_run.eafs / f"{second.removesuffix('.opus')}.eaf").is_file()
    assert not list(demo_run.eafs.rglob("*.opus.eaf"))

    edit = demo_run.textgrids.parent / "edited"
    # as exports used to name it: flat, percent-encoded, the whole id
    old_name = edit / (second.replace("/", "%2F") + ".TextGrid")
    new_name = edit / f"{stem}.TextGrid"
    new_name.parent.mkdir(parents=True)
    for src, dst, text in (
        (nested, new_name, "corrected one"),
        (
            demo_run.textgrids / f"{second.removesuffix('.opus')}.TextGrid",
            old_name,
            "corrected two",
        ),
    ):
        tg = textgrid.openTextgrid(str(src), includeEmptyIntervals=False)
        ref = tg.getTier("reference")
        tg.replaceTier("reference", ref.new(entries=[(ref.minTimestamp, ref.maxTimestamp, text)]))
        tg.save(str(dst), format="long_textgrid", includeBlankSpaces=True)
    capsys.readouterr()
    args = ["annotate", "--project", str(demo_run.project), "--dataset", "l2-english"]
    assert main([*args, "--from-textgrid", str(edit), "--tier", "reference"]) == 0
    out = capsys.readouterr().out
    assert "2 transcripts imported" in out
    assert f"{stem}.TextGrid: item {first}" in out and f"item {second}" in out
    p = Project(demo_run.project)
    items = p.items(p.dataset("l2-english")).set_index("id")
    texts = {
        i: [a["value"]["text"] for a in p.annotations(int(items.loc[i, "db_id"]))]
        for i in (first, second)
    }
    p.close()
    assert texts == {first: ["corrected one"], second: ["corrected two"]}
    shutil.rmtree(edit)


# -- forced alignment reads the speech only ----------------------------------------------
class _EvenAligner:
    """A stand-in forced aligner: the words evenly over whatever audio it is given (as
    Whisper's alignment does across leading silence), recording what it was given."""

    key = "even-test"

    def __init__(self):
        self.seconds: list[float] = []

    def align(self, audio, text):
        from fairdesk.explain.alignment import WordSpan

        dur = len(audio) / 16000
        self.seconds.append(dur)
        words = text.split()
        step = dur / len(words)
        return [WordSpan(w, i * step, (i + 1) * step, 0.9) for i, w in enumerate(words)]


def _clip(lead: float = 0.5, speech: float = 1.0, tail: float = 0.3) -> np.ndarray:
    t = np.arange(int(speech * 16000)) / 16000
    voiced = 0.3 * np.sin(2 * np.pi * 220 * t)
    return np.concatenate(
        [np.zeros(int(lead * 16000)), voiced, np.zeros(int(tail * 16000))]
    ).astype(np.float32)


def test_forced_alignment_starts_after_the_leading_silence():
    from fairdesk.reports.tiers import ALIGN_PAD, Aligners

    aligner = _EvenAligner()
    d = SimpleNamespace(language="en")
    samples = _clip()
    spans, source, note = Aligners(aligner).spans(d, {}, ["one", "two"], samples, 1.8)
    assert source == "forced alignment with even-test" and not note
    # the aligner read the voiced second with ALIGN_PAD on each side, not the whole clip
    assert aligner.seconds == [pytest.approx(1.0 + 2 * ALIGN_PAD, abs=0.03)]
    # it began the first word at the start of what it read, in the silence kept before the
    # speech: the word starts where the speech does, and the last ends where it ends
    assert spans[0][0] == pytest.approx(0.5, abs=0.03)
    assert spans[-1][1] == pytest.approx(1.5, abs=0.03)


def test_the_audits_vad_regions_are_preferred_to_the_energy():
    from fairdesk.reports.tiers import ALIGN_PAD, Aligners, speech_bounds

    row = {"speech_regions": json.dumps([[0.7, 0.9], [1.1, 1.3]])}
    samples = _clip()
    assert speech_bounds(row, samples, 1.8) == (0.7, 1.3)
    assert speech_bounds({"speech_regions": "not json"}, samples, 1.8) == pytest.approx(
        (0.5, 1.5), abs=0.03
    )
    assert speech_bounds({}, None, 1.8) == (0.0, 1.8)
    aligner = _EvenAligner()
    spans, _, _ = Aligners(aligner).spans(SimpleNamespace(language="en"), row, ["a"], samples, 1.8)
    assert aligner.seconds == [pytest.approx(0.6 + 2 * ALIGN_PAD)]  # read with the pads
    assert spans == [(pytest.approx(0.7), pytest.approx(1.3), "a")]  # held in the speech


def test_a_whole_clip_of_speech_is_aligned_whole():
    from fairdesk.reports.tiers import Aligners

    aligner = _EvenAligner()
    samples = _clip(lead=0.0, speech=1.0, tail=0.0)
    spans, _, _ = Aligners(aligner).spans(SimpleNamespace(language="en"), {}, ["a"], samples, 1.0)
    assert aligner.seconds == [pytest.approx(1.0, abs=1e-3)] and spans[0][0] == 0.0


# -- the errors tier of one item, without a project ---------------------------------------
@pytest.mark.parametrize(
    ("text", "owners"),
    [
        ("ZERO NINE THREE", [(0, 2)]),  # one token 093
        ("ONE ONE ZERO EIGHT", [(0, 3)]),  # "one" alone stays "one"; in a number it is 1
        ("uh i said 4342", [(0, 1), (2, 2), (3, 3)]),  # the dropped filler joins the next
        ("it is ten past three", [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]),
    ],
)
def test_token_owners_map_whole_text_tokens_to_written_words(text, owners):
    from fairdesk.metrics.normalize import get_normalizer
    from fairdesk.reports.tier_errors import token_owners

    norm = get_normalizer(None, "en")
    assert token_owners(text.split(), norm(text).split(), norm) == owners


def _spans(words):
    return [(float(i), float(i) + 0.9, w) for i, w in enumerate(words)]


def test_error_labels_are_the_runs_alignment():
    from fairdesk.reports.tier_errors import error_labels
    from fairdesk.review import word_alignment

    ref = "ZERO NINE THREE FOUR"
    row = {"reference": ref, "hypothesis": "0 c 934"}
    labels = error_labels(_spans(ref.split()), row, "en", None)
    assert labels == [(0.0, 3.9, "I 0; I c; S 0934→934")]
    assert word_alignment(ref, "0 c 934").counts() == {"S": 1, "D": 0, "I": 2}


def test_a_tone_mark_the_normaliser_removed_is_shown_as_not_scored():
    from fairdesk.reports.tier_errors import error_labels

    row = {"reference": "a café please", "hypothesis": "a cafe please"}
    labels = error_labels(_spans(row["reference"].split()), row, "en", None)
    assert labels == [(1.0, 1.9, "T café→cafe (dropped 1; not scored)")]
    assert _counts([lab for *_, lab in labels]) == {"S": 0, "D": 0, "I": 0}
