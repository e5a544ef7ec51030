"""The notes and warnings of an audit run are coded (issue 43, point 1): the words for
each code are the sentences the jobs wrote before for the same numbers, a sentence stored
by an older run reads back into its code and numbers, and a stored run round-trips."""

from __future__ import annotations

import json

import pytest

from fairdesk.jobs.result import AuditRun
from fairdesk.jobs.result_codec import decode_notice, encode
from fairdesk.jobs.run_notes import OLD_SENTENCES, old_sentence
from fairdesk.presentation.notices import notice_text, notice_texts
from fairdesk.presentation.run_notes import TEXTS
from fairdesk.stats.notices import Notice

#: (note, the sentence the jobs wrote for it before the notes were coded, verbatim).
OLD = [
    (Notice("run.all_failed", {"n": 40}), "every item failed (40); no statistics were computed"),
    (
        Notice("run.nlu_intents_unknown"),
        "EM not computed: the dataset's intents are not those of the embedded music NLU; pass "
        "--nlu hf:<folder> or --nlu table:<file>",
    ),
    (Notice("run.nlu_used", {"nlu": "demo-music"}), "intents and slots from the NLU demo-music"),
    (
        Notice("run.input_problems", {"n": 3}),
        "3 item(s) without a reference to score (empty, or empty after the normaliser) were "
        "left out (see input_problems)",
    ),
    (
        Notice(
            "run.acoustics_unavailable",
            {"text": "acoustic covariates need fairdesk[asr]; the rest of the audit is complete"},
        ),
        "acoustic covariates need fairdesk[asr]; the rest of the audit is complete",
    ),
    (
        Notice("run.acoustics_failures", {"n": 1}),
        "1 item has no acoustic covariates (see acoustics.failures)",
    ),
    (
        Notice("run.acoustics_failures", {"n": 4}),
        "4 items have no acoustic covariates (see acoustics.failures)",
    ),
    (
        Notice("run.explain_failures", {"n": 1}),
        "1 sampled item was not grounded (see explain.failures)",
    ),
    (
        Notice("run.explain_failures", {"n": 2}),
        "2 sampled items were not grounded (see explain.failures)",
    ),
    (
        Notice("run.prediction_problems", {"n": 1}),
        "1 row of the predictions file was refused or flagged (see prediction_problems)",
    ),
    (
        Notice("run.prediction_problems", {"n": 5}),
        "5 rows of the predictions file were refused or flagged (see prediction_problems)",
    ),
    (
        Notice("run.device_fallback", {"library": "PyTorch", "why": "no kernel image (sm_50)"}),
        "--device auto: a CUDA GPU is there but PyTorch cannot use it (no kernel image "
        "(sm_50)); ran on the CPU instead (slower); fix the GPU driver, or pass --device cpu "
        "to say so",
    ),
    (
        Notice("run.datasets_together", {"datasets": (("pilot", 32), ("more", 1))}),
        "audited together: pilot (32 items), more (1 item)",
    ),
    (
        Notice("run.shared_speakers", {"ids": ("a0",)}),
        "1 speaker id (a0) is found in more than one dataset and each counted as one speaker; "
        "rename the speakers of one dataset if they are different people",
    ),
    (
        Notice("run.shared_speakers", {"ids": ("a0", "b1")}),
        "2 speaker ids (a0, b1) are found in more than one dataset and each counted as one "
        "speaker; rename the speakers of one dataset if they are different people",
    ),
    (
        Notice("run.references_disagree", {"n": 2, "choice": "latest"}),
        "2 items have versions by several annotators that disagree, without adjudication; "
        "this audit used the newest version of each (see `fairdesk agreement`; adjudicate "
        "them, or audit with --reference-text adjudicated or resample)",
    ),
    (
        Notice("run.references_disagree", {"n": 1, "choice": "imported"}),
        "1 item has versions by several annotators that disagree, without adjudication; this "
        "audit used the imported text (see `fairdesk agreement`; adjudicate them, or audit "
        "with --reference-text adjudicated or resample)",
    ),
    (
        Notice("run.references_disagree", {"n": 3, "choice": "annotator:Obi"}),
        "3 items have versions by several annotators that disagree, without adjudication; "
        "this audit used Obi's (see `fairdesk agreement`; adjudicate them, or audit with "
        "--reference-text adjudicated or resample)",
    ),
    (
        Notice("run.references_left_out", {"n": 2, "choice": "adjudicated"}),
        "2 items left out by --reference-text adjudicated (see input_problems)",
    ),
    (
        Notice("run.references_resampled", {"n": 1}),
        "1 item with disagreeing versions: each bootstrap replicate draws one version per "
        "item, so the intervals include the annotators' disagreement",
    ),
    (
        Notice("run.empty_hypotheses", {"n": 2, "column": "hypothesis"}),
        "2 item(s) have an empty hypothesis (the model produced no words): each counts as all "
        "deletions",
    ),
    (
        Notice("run.diacritics_off"),
        "the text is English (normaliser whisper-english), so the diacritic metrics (DER, RDD, "
        "net loss, TER) are not computed; ask for one with --metric der (or ter, rdd, "
        "diacritic_net_loss)",
    ),
    (
        Notice("run.same_number", {"dropped": ("balanced_accuracy",), "kept": "macro_recall"}),
        "balanced_accuracy equals macro_recall (mean per-class recall): tested once, as "
        "macro_recall",
    ),
    (
        Notice("run.phone_confusion_failed", {"error": "No module named 'nltk'"}),
        "phone confusion not computed: No module named 'nltk'",
    ),
    (
        Notice("run.plan_closed_form", {"error": "singular matrix"}),
        "the recording plan could not resample the pilot's speakers (singular matrix); the "
        "plan shown is the closed-form estimate: run fairdesk plan for the resampling plan",
    ),
    (
        Notice("run.no_diacritic_items"),
        "DER is undefined where the reference carries no diacritic; these items report the "
        "diacritics the model added there (every one was added), in all and per 100 reference "
        "letters",
    ),
    (
        Notice("run.accentedness_collinear"),
        "accentedness is a function of the group here (e.g. constant within each group), so "
        "their effects cannot be separated; annotate more items whose accentedness varies "
        "within groups",
    ),
    (
        Notice("run.normaliser_set", {"name": "whisper-basic"}),
        "set by the user: whisper-basic",
    ),
    (
        Notice("run.normaliser_language", {"language": "en", "english": True}),
        "language 'en' is English",
    ),
    (
        Notice("run.normaliser_language", {"language": "ig", "english": False}),
        "language 'ig' is not English: basic normaliser, marks kept",
    ),
    (
        Notice("run.normaliser_no_letters"),
        "language auto: the references have no letters",
    ),
    (
        Notice(
            "run.normaliser_ascii_share",
            {"share": 1.0, "letters": 2283, "threshold": 0.99, "english": True},
        ),
        "language auto: 100.0% of the 2,283 reference letters are plain ASCII (≥ 99%), so "
        "Whisper's English normaliser",
    ),
    (
        Notice(
            "run.normaliser_ascii_share",
            {"share": 0.5, "letters": 12, "threshold": 0.99, "english": False},
        ),
        "language auto: only 50.0% of the 12 reference letters are plain ASCII (< 99%), so "
        "Whisper's basic normaliser with diacritics and tone marks kept",
    ),
    (
        Notice("run.no_speaker_ids", {"table": True}),
        "no speaker ids: each utterance counts as independent, so if speakers recorded "
        "several utterances the intervals are too narrow; name the speaker column with "
        "--speaker-col (speaker_col= in Python)",
    ),
    (
        Notice("run.no_speaker_ids", {"table": False}),
        "no speaker ids: each utterance counts as independent, so if speakers recorded "
        "several utterances the intervals are too narrow; import the dataset again naming "
        "its speaker column with --speaker-col",
    ),
]


