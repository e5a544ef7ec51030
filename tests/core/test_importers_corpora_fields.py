"""The corpus readers' candidates and problems field by field, messages word for word
(Speech Accent Archive: ``read_saa``; L2-ARCTIC: ``parse_phones_tier``)."""

from collections import Counter

import pytest

from fairdesk.core.errors import ImportFailed
from fairdesk.core.import_rows import Candidate, Problem
from fairdesk.core.importers_l2arctic import parse_phones_tier
from fairdesk.core.importers_saa import CONTENT_ID, STELLA, read_saa
from tests.core.test_importers_corpora import textgrid, write_mp3

HEADER = "age,age_onset,birthplace,filename,native_language,sex,speakerid,country,file_missing?"


def _saa(root, rows, mp3s=()):
    root.mkdir(parents=True, exist_ok=True)
    (root / "speakers_all.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    for name in mp3s:
        write_mp3(root / name, seconds=0.2)
    return root


def test_saa_candidates_and_problems_field_by_field(tmp_path):
    root = _saa(
        tmp_path / "saa",
        [
            "27,9,pretoria,afrikaans1,afrikaans,female,11,south africa,False",  # line 2
            "31,,lagos,,yoruba,male,12,nigeria,False",  # 3: no filename
            "19,6,ibadan,yoruba3,yoruba,male,13,nigeria,TRUE",  # 4: marked missing
            "30,0,boston,english9,english,female,14,usa,False",  # 5: no MP3
            "22.5, ,kano,hausa2.MP3,hausa,male,,nigeria,",  # 6: no speakerid
            "40,5,tirana,albanian1,albanian,male,16,albania,no",  # 7
        ],
        mp3s=["afrikaans1.mp3", "hausa2.MP3", "albanian1.mp3"],
    )
    src = str(root / "speakers_all.csv")
    got_root, cands, problems = read_saa(root)
    assert got_root == root
    assert problems == [
        Problem(3, None, "no filename in this row", src),
        Problem(
            4,
            "yoruba3.mp3",
            "the archive marks this speaker's recording as missing "
            "(file_missing? = True); nothing to import",
            src,
        ),
        Problem(
            5,
            "english9.mp3",
            f"no english9.mp3 in {root} or its recordings/ folder; put "
            "the MP3 there or remove the row",
            src,
        ),
    ]
    assert cands == [
        Candidate(
            row=2,
            source=src,
            key="afrikaans1",
            path=str(root / "afrikaans1.mp3"),
            text=STELLA,
            speaker_id="11",
            content_id=CONTENT_ID,
            metadata={
                "age": 27,
                "age_onset": 9,
                "birthplace": "pretoria",
                "native_language": "afrikaans",
                "sex": "female",
                "country": "south africa",
            },
        ),
        # a name already ending in .mp3 (any case) is the file name as it is; no speakerid:
        # the file's stem; a blank value is left out; a fractional age stays a float
        Candidate(
            row=6,
            source=src,
            key="hausa2",
            path=str(root / "hausa2.MP3"),
            text=STELLA,
            speaker_id="hausa2",
            content_id=CONTENT_ID,
            metadata={
                "age": 22.5,
                "birthplace": "kano",
                "native_language": "hausa",
                "sex": "male",
                "country": "nigeria",
            },
        ),
        Candidate(
            row=7,
            source=src,
            key="albanian1",
            path=str(root / "albanian1.mp3"),
            text=STELLA,
            speaker_id="16",
            content_id=CONTENT_ID,
            metadata={
                "age": 40,
                "age_onset": 5,
                "birthplace": "tirana",
                "native_language": "albanian",
                "sex": "male",
                "country": "albania",
            },
        ),
    ]


def test_saa_refusals_word_for_word(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImportFailed) as e:
        read_saa(empty)
    assert str(e.value) == (
        f"{empty}: no speakers_all.csv (Speech Accent Archive layout: "
        "speakers_all.csv and the MP3s, in the folder or in recordings/)"
    )
    root = tmp_path / "cols"
    root.mkdir()
    (root / "speakers_all.csv").write_text("age,sex\n27,female\n")
    with pytest.raises(ImportFailed) as e:
        read_saa(root)
    assert str(e.value) == (
        f"{root / 'speakers_all.csv'}: no column filename, native_language (columns: age, sex)"
    )


def test_phones_tier_counts_and_errors(tmp_path):
    tg = tmp_path / "a.TextGrid"
    textgrid(
        tg,
        [
            (0.0, 0.1, "sil"),
            (0.1, 0.2, "TH1"),
            (0.2, 0.3, "TH,S,s"),
            (0.3, 0.4, "AH0"),
            (0.4, 0.5, "AH0,sil,d"),
            (0.5, 0.6, "sil,AH,A"),
            (0.6, 0.7, "th"),
        ],
    )
    r = parse_phones_tier(tg)
    # canonical phones: TH (plain) + TH (substituted) + th + AH + AH (deleted) = TH×3, AH×2
    assert r["phones"] == Counter({"TH": 3, "AH": 2}) and r["n_phones"] == 5
    assert r["n_errors"] == 3
    assert r["errors"] == [
        {
            "start": 0.2,
            "end": 0.3,
            "canonical": "TH",
            "perceived": "S",
            "type": "substitution",
            "label": "TH,S,s",
        },
        {
            "start": 0.4,
            "end": 0.5,
            "canonical": "AH",
            "perceived": "-",
            "type": "deletion",
            "label": "AH0,sil,d",
        },
        {
            "start": 0.5,
            "end": 0.6,
            "canonical": "-",
            "perceived": "AH",
            "type": "addition",
            "label": "sil,AH,A",
        },
    ]


def test_phones_tier_refusals_word_for_word(tmp_path):
    from praatio import textgrid as tgio

    bad = tmp_path / "bad.TextGrid"
    bad.write_text("not a textgrid at all")
    with pytest.raises(ValueError) as e:
        parse_phones_tier(bad)
    msg = str(e.value)
    assert msg.startswith("not a readable TextGrid (") and msg.endswith(")")
    # the exception's class name, then its text
    kind = msg[len("not a readable TextGrid (") :].split(":")[0]
    assert kind.isidentifier() and kind[0].isupper() and kind != "NoneType"
    words = tmp_path / "words.TextGrid"
    g = tgio.Textgrid()
    g.addTier(tgio.IntervalTier("words", [(0.0, 1.0, "x")], 0, 1.0))
    g.addTier(tgio.IntervalTier("tones", [(0.0, 1.0, "H")], 0, 1.0))
    g.save(str(words), format="long_textgrid", includeBlankSpaces=True)
    with pytest.raises(ValueError) as e:
        parse_phones_tier(words)
    assert str(e.value) == "no 'phones' tier (tiers: words, tones)"
    none = tmp_path / "none.TextGrid"
    none.write_text(
        'File type = "ooTextFile"\nObject class = "TextGrid"\n\nxmin = 0 \n'
        "xmax = 1 \ntiers? <exists> \nsize = 0 \nitem []: \n"
    )
    with pytest.raises(ValueError) as e:
        parse_phones_tier(none)
    assert str(e.value) == "no 'phones' tier (tiers: none)"
    label = tmp_path / "label.TextGrid"
    textgrid(label, [(0.0, 0.25, "N,T,x"), (0.25, 1.0, "AA1")])
    with pytest.raises(ValueError) as e:
        parse_phones_tier(label)
    assert str(e.value) == (
        "phone label 'N,T,x' at 0.000–0.250 s is not 'CPL,PPL,type' with type s, d or a"
    )


def test_saa_ages_are_ints_when_whole(tmp_path):
    root = _saa(
        tmp_path / "saa",
        ["27,9.0,x,a1,afrikaans,female,1,za,False", "22.5,abc,x,a2,afrikaans,male,2,za,False"],
        mp3s=["a1.mp3", "a2.mp3"],
    )
    _root, cands, _problems = read_saa(root)
    ages = [(c.metadata["age"], c.metadata["age_onset"]) for c in cands]
    assert ages == [(27, 9), (22.5, "abc")]  # a non-number stays text
    assert [(type(a), type(b)) for a, b in ages] == [(int, int), (float, str)]


def test_read_text_names_the_file_it_cannot_decode(tmp_path):
    from fairdesk.core.import_rows import read_text

    f = tmp_path / "t.txt"
    f.write_bytes(b"\xff\xfe\x00\xd8")  # a UTF-16 BOM, then a lone high surrogate
    with pytest.raises(ImportFailed) as e:
        read_text(f)
    assert str(e.value) == (
        f"{f}: starts with a UTF-16 byte-order mark but does not decode "
        "as UTF-16 (byte 2); re-save it as UTF-8"
    )
    f.write_bytes("\ufeffàkwà\n".encode())
    assert read_text(f) == "àkwà\n"


def test_l2arctic_candidates_and_problems_field_by_field(tmp_path):
    from fairdesk.core.importers_l2arctic import read_l2arctic
    from tests.conftest import write_wav

    root = tmp_path / "l2"
    (root / "notes").mkdir(parents=True)  # a folder without wav/: not a speaker
    for spk, utts in (
        ("ABA", ("arctic_a0001", "arctic_a0002", "arctic_a0003")),
        ("zzz", ("arctic_a0001",)),
    ):
        for utt in utts:
            write_wav(root / spk / "wav" / f"{utt}.wav", seconds=0.3)
    (root / "ABA" / "transcript").mkdir()
    (root / "ABA" / "transcript" / "arctic_a0001.txt").write_text("  Author of\nthe  danger\n")
    (root / "ABA" / "transcript" / "arctic_a0003.txt").write_text("Not at this")
    (root / "zzz" / "transcript").mkdir()
    (root / "zzz" / "transcript" / "arctic_a0001.txt").write_text("Author")
    textgrid(
        root / "ABA" / "annotation" / "arctic_a0001.TextGrid",
        [(0.0, 0.1, "AO1"), (0.1, 0.2, "TH,S,s"), (0.2, 0.3, "ER0")],
    )
    textgrid(root / "zzz" / "annotation" / "arctic_a0001.TextGrid", [(0.0, 0.3, "N,T")])
    got_root, cands, problems = read_l2arctic(root)
    assert got_root == root
    aba, zzz = root / "ABA", root / "zzz"
    assert problems == [
        Problem(
            None,
            "ABA/wav/arctic_a0002.wav",
            "no transcript ABA/transcript/arctic_a0002.txt; add it or remove the recording",
            str(aba),
        ),
        Problem(
            None,
            "zzz",
            "speaker folder zzz is not in the L2-ARCTIC speaker table: "
            "imported without native_language and gender",
            str(zzz),
        ),
        Problem(
            None,
            "zzz/annotation/arctic_a0001.TextGrid",
            "phone label 'N,T' at "
            "0.000–0.300 s is not 'CPL,PPL,type' with type s, d or a; the utterance is "
            "imported without annotations",
            str(zzz / "annotation" / "arctic_a0001.TextGrid"),
        ),
    ]
    meta = {"native_language": "Arabic", "gender": "male"}
    assert cands == [
        Candidate(
            row=1,
            source=str(aba / "transcript" / "arctic_a0001.txt"),
            key="ABA/arctic_a0001",
            path=str(aba / "wav" / "arctic_a0001.wav"),
            text="Author of the danger",
            speaker_id="ABA",
            content_id="arctic:arctic_a0001",
            metadata={**meta, "accentedness": round(1 / 3, 6), "annotated": "yes"},
            annotations=[
                (
                    "phone_error",
                    0.1,
                    0.2,
                    {
                        "canonical": "TH",
                        "perceived": "S",
                        "type": "substitution",
                        "label": "TH,S,s",
                    },
                ),
                (
                    "phone_counts",
                    None,
                    None,
                    {"n_phones": 3, "n_errors": 1, "phones": {"AO": 1, "ER": 1, "TH": 1}},
                ),
            ],
        ),
        # the recording after one without a transcript is still read
        Candidate(
            row=1,
            source=str(aba / "transcript" / "arctic_a0003.txt"),
            key="ABA/arctic_a0003",
            path=str(aba / "wav" / "arctic_a0003.wav"),
            text="Not at this",
            speaker_id="ABA",
            content_id="arctic:arctic_a0003",
            metadata=dict(meta),
        ),
        Candidate(
            row=1,
            source=str(zzz / "transcript" / "arctic_a0001.txt"),
            key="zzz/arctic_a0001",
            path=str(zzz / "wav" / "arctic_a0001.wav"),
            text="Author",
            speaker_id="zzz",
            content_id="arctic:arctic_a0001",
        ),
    ]
    assert cands[0].metadata["accentedness"] == 0.333333  # six decimals
    empty = tmp_path / "empty"
    (empty / "notes").mkdir(parents=True)
    with pytest.raises(ImportFailed) as e:
        read_l2arctic(empty)
    assert str(e.value) == (
        f"{empty}: no speaker folders with a wav/ folder (L2-ARCTIC layout: "
        "ABA/wav/*.wav, ABA/transcript/*.txt, ABA/annotation/*.TextGrid)"
    )


def test_saa_mp3s_in_recordings(tmp_path):
    root = _saa(
        tmp_path / "saa", ["27,9,x,a1,afrikaans,female,1,za,False"], mp3s=["recordings/a1.mp3"]
    )
    _root, cands, problems = read_saa(root)
    assert problems == [] and [c.path for c in cands] == [str(root / "recordings" / "a1.mp3")]


def test_manifest_with_two_blank_header_names_is_refused(tmp_path):
    """Only the Speech Accent Archive reader names blank header cells; elsewhere two blank
    names are a duplicate."""
    from fairdesk.core.importers import read_manifest

    m = tmp_path / "m.csv"
    m.write_text("path,text,,\na.wav,hi,,\n")
    with pytest.raises(ImportFailed) as e:
        read_manifest(m)
    assert str(e.value) == f"{m}: duplicate column names ['']; rename them"
