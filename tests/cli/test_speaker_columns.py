"""Speakers are never silently absent (issue 44, point 1): one rule finds the speaker
column of every table (``--table``, ``fairdesk.audit_table``, the importers, ``regress
--table``), and a run without speaker ids says so in every view."""

import json

import numpy as np
import pandas as pd
import pytest

import fairdesk
from fairdesk.cli import main
from fairdesk.core.errors import FairdeskError, ImportFailed
from fairdesk.core.import_rows import rows_to_candidates
from fairdesk.core.speaker_columns import (
    AmbiguousSpeakerColumn,
    MissingSpeakerColumn,
    find_speaker_column,
)
from fairdesk.jobs.result_parts import NO_SPEAKER_IDS
from fairdesk.presentation.notices import notice_texts

WORDS = (
    "the a red blue green cat dog house river stone light dark small large runs sees "
    "under over near far quick slow old new"
).split()


def speaker_table(seed: int = 4, speaker_col: str = "speaker") -> pd.DataFrame:
    """240 utterances: groups A and B, 12 speakers each, 10 utterances per speaker. Each
    speaker has their own word-error rate (a strong speaker effect) and B's speakers a
    little more on average; every sentence differs (no shared content: the speaker
    scheme applies)."""
    rng = np.random.default_rng(seed)
    rows = []
    for grp, base in (("A", 0.10), ("B", 0.16)):
        for s in range(12):
            p = float(np.clip(base + rng.normal(0, 0.09), 0.0, 0.6))
            for u in range(10):
                ref = rng.choice(WORDS, size=8).tolist()
                hyp = [w if rng.random() > p else "zzz" for w in ref]
                rows.append(
                    {
                        "reference": " ".join(ref) + f" item{grp}{s}x{u}",
                        "hypothesis": " ".join(hyp) + f" item{grp}{s}x{u}",
                        speaker_col: f"{grp}-spk{s}",
                        "grp": grp,
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("columns", "found"),
    [
        (["reference", "speaker_id", "speaker"], "speaker_id"),  # the exact name wins
        (["reference", "Speaker"], "Speaker"),
        (["reference", "SPK"], "SPK"),
        (["reference", "client_id"], "client_id"),
        (["reference", "Participant_ID"], "Participant_ID"),
        (["reference", "talker"], "talker"),
        (["reference", "subject_id"], "subject_id"),
        (["reference", "reader"], "reader"),
        (["reference", "speakerid"], "speakerid"),
        (["reference", "hypothesis", "grp"], None),
        (["reference", "speakers_note"], None),  # a name must match whole
    ],
)
def test_the_rule_finds_the_speaker_column(columns, found):
    assert find_speaker_column(columns) == found


def test_two_speaker_columns_are_refused_naming_both():
    with pytest.raises(AmbiguousSpeakerColumn) as err:
        find_speaker_column(["reference", "speaker", "client_id"], source="t.csv")
    msg = str(err.value)
    assert "'speaker'" in msg and "'client_id'" in msg and "--speaker-col" in msg
    assert msg.startswith("t.csv: ")
    # naming one settles it; naming a missing one is refused, not ignored
    assert find_speaker_column(["speaker", "client_id"], "client_id") == "client_id"
    with pytest.raises(MissingSpeakerColumn, match="'spk'"):
        find_speaker_column(["speaker"], "spk")


def test_the_importers_follow_the_same_rule(tmp_path):
    rows = [(2, {"path": "a.wav", "text": "hi", "Talker": "t1"})]
    (c,) = rows_to_candidates(["path", "text", "Talker"], rows, tmp_path / "m.csv", tmp_path)
    assert c.speaker_id == "t1"
    two = [(2, {"path": "a.wav", "text": "hi", "speaker": "s", "participant": "p"})]
    with pytest.raises(ImportFailed, match="'speaker' and 'participant'"):
        rows_to_candidates(
            ["path", "text", "speaker", "participant"], two, tmp_path / "m.csv", tmp_path
        )


def _check_speaker_run(run):
    assert run.speakers.column == "speaker" and run.speakers.n_speakers == 24
    assert run.speakers.warnings == ()
    (c,) = [c for c in run.comparisons if c.metric == "wer"]
    assert c.estimator == "speaker"
    assert (c.n_blocks.group_speakers, c.n_blocks.reference_speakers) == (12, 12)
    assert not any("no speaker ids" in w for w in notice_texts(run.warnings))


def test_a_speaker_column_named_speaker_is_used_by_the_cli(tmp_path, capsys):
    t = tmp_path / "t.csv"
    speaker_table().to_csv(t, index=False)
    out = tmp_path / "r.json"
    rc = main(
        [
            "audit",
            "--table",
            str(t),
            "--by",
            "grp",
            "--reference",
            "A",
            "--metric",
            "wer",
            "--n-bootstrap",
            "400",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    printed = capsys.readouterr().out
    assert "speakers: 24 speakers from column 'speaker'" in printed
    d = json.loads(out.read_text())
    assert d["speakers"] == {"column": "speaker", "n_speakers": 24, "warnings": []}
    (c,) = [c for c in d["comparisons"] if c["metric"] == "wer"]
    assert c["estimator"] == "speaker"
    assert c["n_blocks"]["group_speakers"] == 12 and c["n_blocks"]["reference_speakers"] == 12


def test_a_speaker_column_named_speaker_is_used_by_the_api():
    run = fairdesk.audit_table(
        speaker_table(), by="grp", reference="A", metrics=["wer"], n_bootstrap=400
    )
    _check_speaker_run(run)


def test_the_speaker_scheme_widens_the_interval_against_utterances():
    """The speaker effect makes the utterance scheme's interval too narrow: the run with
    the column found is the run with the column named, and wider than one without it."""
    df = speaker_table()
    found = fairdesk.audit_table(df, by="grp", reference="A", metrics=["wer"], n_bootstrap=400)
    named = fairdesk.audit_table(
        df, by="grp", reference="A", metrics=["wer"], n_bootstrap=400, speaker_col="speaker"
    )
    none = fairdesk.audit_table(
        df.drop(columns=["speaker"]), by="grp", reference="A", metrics=["wer"], n_bootstrap=400
    )
    (cf,), (cn,), (c0,) = (r.comparisons for r in (found, named, none))
    assert (cf.ci_low, cf.ci_high, cf.verdict) == (cn.ci_low, cn.ci_high, cn.verdict)
    assert c0.estimator == "utterance"
    assert cf.ci_high - cf.ci_low > 1.3 * (c0.ci_high - c0.ci_low)


def test_a_table_without_speakers_warns_in_console_json_and_api(tmp_path, capsys):
    df = speaker_table().drop(columns=["speaker"])
    t = tmp_path / "t.csv"
    df.to_csv(t, index=False)
    out = tmp_path / "r.json"
    args = ["audit", "--table", str(t), "--by", "grp", "--metric", "wer"]
    assert main([*args, "--n-bootstrap", "200", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "speakers: none (no speaker column)" in printed
    warning = [ln for ln in printed.splitlines() if ln.startswith("warning: no speaker ids")]
    assert len(warning) == 1
    assert "intervals are too narrow" in warning[0] and "--speaker-col" in warning[0]
    d = json.loads(out.read_text())
    assert d["speakers"]["column"] is None and d["speakers"]["warnings"] == [NO_SPEAKER_IDS]
    assert any(w.startswith("no speaker ids") for w in d["warnings"])
    run = fairdesk.audit_table(df, by="grp", metrics=["wer"], n_bootstrap=200)
    assert run.speakers.warnings == (NO_SPEAKER_IDS,)
    assert sum(w.startswith("no speaker ids") for w in notice_texts(run.warnings)) == 1
    # the stored form reads back with the code, and the console words it once
    from fairdesk.cli.console import format_groups
    from fairdesk.jobs.result import AuditRun

    back = AuditRun.from_json(run.to_json())
    assert back.speakers == run.speakers
    assert format_groups(back).count("warning: no speaker ids") == 1


def test_two_speaker_columns_refuse_the_audit(tmp_path, capsys):
    df = speaker_table()
    df["spk"] = df["speaker"]
    t = tmp_path / "t.csv"
    df.to_csv(t, index=False)
    rc = main(["audit", "--table", str(t), "--by", "grp", "--metric", "wer"])
    assert rc != 0
    err = capsys.readouterr().err
    assert "'speaker' and 'spk'" in err and "--speaker-col" in err
    with pytest.raises(FairdeskError, match="'speaker' and 'spk'"):
        fairdesk.audit_table(df, by="grp", metrics=["wer"], n_bootstrap=200)
    run = fairdesk.audit_table(df, by="grp", metrics=["wer"], n_bootstrap=200, speaker_col="spk")
    assert run.speakers.column == "spk"


def test_regress_table_finds_the_speaker_column(tmp_path):
    from fairdesk.jobs.regression_run import regress_table

    t = tmp_path / "t.csv"
    speaker_table().to_csv(t, index=False)
    out = regress_table(t, None, ["grp"], family="poisson-mixed")
    assert out.result.n_speakers == 24  # the random intercept per 'speaker'
    (lv,) = out.result.group_variables[0].levels
    assert lv.n_speakers == 12


def test_naming_another_column_keeps_the_tables_own_speaker_ids():
    from fairdesk.core.table_input import rows_frame, speaker_source

    df = pd.DataFrame(
        {
            "reference": ["a b", "c d"],
            "hypothesis": ["a b", "c"],
            "speaker_id": ["x", "y"],
            "spk": ["p", "q"],
        }
    )
    f, _ = rows_frame(df, speaker_col="spk")
    assert f["speaker_id"].tolist() == ["p", "q"] and f["speaker_id_table"].tolist() == ["x", "y"]
    assert speaker_source(f) == "spk" and speaker_source(rows_frame(f)[0]) == "spk"