@pytest.mark.parametrize(("note", "sentence"), OLD, ids=[n.code for n, _ in OLD])
def test_the_words_are_the_old_sentence_and_it_reads_back_as_the_code(note, sentence):
    assert notice_text(note) == sentence
    assert old_sentence(sentence) == note
    assert decode_notice(sentence) == note  # a stored sentence
    assert decode_notice(json.loads(json.dumps(encode(note, Notice)))) == note  # today's form


def test_every_code_has_words_an_old_pattern_and_a_known_answer():
    codes = {c for c, _, _ in OLD_SENTENCES}
    assert codes == set(TEXTS)
    assert codes == {n.code for n, _ in OLD}


def test_a_sentence_no_code_reads_stays_a_stored_sentence():
    for s in (
        "something a newer helper wrote",
        "7 speaker ids (a, b, c, d, e and 2 more) are "
        "found in more than one dataset and each counted as one speaker; rename the "
        "speakers of one dataset if they are different people",
    ):
        note = old_sentence(s)
        assert note == Notice("stored.sentence", {"text": s}) and notice_text(note) == s


def test_a_stored_run_round_trips_coded_and_an_old_one_words_as_it_was():
    notes = (Notice("run.all_failed", {"n": 2}), Notice("run.nlu_used", {"nlu": "demo-music"}))
    warnings = (Notice("run.same_number", {"dropped": ("a", "b"), "kept": "c"}),)
    run = AuditRun(notes=notes, warnings=warnings, run_id=1)
    stored = json.loads(json.dumps(run.to_json()))
    assert stored["notes"][0] == {"code": "run.all_failed", "args": {"n": 2}}
    assert stored["schema_version"] == 2
    again = AuditRun.from_json(stored)
    assert again == run and again.notes == notes and again.warnings == warnings
    # a payload stored before: the sentences
    old = {**stored, "notes": notice_texts(notes), "warnings": notice_texts(warnings)}
    del old["schema_version"]
    before = AuditRun.from_json(old)
    assert before.notes == notes and before.warnings == warnings
    assert notice_texts(before.notes) == old["notes"]


