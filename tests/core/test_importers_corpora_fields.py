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
    root = _saa(tmp_path / "saa", [
        "27,9,pretoria,afrikaans1,afrikaans,female,11,south africa,False",   # line 2
        "31,,lagos,,yoruba,male,12,nigeria,False",                           # 3: no filename
        "19,6,ibadan,yoruba3,yoruba,male,13,nigeria,TRUE",                   # 4: marked missing
        "30,0,boston,english9,english,female,14,usa,False",                  # 5: no MP3
        "22.5, ,kano,hausa2.MP3,hausa,male,,nigeria,",                       # 6: no speakerid
        "40,5,tirana,albanian1,albanian,male,16,albania,no",                 # 7
    ], mp3s=["afrikaans1.mp3", "hausa2.MP3", "albanian1.mp3"])
    src = str(root / "speakers_all.csv")
    got_root, cands, problems = read_saa(root)
    assert got_root == root
    assert problems == [
        Problem(3, None, "no filename in this row", src),
        Problem(4, "yoruba3.mp3", "the archive marks this speaker's recording as missing "
                "(file_missing? = True); nothing to import", src),
        Problem(5, "english9.mp3", f"no english9.mp3 in {root} or its recordings/ folder; put "
                "the MP3 there or remove the row", src),
    ]
    assert cands == [
        Candidate(row=2, source=src, key="afrikaans1", path=str(root / "afrikaans1.mp3"),
                  text=STELLA, speaker_id="11", content_id=CONTENT_ID,
                  metadata={"age": 27, "age_onset": 9, "birthplace": "pretoria",
                            "native_language": "afrikaans", "sex": "female",
                            "country": "south africa"}),
        # a name already ending in .mp3 (any case) is the file name as it is; no speakerid:
        # the file's stem; a blank value is left out; a fractional age stays a float
        Candidate(row=6, source=src, key="hausa2", path=str(root / "hausa2.MP3"),
                  text=STELLA, speaker_id="hausa2", content_id=CONTENT_ID,
                  metadata={"age": 22.5, "birthplace": "kano", "native_language": "hausa",
                            "sex": "male", "country": "nigeria"}),
        Candidate(row=7, source=src, key="albanian1", path=str(root / "albanian1.mp3"),
                  text=STELLA, speaker_id="16", content_id=CONTENT_ID,
                  metadata={"age": 40, "age_onset": 5, "birthplace": "tirana",
                            "native_language": "albanian", "sex": "male",
                            "country": "albania"}),
    ]


def test_saa_refusals_word_for_word(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImportFailed) as e:
        read_saa(empty)
    assert str(e.value) == (f"{empty}: no speakers_all.csv (Speech Accent Archive layout: "
                            "speakers_all.csv and the MP3s, in the folder or in recordings/)")
    root = tmp_path / "cols"
    root.mkdir()
    (root / "speakers_all.csv").write_text("age,sex\n27,female\n")
    with pytest.raises(ImportFailed) as e:
        read_saa(root)
    assert str(e.value) == (f"{root / 'speakers_all.csv'}: no column filename, native_language "
                            "(columns: age, sex)")


def test_phones_tier_counts_and_errors(tmp_path):
    tg = tmp_path / "a.TextGrid"
    textgrid(tg, [(0.0, 0.1, "sil"), (0.1, 0.2, "TH1"), (0.2, 0.3, "TH,S,s"),
                  (0.3, 0.4, "AH0"), (0.4, 0.5, "AH0,sil,d"), (0.5, 0.6, "sil,AH,A"),
                  (0.6, 0.7, "th")])
    r = parse_phones_tier(tg)
    # canonical phones: TH (plain) + TH (substituted) + th + AH + AH (deleted) = TH×3, AH×2
    assert r["phones"] == Counter({"TH": 3, "AH": 2}) and r["n_phones"] == 5
    assert r["n_errors"] == 3
    assert r["errors"] == [
        {"start": 0.2, "end": 0.3, "canonical": "TH", "perceived": "S", "type": "substitution",
         "label": "TH,S,s"},
        {"start": 0.4, "end": 0.5, "canonical": "AH", "perceived": "-", "type": "deletion",
         "label": "AH0,sil,d"},
        {"start": 0.5, "end": 0.6, "canonical": "-", "perceived": "AH", "type": "addition",
         "label": "sil,AH,A"},
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
    kind = msg[len("not a readable TextGrid ("):].split(":")[0]
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
    none.write_text('File type = "ooTextFile"\nObject class = "TextGrid"\n\nxmin = 0 \n'
                    'xmax = 1 \ntiers? <exists> \nsize = 0 \nitem []: \n')
    with pytest.raises(ValueError) as e:
        parse_phones_tier(none)
    assert str(e.value) == "no 'phones' tier (tiers: none)"
    label = tmp_path / "label.TextGrid"
    textgrid(label, [(0.0, 0.25, "N,T,x"), (0.25, 1.0, "AA1")])
    with pytest.raises(ValueError) as e:
        parse_phones_tier(label)
    assert str(e.value) == ("phone label 'N,T,x' at 0.000–0.250 s is not 'CPL,PPL,type' with "
                            "type s, d or a")


def test_saa_ages_are_ints_when_whole(tmp_path):
    root = _saa(tmp_path / "saa", ["27,9.0,x,a1,afrikaans,female,1,za,False",
                                   "22.5,abc,x,a2,afrikaans,male,2,za,False"],
                mp3s=["a1.mp3", "a2.mp3"])
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
    assert str(e.value) == (f"{f}: starts with a UTF-16 byte-order mark but does not decode "
                            "as UTF-16 (byte 2); re-save it as UTF-8")
    f.write_bytes("\ufeffàkwà\n".encode())
    assert read_text(f) == "àkwà\n"
