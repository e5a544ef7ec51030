"""VCTK and TIMIT on fixtures in the published layouts (TIMIT's audio as NIST SPHERE)."""

import pandas as pd
import pytest
import soundfile as sf

from fairdesk.core.errors import ImportFailed
from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.store import Project
from tests.conftest import tone, write_wav


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def vctk_tree(root, old=False):
    """VCTK 0.92 (speaker-info.txt with p-ids and a comment, FLAC mic1/mic2) or 0.80 (numeric
    ids, wav48/*.wav)."""
    pid = (lambda s: s[1:]) if old else (lambda s: s)
    _write(
        root / "speaker-info.txt",
        "ID  AGE  GENDER  ACCENTS  REGION COMMENTS \n"
        f"{pid('p225')}  23  F    English    Southern  England\n"
        f"{pid('p234')}  22  F    Scottish  West Dumfries\n"
        f"{pid('p280')}  25  F    France    (mic2 files unavailable)\n",
    )
    utts = [
        ("p225", "001", "Please call Stella."),
        ("p225", "002", "Ask her to bring these."),
        ("p234", "001", "Please call Stella."),
        ("p280", "001", "Six spoons."),
        ("p999", "001", "Who am I?"),
        ("p234", "003", "No audio here."),
    ]
    for i, (spk, n, text) in enumerate(utts):
        _write(root / "txt" / spk / f"{spk}_{n}.txt", text + "\n")
        if n == "003":
            continue
        if old:
            write_wav(root / "wav48" / spk / f"{spk}_{n}.wav", seconds=0.3, freq=200 + 20 * i)
        else:
            for mic in ("mic1", "mic2"):
                write_wav(
                    root / "wav48_silence_trimmed" / spk / f"{spk}_{n}_{mic}.flac",
                    seconds=0.3,
                    freq=200 + 20 * i,
                    fmt="FLAC",
                )
    return root


@pytest.mark.parametrize("old", [False, True])
def test_vctk_items_speakers_and_metadata(project, tmp_path, old):
    root = vctk_tree(tmp_path / "VCTK-Corpus", old=old)
    assert detect_format(root) == "vctk"
    rep = import_dataset(project, "v", root)
    assert rep.format == "vctk" and rep.imported == 5
    items = project.items(project.dataset("v")).set_index("id")
    assert list(items.index) == ["p225_001", "p225_002", "p234_001", "p280_001", "p999_001"]
    p = items.loc["p234_001"]
    assert (p["speaker_id"], p["age"], p["gender"], p["accent"], p["region"]) == (
        "p234",
        22,
        "female",
        "Scottish",
        "West Dumfries",
    )
    assert items.loc["p225_001", "region"] == "Southern England"
    assert items.loc["p225_001", "path"] == (
        "wav48/p225/p225_001.wav" if old else "wav48_silence_trimmed/p225/p225_001_mic1.flac"
    )
    assert items.loc["p280_001", "comment"] == "mic2 files unavailable"
    assert items.loc["p280_001", "accent"] == "France"
    assert items.loc["p225_001", "content_id"] == items.loc["p234_001", "content_id"]
    reasons = sorted(pr.reason for pr in rep.problems)
    assert reasons == [
        "no audio for p234_003 (looked for wav48_silence_trimmed/p234/p234_003_mic1.flac and "
        "wav48/p234/p234_003.wav)",
        "speaker p999 is not in speaker-info.txt: imported without age, gender, accent and region",
    ]


def write_sphere(path, seconds=0.4, freq=220.0):
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), tone(seconds, 16000, freq), 16000, format="NIST", subtype="PCM_16")


