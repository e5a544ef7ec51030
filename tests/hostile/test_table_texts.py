"""Transcripts that leave nothing to score or compare (issue 29): references that are empty
after the normaliser (emoji only) are refused rows naming their line, item and text, as an
empty reference is (docs/METHODS.md, "Missing values"), instead of making the WER and CER
columns vanish; a run whose every item (or whose reference group's every item) is flagged as a
hallucination says so in plain words instead of "Reference group 'x' is not one of the
groups: ." Each case: exit code, the command's own stderr, rows used and refused."""

from __future__ import annotations

import json

QUICK = ("--n-bootstrap", "200", "--min-items", "1", "--min-speakers", "1")
HEADER = "item_id,reference,hypothesis,speaker_id,accent"
LOOP = " do not know" * 4  # a 3-gram four times in a row: the loop flag


def _rows(n: int, hyp=lambda i: "play the song" if i % 3 == 0 else "play the song now"):
    return [
        f"u{i},play the song now,{hyp(i)},s{i % 4},{'north' if i % 2 == 0 else 'south'}"
        for i in range(n)
    ]


def _write(path, lines) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _empty_reason(text: str) -> str:
    return (
        f"reference {text!r} is empty after the whisper-english normaliser (no letters or "
        "digits: only emoji, symbols or punctuation), so it has no words to score: the row is "
        "left out, as an empty reference is; write what was said in words, or drop the row"
    )


def test_emoji_only_references_are_refused_rows_and_the_wer_stays(cli, tmp_path):
    lines = [HEADER, *_rows(8), "u8,😀😀,smile,s1,north", "u9,🎵 … 🎶,,s2,south"]
    table = _write(tmp_path / "emoji.csv", lines)
    code, out, err = cli("audit", "--table", table, "--by", "accent", *QUICK, "--json", "-")
    assert code == 0
    assert f"--table {table}: 8 of 10 rows used; 2 refused:" in err
    assert f"{table}: line 10: item u8: {_empty_reason('😀😀')}" in err
    assert f"{table}: line 11: item u9: {_empty_reason('🎵 … 🎶')}" in err
    # the left-out row's empty hypothesis is not counted as a real output
    assert "empty hypothesis" not in err
    run = json.loads(out)
    assert run["table_rows"] == {"rows": 10, "used": 8, "refused": 2, "warnings": []}
    assert [(p["line"], p.get("item")) for p in run["problems"]] == [(10, "u8"), (11, "u9")]
    # WER and CER are there, over the eight rows with words (by hand: u0, u3, u6 drop "now")
    assert {"wer", "cer"} <= set(run["tested_metrics"])
    corpus_errors = sum(1 for i in range(8) if i % 3 == 0)
    groups = {g["group"]: g for g in run["groups"]}
    assert sum(g["n_items"] for g in groups.values()) == 8
    north_errors = sum(1 for i in range(0, 8, 2) if i % 3 == 0)
    assert groups["north"]["values"]["wer"] == north_errors / 16
    assert groups["south"]["values"]["wer"] == (corpus_errors - north_errors) / 16


def test_only_emoji_references_say_there_is_nothing_to_score(cli, tmp_path):
    lines = [HEADER, "u0,😀😀,smile,s0,north", "u1,🎵,song,s1,south", "u2,!!!,wow,s2,south"]
    table = _write(tmp_path / "all-emoji.csv", lines)
    code, out, err = cli("audit", "--table", table, "--by", "accent", *QUICK)
    assert code == 2 and out == ""
    assert err == (
        "fairdesk audit: no reference has a word to score after the whisper-english "
        "normaliser: each is empty, or holds only emoji, symbols or punctuation (lines 2, 3, "
        "4; first: reference '😀😀'); write what was said in words\n"
    )


def test_every_item_flagged_says_there_is_nothing_unflagged(cli, tmp_path):
    table = _write(tmp_path / "loops.csv", [HEADER, *_rows(8, lambda i: "play the song" + LOOP)])
    code, out, err = cli("audit", "--table", table, "--by", "accent", *QUICK, "--json", "-")
    assert code == 0
    assert f"--table {table}: 8 of 8 rows used" in err
    said = (
        "  verdicts without flagged items: not recomputed: every item of the run (8) is "
        "flagged as a possible hallucination, so there are no unflagged items to recompute "
        "the verdicts on; read the transcripts before trusting any verdict (the model may "
        "loop or run on for every input)"
    )
    assert said in err.splitlines()
    assert "is not one of the groups" not in err
    run = json.loads(out)
    assert run["pitfalls"]["n_flagged"] == 8
    (c,) = [c for c in run["comparisons"] if c["metric"] == "wer"]
    assert c["without_flagged"] == {"verdict": None, "reason": "every item is flagged"}


def test_reference_group_all_flagged_says_there_is_no_reference_left(cli, tmp_path):
    rows = _rows(8, lambda i: "play the song" + LOOP if i % 2 == 0 else "play the song now")
    table = _write(tmp_path / "north-loops.csv", [HEADER, *rows])
    args = ("audit", "--table", table, "--by", "accent", "--reference", "north", *QUICK)
    code, out, err = cli(*args, "--json", "-")
    assert code == 0
    said = (
        "  verdicts without flagged items: not recomputed: every item of the reference group "
        "'north' (4) is flagged as a possible hallucination, so without the flagged items "
        "there is no reference to compare with; read its transcripts before trusting its "
        "verdicts"
    )
    assert said in err.splitlines()
    assert "is not one of the groups" not in err
    run = json.loads(out)
    assert run["pitfalls"]["by_group"]["north"]["hallucinated"] == 4
    assert run["pitfalls"]["by_group"]["south"]["hallucinated"] == 0