def test_json_output_words_the_notes_under_their_keys():
    from fairdesk.presentation.readings import readings_json

    run = AuditRun(notes=(Notice("run.all_failed", {"n": 3}),), run_id=1)
    out = readings_json(run.to_json(), run)
    assert out["notes"] == ["every item failed (3); no statistics were computed"]


def test_the_normaliser_reason_of_an_audit_is_coded_with_its_numbers():
    import pandas as pd

    from fairdesk.jobs.analysis import analyse
    from fairdesk.stats import AuditSettings

    df = pd.DataFrame(
        {
            "group": ["a"] * 6 + ["b"] * 6,
            "speaker_id": [f"s{i}" for i in range(12)],
            "reference": ["Ọ́ na-eri ákwà", "ụlọ akwụkwọ"] * 6,
            "hypothesis": ["o na eri akwa", "ulo akwukwo"] * 6,
        }
    )
    _, run = analyse(
        df,
        AuditSettings(normaliser="auto", n_bootstrap=200, min_items=2, min_speakers=2),
        language=None,
    )
    reason = run.normaliser.reason
    assert reason is not None and reason.code == "run.normaliser_ascii_share"
    assert reason.args["english"] is False and reason.args["letters"] == 120
    assert run.normaliser_reason == reason
    assert notice_text(reason).startswith("language auto: only ")
    assert old_sentence(notice_text(reason)).code == reason.code


def test_a_wording_change_needs_no_new_result(monkeypatch):
    """A stored run holds codes and numbers: changed words in presentation apply to it as
    it is (no recomputation, so no new cache key)."""
    from fairdesk.presentation import run_notes

    run = AuditRun(notes=(Notice("run.all_failed", {"n": 5}),), run_id=1)
    stored = json.loads(json.dumps(run.to_json()))
    monkeypatch.setitem(run_notes.TEXTS, "run.all_failed", lambda n: f"{n} items failed")
    assert notice_texts(AuditRun.from_json(stored).notes) == ["5 items failed"]


def test_a_fresh_process_reads_an_old_runs_sentences_into_their_codes():
    """Decoding an AuditRun needs nothing else imported first: jobs.result brings the run
    notes' reader of old sentences with it."""
    import subprocess
    import sys

    code = (
        "from fairdesk.jobs.result import AuditRun\n"
        "r = AuditRun.from_json({'groups': [], 'comparisons': [], 'notes': "
        "['every item failed (3); no statistics were computed']})\n"
        "print(r.notes[0].code, r.notes[0].args['n'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["run.all_failed", "3"]
