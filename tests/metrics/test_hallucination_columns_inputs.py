"""hallucination_columns: the normaliser it scores with (default, given, by language), the
sampled decodes' normaliser, list and dict cells as keys, the JSON and dtypes it writes; the
small readers around it (parse_evidence, parse_slots' missing values, basic on nothing)."""

import json

import numpy as np
import pandas as pd
import pytest

from fairdesk.metrics.hallucination import (
    FLAG_COLUMNS,
    HallucinationSettings,
    _text_flags,
    hallucination_columns,
    parse_evidence,
    unstable,
)
from fairdesk.metrics.normalize import basic, get_normalizer
from fairdesk.metrics.registry import ratio_metric
from fairdesk.metrics.slots import parse_slots

ST = HallucinationSettings()


def _expected(ref, hyp, norm):
    ev = _text_flags(norm(ref).split(), norm(hyp).split(), ST)
    return json.dumps(ev, ensure_ascii=False) if ev else ""


def _frame(ref, hyp, **cols):
    return pd.DataFrame(
        {"reference": [ref], "hypothesis": [hyp], **{k: [v] for k, v in cols.items()}}
    )


def test_the_normaliser_the_flags_are_checked_with():
    # "Mr" x6: English makes it "mister" x6 (as in the reference), basic keeps "mr"
    f = _frame("mister mister mister mister mister mister", "Mr Mr Mr Mr Mr Mr")
    english = _expected(f.reference[0], f.hypothesis[0], get_normalizer(None, "en"))
    plain = _expected(f.reference[0], f.hypothesis[0], get_normalizer("whisper-basic", "en"))
    assert english != plain
    assert hallucination_columns(f)["hallucination_evidence"].tolist() == [english]
    assert hallucination_columns(f, language="en")["hallucination_evidence"].tolist() == [english]
    got = hallucination_columns(f, normalizer="whisper-basic")["hallucination_evidence"]
    assert got.tolist() == [plain]
    # by language: Igbo keeps its tone marks (English would strip them), written as UTF-8
    f = _frame("àkwà", "Àkwà àkwà àkwà àkwà àkwà àkwà")
    got = hallucination_columns(f, language="ig")["hallucination_evidence"].tolist()
    assert got == [_expected(f.reference[0], f.hypothesis[0], get_normalizer(None, "ig"))]
    assert '"àkwà"' in got[0] and "\\u" not in got[0]


def test_sampled_decodes_use_the_runs_normaliser():
    # "Mr Smith" vs "mister smith": the same under English, half the words apart under basic
    f = _frame("a b", "a b", hypothesis_sampled_a="Mr Smith", hypothesis_sampled_b="mister smith")
    assert hallucination_columns(f)["hall_unstable"].tolist() == [0]
    out = hallucination_columns(f, normalizer="whisper-basic")
    assert out["hall_unstable"].tolist() == [1]
    un = unstable(
        "Mr Smith", "mister smith", ST.unstable_rate, get_normalizer("whisper-basic", "en")
    )
    assert out["hallucination_evidence"].tolist() == [json.dumps([un], ensure_ascii=False)]


def test_list_cells_are_keys_by_their_content():
    """Rows with the same texts but different word-time evidence (given as lists of dicts,
    numbers of any numpy kind) are checked apart."""
    w = {"flag": "over_nonspeech", "word": "uh", "start": np.int64(3)}
    f = pd.DataFrame(
        {
            "reference": ["a", "a", "a"],
            "hypothesis": ["a", "a", "a"],
            "nonspeech_words": [[w], [], [dict(reversed(list(w.items())))]],
        }
    )
    out = hallucination_columns(f)
    assert out["hall_over_nonspeech"].tolist() == [1, 0, 1]
    assert out["hallucinated"].tolist() == [1, 0, 1]
    assert out["hallucination_evidence"][1] == ""
    # numpy numbers written as numbers, anything else json cannot write as text
    assert [parse_evidence(x)[0]["start"] for x in out["hallucination_evidence"][[0, 2]]] == [3, 3]
    f["nonspeech_words"] = [[{**w, "start": pd.Timedelta(seconds=3)}], [], []]
    out = hallucination_columns(f)
    assert parse_evidence(out["hallucination_evidence"][0])[0]["start"] == "0 days 00:00:03"


def test_flag_columns_are_integers():
    f = pd.DataFrame({"reference": ["a b c", "x"], "hypothesis": ["a b c", "x x x x x x x x"]})
    out = hallucination_columns(f)
    assert list(out.columns) == [*FLAG_COLUMNS, "hallucination_evidence"]
    assert all(out[c].dtype == np.int64 for c in FLAG_COLUMNS)
    assert out["hallucinated"].tolist() == [0, 1]


@pytest.mark.parametrize("cell", [None, float("nan"), "", "   "])
def test_parse_evidence_of_nothing(cell):
    assert parse_evidence(cell) == []


def test_parse_evidence_of_json_and_lists():
    ev = [{"flag": "loop"}]
    assert parse_evidence(json.dumps(ev)) == ev and parse_evidence(tuple(ev)) == ev


def test_parse_slots_drops_missing_values_in_pairs():
    assert parse_slots([["a", None], ["b", "x"], ["c", float("nan")], ["d", " "]]) == {"b": ["x"]}
    assert parse_slots({"a": [None, "y"], "b": None}) == {"a": ["y"]}


def test_basic_of_nothing_is_empty():
    assert basic(None) == "" and basic("") == ""


def test_ratio_metric_records_its_numerator_when_built():
    spec = ratio_metric("x", "X", ["a", "b"], ["n"])
    assert spec.numerator == ("a", "b") and spec.denominator == ("n",)


def test_a_single_tab_is_not_a_word_break_as_in_jiwer():
    """A normaliser that keeps a lone tab: jiwer splits on spaces only (after collapsing runs
    of whitespace), so 'a<TAB>b' is one word."""
    import jiwer

    from fairdesk.metrics.text import word_counts

    o = jiwer.process_words("a\tb c", "a b c")
    got = word_counts("a\tb c", "a b c", normalizer=lambda s: s)
    assert (
        (got.n_words, got.n_sub, got.n_del, got.n_ins)
        == (len(o.references[0]), o.substitutions, o.deletions, o.insertions)
        == (2, 1, 0, 1)
    )
