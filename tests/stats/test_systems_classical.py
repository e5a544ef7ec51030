"""The classical cross-checks of a system comparison: scipy's sign and Wilcoxon tests, and
the sc_stats conventions checked against NIST's own sc_stats on the same data (each
utterance its own speaker id, per-utterance WER%; docs/METHODS.md, "Classical
cross-checks")."""

import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from fairdesk.metrics.registry import ratio_metric
from fairdesk.metrics.text import word_counts_many
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.system_classical import classical_tests, sign_test_sctk, wilcoxon_sctk
from fairdesk.stats.systems import compare_systems

SCTK_BIN = Path("/usr/lib/sctk/bin")


def _tool(name):
    found = shutil.which(name)
    if found:
        return found
    p = SCTK_BIN / name
    return str(p) if p.exists() else None


def test_textbook_tests_are_scipys():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 60) / 8
    b = np.clip(a - rng.integers(-1, 3, 60) / 8, 0, None)
    t = classical_tests(a, b, metric="wer", system="B", baseline="A")
    d = (a - b) * 100
    d = d[np.abs(d) > 0.005]
    assert t.sign_p == pytest.approx(sps.binomtest(int((d > 0).sum()), len(d), 0.5).pvalue)
    assert t.wilcoxon_p == pytest.approx(sps.wilcoxon(d).pvalue)
    assert t.n_positive + t.n_negative + t.n_ties == 60
    assert t.mean_difference == pytest.approx(np.mean(b - a))
    from fairdesk.presentation.systems import CLASSICAL_ASSUMPTION, classical_line

    assert classical_line(t).endswith("(" + CLASSICAL_ASSUMPTION + ")")
    assert CLASSICAL_ASSUMPTION == "assumes independent utterances"


def test_sctk_conventions_by_hand():
    # sc_stats' worked example shape: 14 positive, 3 negative, 3 ties (N = 20): the ties
    # split 1 / 2 (the odd one negative), min = 5, p = 2 P(X <= 5 | 20, 1/2) = 0.041
    d = np.array([10.0] * 14 + [-10.0] * 3 + [0.0] * 3)
    p, pos, neg, ties = sign_test_sctk(d)
    assert (pos, neg, ties) == (14, 3, 3)
    assert p == pytest.approx(2 * sps.binom.cdf(5, 20, 0.5))
    # zeros ranked with the rest and split 2 + 1: zeros 1..3 (2.0), the rest 4..20 (12.0)
    z, pw = wilcoxon_sctk(d)
    w_neg = 3 * 12.0 + 2.0
    assert z == math.trunc((w_neg - 105) / math.sqrt(20 * 21 * 41 / 24) * 100) / 100
    assert pw == pytest.approx(2 * sps.norm.cdf(z))
    assert math.isnan(wilcoxon_sctk(d[:7])[1])


# ----------------------------------------------------------------- against NIST sc_stats
WORDS = "the cat sat on a mat and dog ran far away".split()


def _table(n, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        ref = list(rng.choice(WORDS, rng.integers(4, 10)))

        def noisy(p, ref=ref):
            out = []
            for w in ref:
                u = rng.random()
                if u < p / 3:
                    continue  # deletion
                out.append(str(rng.choice(WORDS)) if u < p else w)
            return out

        rows.append(
            {
                "item_id": f"u{i:04d}",
                "reference": " ".join(ref),
                "A": " ".join(noisy(0.35)),
                "B": " ".join(noisy(0.2)),
            }
        )
    return pd.DataFrame(rows)


def _frame(table, col):
    counts = word_counts_many(list(table["reference"]), list(table[col]))
    f = pd.DataFrame(counts, columns=["n_words", "n_sub", "n_del", "n_ins"])
    f["item_id"] = table["item_id"]
    f["group"] = "all"
    return f


def _sc_stats(tmp, table):
    sclite, sc_stats = _tool("sclite"), _tool("sc_stats")
    for col in ("reference", "A", "B"):
        lines = [f"{t} ({i}-1)" for i, t in zip(table["item_id"], table[col], strict=True)]
        (tmp / f"{col}.trn").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for sys_ in ("A", "B"):
        subprocess.run(
            [
                sclite,
                "-r",
                str(tmp / "reference.trn"),
                "trn",
                "-h",
                str(tmp / f"{sys_}.trn"),
                "trn",
                sys_,
                "-i",
                "spu_id",
                "-o",
                "sgml",
                "-O",
                str(tmp),
            ],
            check=True,
            capture_output=True,
        )
    sgml = (tmp / "A.trn.sgml").read_bytes() + (tmp / "B.trn.sgml").read_bytes()
    out = subprocess.run(
        [sc_stats, "-p", "-t", "sign", "wilc", "-u", "-n", "-"],
        input=sgml,
        check=True,
        capture_output=True,
        cwd=tmp,  # sc_stats writes its <system>.sts summaries into the working directory
    ).stdout.decode()
    found = {}
    for abbrev in ("SI", "WI"):
        # the first row of each test is system A's, its cell against B holds the p-value
        m = re.search(rf"^\|\s+{abbrev}\s+\|\|.*?(<?\d\.\d{{3}})", out, re.MULTILINE)
        assert m, out
        found[abbrev] = m.group(1)
    return found


def _printed(p):
    return "<0.001" if p < 0.001 else f"{p:.3f}"


@pytest.mark.skipif(
    _tool("sc_stats") is None or _tool("sclite") is None,
    reason="NIST sc_stats/sclite not installed (Debian package sctk; installer/install.sh --dev)",
)
@pytest.mark.parametrize(
    "n, seed",
    # sc_stats' sign test prints <0.001 for every N above 20 (its binomial table overflows
    # there), so the sign test is checked at N <= 20; the Wilcoxon test at 20 and 60
    [(12, 1), (15, 8), (20, 2), (20, 7), (30, 4), (40, 5), (60, 3)],
)
def test_sign_and_wilcoxon_equal_sc_stats(tmp_path, wer_spec, n, seed):
    table = _table(n, seed)
    frames = {"A": _frame(table, "A"), "B": _frame(table, "B")}
    r = compare_systems(
        frames,
        [wer_spec],
        AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1),
        audits=False,
    )
    (t,) = r.classical
    printed = _sc_stats(tmp_path, table)
    if n <= 20:
        assert printed["SI"] == _printed(t.sign_p_sctk)
    assert printed["WI"] == _printed(t.wilcoxon_p_sctk)


@pytest.fixture
def wer_spec():
    return ratio_metric("wer", "WER", ["n_sub", "n_del", "n_ins"], ["n_words"])
