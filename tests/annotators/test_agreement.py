"""Agreement of annotators (docs/METHODS.md, "References from several annotators"): on the
two-annotator fixture, whose TextGrids differ on known letters, the agreement, κ, α, DER, TER,
WER between annotators and the ranked disagreements are the hand-counted ones; κ and α equal
scikit-learn's and the krippendorff package's on the same categories."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.annotators.fixture import two_annotators

G, A = "\u0300", "\u0301"  # grave, acute
#: The fixture's mark units by hand, (Ada, Obi) per marked letter, item by item:
#: n0 àkwà/àkwà, n1 àkwà/àkwa, s0 àkwà/àkwà, s1 àkwà/ákwá, s2 ákwá/ákwá (n2 has no mark).
UNITS = {
    "north": [(G, G), (G, G), (G, G), (G, "")],
    "south": [(G, G), (G, G), (G, A), (G, A), (A, A), (A, A)],
}


def _result(tmp_path, **kw):
    from fairdesk.jobs.agreement import dataset_agreement

    p, _ = two_annotators(tmp_path)
    return p, dataset_agreement(p, "d", by="accent", n_bootstrap=400, **kw)


def test_the_fixture_gives_the_hand_counted_agreement(tmp_path):
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    _p, r = _result(tmp_path)
    assert r.annotators == ("Ada", "Obi")
    every = UNITS["north"] + UNITS["south"]
    o = r.overall
    assert (o.n_items, o.n_marks, o.n_speakers) == (6, 10, 4)
    assert o.raw.value == pytest.approx(7 / 10)
    ada, obi = [u[0] for u in every], [u[1] for u in every]
    assert o.kappa.value == pytest.approx(cohen_kappa_score(ada, obi))
    cats = {c: k for k, c in enumerate(sorted(set(ada + obi)))}
    data = np.array([[cats[c] for c in ada], [cats[c] for c in obi]], dtype=float)
    assert o.alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    )
    # words: n1 and s1 differ in one word of two, 12 words in all
    assert o.wer.value == pytest.approx(2 / 12)
    # DER: Ada→Obi (D+H)/E = 1/10, Obi→Ada 1/9; TER: Ada→Obi 3/10, Obi→Ada 3/9
    assert o.der.value == pytest.approx((1 / 10 + 1 / 9) / 2)
    assert o.ter.value == pytest.approx((3 / 10 + 3 / 9) / 2)
    for s in (o.raw, o.kappa, o.alpha, o.wer, o.der, o.ter):
        assert s.low is not None and s.low <= s.value <= s.high
    north, south = r.groups
    assert (north.group, north.n_items, north.n_marks) == ("north", 3, 4)
    assert north.raw.value == pytest.approx(3 / 4)
    for g in (north, south):
        a, b = [u[0] for u in UNITS[g.group]], [u[1] for u in UNITS[g.group]]
        assert g.kappa.value == pytest.approx(cohen_kappa_score(a, b))
    # the ranked disagreements: s1 (both marks) before n1 (one mark)
    assert [(d.item, d.marks_differing, d.n_marks) for d in r.disagreements] == [
        ("s1.wav", 2, 2),
        ("n1.wav", 1, 2),
    ]
    assert r.disagreements[0].versions == (("Ada", "àkwà ego"), ("Obi", "ákwá ego"))


def test_alpha_with_three_annotators_and_missing_values_is_the_packages(tmp_path):
    import krippendorff

    from fairdesk.stats.agreement import NOT_TWO, AgreementItem, agreement

    items = [
        AgreementItem("i1", "s1", None, ("àkwà", "àkwa", None)),
        AgreementItem("i2", "s2", None, ("ákwá", "ákwá", "àkwá")),
        AgreementItem("i3", "s3", None, (None, "ọ̀ja", "ọ̀ja")),
    ]
    r = agreement(items, ("a", "b", "c"), str.lower, "x", n_bootstrap=200)
    # units by hand (letters with a mark in any version; dot below + grave is one set):
    # i1: à/à/-, à/a/-; i2: á/á/à, á/á/á; i3: -/ọ̀/ọ̀
    dot_grave = "".join(sorted("\u0323\u0300"))
    rows = [(G, G, None), (G, "", None), (A, A, G), (A, A, A), (None, dot_grave, dot_grave)]
    cats = {c: k for k, c in enumerate(sorted({c for u in rows for c in u if c is not None}))}
    data = np.array(
        [[np.nan if u[k] is None else cats[u[k]] for u in rows] for k in range(3)], dtype=float
    )
    assert r.overall.n_marks == 5
    assert r.overall.alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    )
    assert r.overall.kappa.value is None and r.overall.kappa.reason == NOT_TWO


def test_too_few_items_or_no_marks_say_so_instead_of_a_number(tmp_path):
    from fairdesk.presentation.agreement import agreement_lines
    from fairdesk.stats.agreement import NO_MARKS, TOO_FEW_ITEMS, AgreementItem, agreement

    one = [AgreementItem("i1", "s1", None, ("àkwà", "akwa"))]
    r = agreement(one, ("a", "b"), str.lower, "x", n_bootstrap=200)
    assert r.overall.raw.value is None and r.overall.raw.reason == TOO_FEW_ITEMS
    assert "  mark agreement     — (fewer than 2 shared items)" in agreement_lines(r)
    bare = [
        AgreementItem("i1", "s1", None, ("akwa", "akwa")),
        AgreementItem("i2", "s2", None, ("ego", "ego ji")),
    ]
    r = agreement(bare, ("a", "b"), str.lower, "x", n_bootstrap=200)
    assert r.overall.n_items == 2 and r.overall.n_marks == 0
    assert r.overall.raw.reason == r.overall.alpha.reason == NO_MARKS
    assert r.overall.wer.value == pytest.approx(1 / 2.5)  # one insertion, 1 + 1.5 words
    assert "no tone marks on the shared items" in "\n".join(agreement_lines(r))


def test_different_base_letters_count_as_words_not_as_marks():
    from fairdesk.stats.agreement import AgreementItem, agreement

    items = [
        AgreementItem("i1", "s1", None, ("àkwà ji", "àkwà jị")),  # ji vs jị: a letter differs
        AgreementItem("i2", "s2", None, ("àkwà", "àkwà")),
    ]
    r = agreement(items, ("a", "b"), str.lower, "x", n_bootstrap=200)
    # the dot below on jị: a unit marked in one version only (bare vs dot below)
    assert r.overall.n_marks == 5 and r.overall.raw.value == pytest.approx(4 / 5)
    assert r.overall.wer.value == pytest.approx(1 / 3)


def test_the_command_prints_and_writes_json(tmp_path, capsys):
    from fairdesk.cli import main

    p, _ = two_annotators(tmp_path)
    out = tmp_path / "a.json"
    args = ["agreement", "--project", str(p.folder), "--dataset", "d", "--by", "accent"]
    assert main(args + ["--n-bootstrap", "200", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "agreement of Ada, Obi on d" in text
    assert "overall: 6 shared items, 10 marks, 4 speakers" in text
    assert "mark agreement     70.0% [" in text
    assert "1. s1.wav: 2 of 2 marks differ" in text
    data = json.loads(out.read_text())
    assert data["overall"]["raw"]["value"] == pytest.approx(0.7)
    assert main(args + ["--annotators", "Ada,Eze"]) == 2
    assert "Eze annotated no item" in capsys.readouterr().err


@pytest.mark.parametrize("case", ["fixture", "three_with_missing", "one_category"])
def test_the_bootstrap_replicates_equal_the_packages_replicate_by_replicate(case):
    """The replicates computed at once from per-speaker sums equal, one by one, the point
    estimates' path (sklearn's cohen_kappa_score, the krippendorff package) on each
    replicate's speaker counts, degenerate replicates (a speaker drawn alone, one category)
    included."""
    from fairdesk.metrics.normalize import basic
    from fairdesk.stats.agreement import (
        AgreementItem,
        _replicate_stats,
        _speaker_counts,
        _stats,
        _table,
    )
    from tests.annotators.fixture import ITEMS

    if case == "fixture":
        items = [AgreementItem(k, v[0], v[1], (v[3], v[4])) for k, v in ITEMS.items()]
    elif case == "three_with_missing":
        items = [
            AgreementItem("i1", "s1", None, ("àkwà", "àkwa", None)),
            AgreementItem("i2", "s2", None, ("ákwá", "ákwá", "àkwá")),
            AgreementItem("i3", "s3", None, (None, "ọ̀ja", "ọ̀ja")),
            AgreementItem("i4", "s3", None, ("ákwà ji", "àkwà", "ákwà ji")),
            AgreementItem("i5", None, None, ("ego", "égó", "ègò")),  # no speaker: its own
        ]
    else:  # every mark is a grave: κ and α are undefined in every replicate
        items = [
            AgreementItem("i1", "s1", None, ("àkwà", "àkwà")),
            AgreementItem("i2", "s2", None, ("àkwà", "àkwà")),
            AgreementItem("i3", "s3", None, ("akwà", "akwà ji")),
        ]
    n_ann = len(items[0].texts)
    t = _table(items, n_ann, basic)
    rng = np.random.default_rng(5)
    draws = rng.integers(0, t.n_speakers, size=(300, t.n_speakers))
    counts = _speaker_counts(draws, t.n_speakers)
    for r in range(len(draws)):  # the counts, as np.bincount gives them per replicate
        assert list(counts[r]) == list(np.bincount(draws[r], minlength=t.n_speakers))
    fast = _replicate_stats(t, counts, n_ann)
    slow = np.array([_stats(t, counts[r][t.speakers], n_ann) for r in range(len(draws))])
    assert np.array_equal(np.isnan(fast), np.isnan(slow))
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)
    if case == "one_category":
        assert np.isnan(fast[:, 1:3]).all()
    else:  # the replicates vary (the comparison is not of constants)
        assert np.nanstd(fast[:, 2]) > 0
