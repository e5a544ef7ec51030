def test_the_alignment_uses_the_runs_recorded_normaliser():
    """``show`` and the item view align with the normaliser the run's WER used, not the
    dataset's default: a tone-preserving run shows the tone-mark error that the English
    normaliser would strip."""
    from fairdesk.jobs.result import AuditRun
    from fairdesk.review import item_report, run_normaliser

    row = {
        "id": "x",
        "reference": "àkwà ọ̀ma",
        "hypothesis": "akwa ọ̀ma",
        "n_sub": 1,
        "n_del": 0,
        "n_ins": 0,
        "n_words": 2,
    }
    payload = {"normaliser": {"name": "tone-preserving"}, "settings": {"language": None}}
    assert run_normaliser(AuditRun.from_json(payload)) == "tone-preserving"
    assert run_normaliser(AuditRun.from_json({"settings": {"normaliser": "auto"}})) is None
    kept = item_report(row, "en", run_normaliser(AuditRun.from_json(payload)))
    stripped = item_report(row, "en")
    assert "àkwà" in kept["alignment"] and "akwa" in kept["alignment"]
    assert "àkwà" not in stripped["alignment"]
