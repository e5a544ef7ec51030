"""Prompt lists: text and JSONL, NFC with tone marks kept, problems with line numbers."""

from __future__ import annotations

import json
import unicodedata

import pytest

from fairdesk.core.importers import derive_content_id
from fairdesk.recording.prompts import (
    PromptError,
    builtin_lists,
    load_builtin,
    load_prompts,
    parse_prompts,
    prompts_dir,
)

NFD = lambda s: unicodedata.normalize("NFD", s)  # noqa: E731


def test_text_list_skips_comments_and_blanks_and_normalises_to_nfc(tmp_path):
    f = tmp_path / "igbo.txt"
    f.write_text(
        "# name: my list\n# language: ig\n\n"
        + NFD("àkwà")
        + "\n  # indented comment\n"
        + "ákwá   \n"
        + NFD("ọ̀kọ̀")
        + "\n",
        encoding="utf-8",
    )
    pl = load_prompts(f)
    assert pl.name == "my list" and pl.language == "ig"
    assert [p.text for p in pl.prompts] == ["àkwà", "ákwá", "ọ̀kọ̀"]
    assert all(unicodedata.is_normalized("NFC", p.text) for p in pl.prompts)
    assert [p.line for p in pl.prompts] == [4, 6, 7]
    assert pl[0].content_id == derive_content_id("àkwà")
    # marks are kept, so the tonal variants are different prompts
    assert len({p.content_id for p in pl.prompts}) == 3
    assert not pl.problems


def test_content_id_is_stable_from_the_normalised_text():
    a = parse_prompts(NFD("Ìgbà  dị́ mma"), "a.txt")
    b = parse_prompts("Ìgbà dị́ mma", "b.txt")
    assert a[0].content_id == b[0].content_id == derive_content_id("Ìgbà dị́ mma")
    assert a[0].content_id != derive_content_id("Igba di mma")


def test_jsonl_fields_and_bad_lines_with_line_numbers(tmp_path):
    lines = [
        '{"_list": {"name": "music", "language": "en"}}',
        '{"text": "play hotel california", "intent": "PlayMusic", '
        '"slots": {"song": "hotel california"}, "speaker_hint": "any"}',
        '{"text": "àkwá", "gloss": "egg", "content_id": "akwa-egg"}',
        '{"text": "broken", ',
        '["not", "an", "object"]',
        '{"gloss": "no text"}',
        '{"text": ""}',
        '{"text": "x", "slots": ["a"]}',
        '{"text": "' + NFD("àkwá") + '"}',
        "# a comment",
        '{"text": 5}',
    ]
    f = tmp_path / "list.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pl = load_prompts(f)
    assert pl.name == "music" and pl.language == "en"
    assert [p.text for p in pl.prompts] == ["play hotel california", "àkwá"]
    music, egg = pl.prompts
    assert music.intent == "PlayMusic" and music.slots == {"song": "hotel california"}
    assert music.extra == {"speaker_hint": "any"}
    assert egg.content_id == "akwa-egg" and egg.gloss == "egg"
    probs = {p.line: p.reason for p in pl.problems}
    assert set(probs) == {4, 5, 6, 7, 8, 9, 11}
    assert "malformed JSON" in probs[4] and "column" in probs[4]
    assert "not a JSON object" in probs[5]
    assert "no 'text'" in probs[6]
    assert "empty" in probs[7]
    assert "slots" in probs[8]
    assert "string" in probs[11]
    assert "same text" in probs[9] and "line 3" in probs[9]  # NFD spelling of line 3
    assert str(pl.problems[0]).startswith(f"{f}:4: ")


def test_duplicates_are_reported_with_the_first_line(tmp_path):
    pl = parse_prompts("àkwà\nakwa\n" + NFD("àkwà") + "\n", "d.txt")
    assert [p.text for p in pl.prompts] == ["àkwà", "akwa"]
    assert len(pl.problems) == 1 and pl.problems[0].line == 3
    assert "line 1" in pl.problems[0].reason


def test_invalid_utf8_is_reported_on_its_line(tmp_path):
    f = tmp_path / "bad.txt"
    f.write_bytes(b"one\ncaf\xe9\nthree\n")
    pl = load_prompts(f)
    assert [p.text for p in pl.prompts] == ["one", "three"]
    assert pl.problems[0].line == 2 and "UTF-8" in pl.problems[0].reason


def test_unusable_lists_raise(tmp_path):
    with pytest.raises(PromptError, match="no such prompt list"):
        load_prompts(tmp_path / "nope.txt")
    (tmp_path / "empty.txt").write_text("# only a comment\n", encoding="utf-8")
    with pytest.raises(PromptError, match="empty"):
        load_prompts(tmp_path / "empty.txt")
    (tmp_path / "bad.jsonl").write_text("{oops\n", encoding="utf-8")
    with pytest.raises(PromptError, match=r"bad.jsonl:1: malformed"):
        load_prompts(tmp_path / "bad.jsonl")
    with pytest.raises(PromptError, match="igbo_tonal_minimal_pairs"):
        load_builtin("klingon")


def test_builtin_lists_load_cleanly_and_are_stored_nfc():
    lists = builtin_lists()
    assert {
        "igbo_tonal_minimal_pairs",
        "yoruba_tonal_minimal_pairs",
        "english_harvard_list1",
    } <= set(lists)
    for name, path in lists.items():
        raw = path.read_text(encoding="utf-8")
        assert unicodedata.is_normalized("NFC", raw), name
        pl = load_builtin(name)
        assert not pl.problems, pl.problems
        assert pl.language in ("ig", "yo", "en")
    assert prompts_dir() == next(iter(lists.values())).parent


def test_igbo_akwa_set_has_four_tone_patterns_with_glosses():
    pl = load_builtin("igbo_tonal_minimal_pairs")
    got = {p.text: (p.gloss, p.extra["tones"]) for p in pl.prompts}
    assert got == {
        "ákwá": ("cry, crying", "HH"),
        "ákwà": ("cloth", "HL"),
        "àkwà": ("bed", "LL"),
        "àkwá": ("egg", "LH"),
    }
    # stripped of tone marks they are one word: a minimal set
    bare = {
        unicodedata.normalize("NFC", "".join(c for c in NFD(t) if not unicodedata.combining(c)))
        for t in got
    }
    assert bare == {"akwa"}


def test_yoruba_sets_are_minimal_within_each_set():
    pl = load_builtin("yoruba_tonal_minimal_pairs")
    sets: dict[str, set] = {}
    for p in pl.prompts:
        base = "".join(c for c in NFD(p.text) if unicodedata.combining(c) in (0, 220))
        sets.setdefault(p.extra["set"], set()).add(unicodedata.normalize("NFC", base))
        assert p.gloss
    assert sets == {"igba": {"igba"}, "oko": {"ọkọ"}}
    assert json.dumps([p.text for p in pl.prompts], ensure_ascii=False).count("ọ") >= 4
