"""Speech Accent Archive and L2-ARCTIC importers on fixtures in the published layouts."""

import json

import pytest
import soundfile as sf

from fairdesk.cli import main
from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.importers_saa import CONTENT_ID, STELLA
from fairdesk.core.store import Project
from tests.conftest import tone, write_wav


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def write_mp3(path, seconds=0.6, freq=220.0):
    """A real MP3 (libsndfile ≥ 1.1 encodes MPEG layer III)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), tone(seconds, 16000, freq), 16000, format="MP3")


def saa_tree(root):
    """speakers_all.csv as published (three unnamed trailing columns) + MP3s in
    recordings/recordings/ (the Kaggle copy's nesting)."""
    rec = root / "recordings" / "recordings"
    lines = [
        "age,age_onset,birthplace,filename,native_language,sex,speakerid,country,file_missing?,,,"
    ]
    speakers = [
        (
            "27",
            "9",
            '"virginia, south africa"',
            "afrikaans1",
            "afrikaans",
            "female",
            "1",
            "south africa",
            "False",
        ),
        (
            "40",
            "5",
            '"pretoria, south africa"',
            "afrikaans2",
            "afrikaans",
            "male",
            "2",
            "south africa",
            "False",
        ),
        ("43", "4", '"tirana, albania"', "albanian1", "albanian", "male", "3", "albania", "False"),
        (
            "25",
            "6",
            '"durres, albania"',
            "albanian2",
            "albanian",
            "female",
            "4",
            "albania",
            "False",
        ),
        (
            "19",
            "6",
            '"lagos, nigeria"',
            "yoruba3",
            "yoruba",
            "male",
            "5",
            "nigeria",
            "True",
        ),  # the archive marks it missing
        ("30", "0", '"boston, usa"', "english9", "english", "female", "6", "usa", "False"),
    ]  # its MP3 is not there
    for i, s in enumerate(speakers):
        lines.append(",".join(s) + ",,,")
        if s[-1] == "False" and s[3] != "english9":
            write_mp3(rec / f"{s[3]}.mp3", freq=200 + 20 * i)
    (root / "speakers_all.csv").write_text("\n".join(lines) + "\n")
    return root


def test_saa_import_counts_groups_and_shared_content(project, tmp_path):
    root = saa_tree(tmp_path / "saa")
    assert detect_format(root) == "saa"
    rep = import_dataset(project, "saa", root, fmt="saa")
    assert rep.imported == 4 and rep.format == "saa"
    by_line = {p.row: p.reason for p in rep.problems}
    assert set(by_line) == {6, 7}  # header is line 1
    assert "file_missing? = True" in by_line[6] and "english9.mp3" in by_line[7]
    items = project.items(project.dataset("saa"))
    assert set(items["native_language"]) == {"afrikaans", "albanian"}
    assert set(items["sex"]) == {"female", "male"}
    assert sorted(items["age_onset"]) == [4, 5, 6, 9]  # numbers, for covariates
    assert set(items["content_id"]) == {CONTENT_ID} and set(items["text"]) == {STELLA}
    assert set(items["speaker_id"]) == {"1", "2", "3", "4"}
    s = project.dataset_summary(project.dataset("saa"))
    assert s["columns"]["native_language"]["albanian"]["speakers"] == 2


def test_saa_cli_and_matched_design(project, tmp_path, capsys):
    root = saa_tree(tmp_path / "saa")
    code = main(
        [
            "import",
            "--project",
            str(project.folder),
            "--name",
            "saa",
            str(root),
            "--format",
            "saa",
            "--json",
        ]
    )
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    assert d["imported"] == 4 and len(d["problems"]) == 2
    # every speaker read the same content: the design of any split is matched
    import pandas as pd

    from fairdesk.jobs.analysis import analyse
    from fairdesk.stats import AuditSettings

    items = project.items(project.dataset("saa"))
    f = pd.DataFrame(
        {
            "group": items["native_language"],
            "speaker_id": items["speaker_id"],
            "content_id": items["content_id"],
            "reference": items["text"],
            "hypothesis": items["text"].str.replace("Stella", "Stellar"),
        }
    )
    _fr, res = analyse(f, AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1))
    res = res.to_json()  # bridge: typed consumer pending
    assert res["design"] == "matched"
    hm = res["word_positions"][CONTENT_ID]
    assert hm["words"][2] == "stella" and hm["groups"]["albanian"][2] == 1.0