def timit_tree(root):
    """TIMIT/TRAIN|TEST/DR*/<speaker>/ with SPHERE .WAV, .TXT, .WRD, .PHN and DOC/SPKRINFO.TXT."""
    t = root / "TIMIT"
    sents = [
        ("TRAIN", "DR1", "FCJF0", "SA1", "She had your dark suit in greasy wash water all year."),
        ("TRAIN", "DR1", "FCJF0", "SX37", "Critical equipment needs proper maintenance."),
        ("TRAIN", "DR5", "MRWS1", "SA1", "She had your dark suit in greasy wash water all year."),
        ("TEST", "DR8", "MJLN0", "SI1449", "Bob papered over the skylight."),
    ]
    for i, (split, dr, spk, sent, text) in enumerate(sents):
        d = t / split / dr / spk
        write_sphere(d / f"{sent}.WAV", freq=200 + 30 * i)
        _write(d / f"{sent}.TXT", f"0 6400 {text}\n")
        _write(d / f"{sent}.WRD", "0 3000 she\n")
        _write(d / f"{sent}.PHN", "0 2000 h#\n")
    _write(t / "TRAIN" / "DR1" / "FCJF0" / "SI648.TXT", "0 100 no audio\n")
    write_sphere(t / "TEST" / "DR8" / "MJLN0" / "SX9.WAV")
    _write(t / "TEST" / "DR8" / "MJLN0" / "SX9.TXT", "just words\n")
    _write(
        t / "DOC" / "SPKRINFO.TXT",
        "; ID  Sex DR Use  RecDate   BirthDate  Ht    Race Edu  Comments\n"
        ";\n"
        "CJF0  F  1  TRN  01/24/86  01/04/61  5'04\"  WHT  BS\n"
        "RWS1  M  5  TRN  03/18/86  07/30/57  5'10\"  BLK  MS\n"
        "JLN0  M  8  TST  02/04/86  ??        5'11\"  ???  ??\n",
    )
    return root


def test_timit_reads_sphere_path_facts_and_spkrinfo(project, tmp_path):
    root = timit_tree(tmp_path / "timit")
    assert detect_format(root) == "timit"
    rep = import_dataset(project, "t", root)
    assert rep.format == "timit" and rep.imported == 4
    items = project.items(project.dataset("t")).set_index("id")
    assert list(items.index) == [
        "test/MJLN0/SI1449",
        "train/FCJF0/SA1",
        "train/FCJF0/SX37",
        "train/MRWS1/SA1",
    ]
    a = items.loc["train/FCJF0/SA1"]
    assert (a["speaker_id"], a["gender"], a["dialect_region"], a["dialect"], a["split"]) == (
        "FCJF0",
        "female",
        "DR1",
        "New England",
        "train",
    )
    assert (a["age"], a["education"], a["race"], a["sentence_type"]) == (25, "BS", "WHT", "SA")
    assert a["text"] == "She had your dark suit in greasy wash water all year."
    assert a["content_id"] == "timit:SA1" == items.loc["train/MRWS1/SA1", "content_id"]
    assert a["phones_file"] == "TIMIT/TRAIN/DR1/FCJF0/SA1.PHN"
    assert a["words_file"] == "TIMIT/TRAIN/DR1/FCJF0/SA1.WRD"
    assert a["sample_rate"] == 16000 and a["duration"] == pytest.approx(0.4)
    assert items.loc["train/MRWS1/SA1", "age"] == 28
    j = items.loc["test/MJLN0/SI1449"]
    assert j["dialect"] == "Army Brat (moved around)"
    assert pd.isna(j["education"]) and pd.isna(j["age"])  # "??" in SPKRINFO.TXT: unknown
    got = sorted((pr.path, pr.reason) for pr in rep.problems)
    assert got == [
        (
            "TIMIT/TEST/DR8/MJLN0/SX9.TXT",
            "not a TIMIT transcript ('<first sample> <last sample> <words>')",
        ),
        ("TIMIT/TRAIN/DR1/FCJF0/SI648.TXT", "no audio SI648.WAV beside SI648.TXT"),
    ]


