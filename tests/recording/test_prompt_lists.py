"""The Igbo tone-mark study's four categories as built-in prompt lists: the seed's own texts, placeholders
for everything else (never invented Igbo or Yoruba), and placeholders cannot be recorded."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from fairdesk.core.store import Project
from fairdesk.recording.prompts import builtin_lists, load_builtin
from fairdesk.recording.session import RecordingSession, SessionError, Speaker
from tests.recording.test_recorder import take_of

LISTS = {
    "igbo_tone_marks_1_orthographic_interference": "orthographic_interference",
    "igbo_tone_marks_2_tone_sensitivity": "tone_sensitivity",
    "igbo_tone_marks_3_language_boundaries": "language_boundaries",
    "igbo_tone_marks_4_domain_terms": "domain_terms",
}
# Every example text seed 003 gives (METHODOLOGY.md, category 2), verbatim:
#   "akwa/akwà/àkwà/ákwá (crying/cloth/egg/bridge)", "oke/òkè/ọkè (big/rat/portion)",
#   'Spoke "O na-eri oji n\'ututu" with deliberately FLAT intonation'
SEED_SETS = {"akwa/akwà/àkwà/ákwá": "crying/cloth/egg/bridge", "oke/òkè/ọkè": "big/rat/portion"}
SEED_SENTENCE = "O na-eri oji n'ututu"
SEED_TEXTS = {w: g for s, gl in SEED_SETS.items() for w, g in zip(s.split("/"), gl.split("/"))}
SEED_TEXTS[SEED_SENTENCE] = None
# the slots the seed names per category (its sample lists)
SLOTS = {
    "orthographic_interference": {"names", "greetings", "numbers", "proverbs", "slow_prosody"},
    "tone_sensitivity": {"minimal_pair", "dense_marks", "monotone_control", "yoruba_control"},
    "language_boundaries": {
        "en_to_ig",
        "ig_to_en",
        "alternation",
        "diacritics_in_english",
        "pidgin",
    },
    "domain_terms": {"place_names", "food_terms", "idioms", "french_control", "noise"},
}
# the project's shared folder lies beside the checkout (seeds are the source documents)
SEED_FILE = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"


def _all():
    return {n: load_builtin(n) for n in LISTS}


def _nfc(s):
    return unicodedata.normalize("NFC", s)


def test_the_seed_texts_are_the_seed_s():
    seed = sorted(SEED_FILE.glob("003*.txt")) if SEED_FILE.is_dir() else []
    if not seed:
        pytest.skip("the seed text is not on this machine")
    text = _nfc(seed[0].read_text(encoding="utf-8"))
    for s in [*SEED_SETS, SEED_SENTENCE]:
        assert _nfc(s) in text


def test_lists_ship_clean_with_every_category_and_slot():
    assert set(LISTS) <= set(builtin_lists())
    for name, pl in _all().items():
        assert not pl.problems, pl.problems
        assert {p.extra["category"] for p in pl.prompts} == {LISTS[name]}
        assert {p.extra["slot"] for p in pl.prompts} == SLOTS[LISTS[name]]
    counts = {n: len({p.extra["sample"] for p in pl.prompts}) for n, pl in _all().items()}
    assert counts == {
        "igbo_tone_marks_1_orthographic_interference": 5,
        "igbo_tone_marks_2_tone_sensitivity": 6,
        "igbo_tone_marks_3_language_boundaries": 5,
        "igbo_tone_marks_4_domain_terms": 5,
    }


def test_every_seed_example_appears_verbatim_with_its_gloss():
    prompts = {p.text: p for pl in _all().values() for p in pl.prompts}
    for text, gloss in SEED_TEXTS.items():
        assert _nfc(text) in prompts, text
        assert prompts[_nfc(text)].gloss == gloss
        assert not prompts[_nfc(text)].placeholder
    mono = prompts[SEED_SENTENCE]
    assert "FLAT intonation" in mono.instruction


def test_everything_else_is_a_marked_placeholder_not_invented_text():
    for pl in _all().values():
        for p in pl.prompts:
            if p.text in SEED_TEXTS:
                continue
            assert p.placeholder, f"{p.text!r} is neither the seed's text nor a placeholder"
            assert p.text.startswith("[to be filled by the linguist] ")
            assert p.instruction
            # an instruction in English, not Igbo or Yoruba words: no tone marks or dots
            assert not any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", p.text))


def test_a_placeholder_cannot_be_recorded_a_seed_prompt_can(tmp_path):
    pl = load_builtin("seed003_1_orthographic_interference")
    s = RecordingSession(Project(tmp_path / "proj"), "seed003", Speaker("spk1"), language="ig")
    with pytest.raises(SessionError, match="to be filled by the linguist"):
        take_of(s, pl[0])
    assert not (tmp_path / "proj" / "recordings" / "seed003" / "spk1").exists() or not any(
        (tmp_path / "proj" / "recordings" / "seed003" / "spk1").iterdir()
    )
    tone = load_builtin("seed003_2_tone_sensitivity")
    mono = next(p for p in tone.prompts if p.text == SEED_SENTENCE)
    t = take_of(s, mono)
    s.accept(mono, t)
    items = s.project.items(s.project.dataset("seed003"))
    assert items.iloc[0]["category"] == "tone_sensitivity"
    assert items.iloc[0]["text"] == SEED_SENTENCE


def test_old_list_names_are_aliases(tmp_path):
    """The lists' old names (``seed003_*``) still load the same lists, through the library,
    ``record --list`` and a saved Record tab's state (tests/gui/test_record_panel.py)."""
    from fairdesk.cli.record import _load_list
    from fairdesk.recording.prompts import LIST_ALIASES

    assert set(LIST_ALIASES.values()) == set(LISTS)
    for old, new in LIST_ALIASES.items():
        assert old not in builtin_lists()
        assert [p.text for p in load_builtin(old).prompts] == [
            p.text for p in load_builtin(new).prompts
        ]
        assert _load_list(old).name == load_builtin(new).name