def textgrid(path, phones, words=()):
    """A TextGrid with a phones tier (and words) via praatio."""
    from praatio import textgrid as tgio

    end = max(e for _s, e, _l in phones)
    tg = tgio.Textgrid()
    tg.addTier(tgio.IntervalTier("words", list(words) or [(0.0, end, "x")], 0, end))
    tg.addTier(tgio.IntervalTier("phones", phones, 0, end))
    path.parent.mkdir(parents=True, exist_ok=True)
    tg.save(str(path), format="long_textgrid", includeBlankSpaces=True)


def l2_tree(root):
    for spk in ("ABA", "BWC", "ZZZ"):
        for utt in ("arctic_a0001", "arctic_a0002"):
            write_wav(root / spk / "wav" / f"{utt}.wav", seconds=1.0)
            (root / spk / "transcript").mkdir(parents=True, exist_ok=True)
            (root / spk / "transcript" / f"{utt}.txt").write_text(
                "Author of the danger trail" if utt.endswith("1") else "Not at this particular case"
            )
    # ABA a0001: 5 phones, 2 errors (a substitution and a deletion) + 1 addition
    textgrid(
        root / "ABA" / "annotation" / "arctic_a0001.TextGrid",
        [
            (0.00, 0.10, "sil"),
            (0.10, 0.20, "AO1"),
            (0.20, 0.30, "TH,S,s"),
            (0.30, 0.40, "ER0"),
            (0.40, 0.50, "AH0,sil,d"),
            (0.50, 0.60, "sil,AH,a"),
            (0.60, 0.70, "V"),
            (0.70, 1.00, "sil"),
        ],
    )
    # BWC a0001: no error
    textgrid(
        root / "BWC" / "annotation" / "arctic_a0001.TextGrid", [(0.0, 0.5, "N"), (0.5, 1.0, "AA1")]
    )
    # BWC a0002: a malformed label
    textgrid(
        root / "BWC" / "annotation" / "arctic_a0002.TextGrid",
        [(0.0, 0.5, "N,T"), (0.5, 1.0, "AA1")],
    )
    (root / "ABA" / "transcript" / "arctic_a0002.txt").unlink()
    return root


def test_l2arctic_import_with_annotations(project, tmp_path):
    root = l2_tree(tmp_path / "l2")
    assert detect_format(root) == "l2arctic"
    rep = import_dataset(project, "l2", root, fmt="l2arctic")
    assert rep.imported == 5
    reasons = " | ".join(p.reason for p in rep.problems)
    assert "ZZZ is not in the L2-ARCTIC speaker table" in reasons
    assert "no transcript ABA/transcript/arctic_a0002.txt" in reasons
    assert "'N,T'" in reasons and "CPL,PPL,type" in reasons
    items = project.items(project.dataset("l2")).set_index("id")
    assert items.loc["ABA/arctic_a0001", "native_language"] == "Arabic"
    assert items.loc["ABA/arctic_a0001", "gender"] == "male"
    assert items.loc["BWC/arctic_a0002", "native_language"] == "Mandarin"
    # 4 canonical phones (AO TH ER AH) + V = 5; errors: s, d, a = 3
    assert float(items.loc["ABA/arctic_a0001", "accentedness"]) == pytest.approx(3 / 5)
    assert float(items.loc["BWC/arctic_a0001", "accentedness"]) == 0.0
    db = int(items.loc["ABA/arctic_a0001", "db_id"])
    errs = project.annotations(db, "phone_error")
    assert [
        (a["start"], a["end"], a["value"]["canonical"], a["value"]["perceived"], a["value"]["type"])
        for a in errs
    ] == [
        (0.2, 0.3, "TH", "S", "substitution"),
        (0.4, 0.5, "AH", "-", "deletion"),
        (0.5, 0.6, "-", "AH", "addition"),
    ]
    counts = project.annotations(db, "phone_counts")[0]["value"]
    assert counts["n_phones"] == 5 and counts["phones"]["TH"] == 1
    # re-import replaces, never duplicates
    import_dataset(project, "l2", root, fmt="l2arctic")
    assert len(project.annotations(db, "phone_error")) == 3