def test_timit_folders_off_its_pattern_are_imported_and_said(project, tmp_path):
    """Sentences under DR9/ or a speaker folder not named <F|M><3 letters><digit> were left
    out without a word (32 of 40 imported, 0 problems); they are imported with what the
    folder cannot tell left unknown, and each such folder is a problem saying so."""
    root = timit_tree(tmp_path / "timit")
    t = root / "TIMIT"
    extra = [
        ("TRAIN", "DR9", "FABC0", "SA1"),
        ("TRAIN", "DR9", "FABC0", "SX12"),
        ("TRAIN", "DR1", "BADNAME", "SA2"),
        ("TEST", "extra", "MXYZ1", "SI10"),  # a split with only an odd region folder
        ("TEST", "DR8", "spk7", "SA1"),
    ]
    for split, dr, spk, sent in extra:
        d = t / split / dr / spk
        write_sphere(d / f"{sent}.WAV")
        _write(d / f"{sent}.TXT", "0 6400 Words here.\n")
    write_sphere(t / "TRAIN" / "DR2" / "SA1.WAV")  # outside a speaker folder
    _write(t / "TRAIN" / "DR2" / "SA1.TXT", "0 6400 Lost.\n")
    rep = import_dataset(project, "t", root)
    assert rep.imported == 4 + len(extra)
    items = project.items(project.dataset("t")).set_index("id")
    dr9 = items.loc["train/FABC0/SA1"]
    assert (dr9["speaker_id"], dr9["gender"], dr9["split"]) == ("FABC0", "female", "train")
    assert pd.isna(dr9["dialect_region"]) and pd.isna(dr9["dialect"])
    bad = items.loc["train/BADNAME/SA2"]
    assert (bad["speaker_id"], bad["dialect_region"], bad["dialect"]) == (
        "BADNAME",
        "DR1",
        "New England",
    )
    assert pd.isna(bad["gender"]) and bad["content_id"] == "timit:SA2"
    assert items.loc["test/MXYZ1/SI10", "gender"] == "male"
    assert pd.isna(items.loc["test/MXYZ1/SI10", "dialect_region"])
    assert items.loc["test/SPK7/SA1", "dialect_region"] == "DR8"
    got = {pr.path: pr.reason for pr in rep.problems if pr.path.endswith("/")}
    region = (
        "is not one of TIMIT's dialect regions DR1–DR8: {} without dialect_region and "
        "dialect; rename the folder to its region (DR1–DR8) if you know it"
    )
    speaker = (
        "is not named as TIMIT names a speaker (F or M, three letters, a digit: FCJF0): {} "
        "with speaker id {} and no gender; rename the folder to its speaker's TIMIT id to "
        "give the gender and the SPKRINFO.TXT facts"
    )
    assert got == {
        "TIMIT/TRAIN/DR9/": "the folder TIMIT/TRAIN/DR9 "
        + region.format("its 2 sentences are imported"),
        "TIMIT/TEST/extra/": "the folder TIMIT/TEST/extra "
        + region.format("its 1 sentence is imported"),
        "TIMIT/TRAIN/DR1/BADNAME/": "the folder TIMIT/TRAIN/DR1/BADNAME "
        + speaker.format("its 1 sentence is imported", "BADNAME"),
        "TIMIT/TEST/DR8/spk7/": "the folder TIMIT/TEST/DR8/spk7 "
        + speaker.format("its 1 sentence is imported", "SPK7"),
    }
    (stray,) = [pr for pr in rep.problems if pr.path == "TIMIT/TRAIN/DR2/SA1.TXT"]
    assert stray.reason == (
        "SA1.TXT lies in the region folder DR2, outside a speaker folder: not imported; move "
        "it into its speaker's folder (DR2/FCJF0/SA1.TXT, F or M for the gender)"
    )
    # every sentence file is an item or a problem: none left out without a word
    txts = {p.relative_to(root).as_posix() for p in root.rglob("*.TXT") if "DOC" not in p.parts}
    named = {pr.path for pr in rep.problems}
    assert len(txts) == rep.imported + len(named & txts)


def test_vctk_and_timit_need_their_layout(project, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImportFailed, match="VCTK layout"):
        import_dataset(project, "v", tmp_path / "empty", fmt="vctk")
    with pytest.raises(ImportFailed, match="TIMIT layout"):
        import_dataset(project, "t", tmp_path / "empty", fmt="timit")
