"""Long recordings segmented in ELAN or Praat, on fixtures written by pympi, praatio and
soundfile: items, speakers and spans, problems by file and interval."""

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.store import Project

SR = 16000


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def _session_wav(path, seconds):
    x = np.random.default_rng(3).uniform(-0.3, 0.3, int(seconds * SR)).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), x, SR)
    return x


def _intervals(n=20, offset=0.0):
    """``n`` intervals of 1.2 s every 2.5 s, starting at ``offset``."""
    return [(offset + 2.5 * i, offset + 2.5 * i + 1.2) for i in range(n)]


def elan_session(folder, name="session1"):
    """A session of two speakers, one tier each with a PARTICIPANT, 40 intervals in all."""
    import pympi

    x = _session_wav(folder / f"{name}.wav", 52.0)
    eaf = pympi.Elan.Eaf()
    eaf.remove_tier("default")
    eaf.add_linked_file(
        str(folder / f"{name}.wav"), relpath=f"./{name}.wav", mimetype="audio/x-wav"
    )
    for tier, part, off in (("Ana-tx", "Ana", 0.0), ("Ben-tx", "Ben", 1.25)):
        eaf.add_tier(tier, part=part)
        for i, (a, b) in enumerate(_intervals(20, off)):
            eaf.add_annotation(tier, round(a * 1000), round(b * 1000), f"{part} says {i}")
    eaf.add_tier("notes", part="")
    eaf.add_annotation("notes", 0, 500, "")
    eaf.to_file(str(folder / f"{name}.eaf"))
    return x


def test_an_elan_session_imports_one_item_per_interval(project, tmp_path):
    folder = tmp_path / "corpus"
    x = elan_session(folder)
    assert detect_format(folder) == "eaf"
    rep = import_dataset(project, "s", folder, tiers="Ana-tx,Ben-tx")
    assert rep.format == "eaf" and rep.imported == 40 and rep.problems == ()
    items = project.items(project.dataset("s"))
    assert items.groupby("speaker_id").size().to_dict() == {"Ana": 20, "Ben": 20}
    assert set(items["path"]) == {"session1.wav"} and set(items["session"]) == {"session1"}
    ana = items[items["tier"] == "Ana-tx"].sort_values("start_s")
    want = _intervals(20)
    assert list(ana["start_s"]) == pytest.approx([a for a, _b in want])
    assert list(ana["end_s"]) == pytest.approx([b for _a, b in want])
    assert list(ana["text"])[:2] == ["Ana says 0", "Ana says 1"]
    assert items["audio_hash"].nunique() == 40
    assert list(items["duration"]) == pytest.approx([1.2] * 40)
    first = items.set_index("id").loc["session1_Ben-tx_0001250"]
    from fairdesk.core import spans

    got = spans.load_row(project.dataset("s").root, first).samples
    whole, _sr = sf.read(str(folder / "session1.wav"), dtype="float32")
    assert np.array_equal(got, whole[int(round(1.25 * SR)) : int(round(2.45 * SR))])
    assert np.abs(got - x[20000:39200]).max() < 1e-4  # the 16-bit WAV of the samples
    assert import_dataset(project, "s", folder, tiers="Ana-tx,Ben-tx").unchanged == 40


def test_elan_problems_name_the_file_tier_and_interval(project, tmp_path):
    import pympi

    folder = tmp_path / "c"
    elan_session(folder)
    rep = import_dataset(project, "s", folder)  # every tier: the empty note is refused
    assert rep.imported == 40
    assert [p.reason for p in rep.problems] == [
        "tier 'notes' interval 1 (0.000–0.500 s): empty annotation; type its transcript or "
        "delete it"
    ]
    assert rep.problems[0].source.endswith("session1.eaf")
    rep = import_dataset(project, "t", folder, tiers="Ana-tx,Carl")
    assert rep.imported == 0 and rep.problems[0].reason == (
        "no tier 'Carl' in this file (its tiers: Ana-tx, Ben-tx, notes); name one of those "
        "(--tiers, --speaker-tier)"
    )
    eaf = pympi.Elan.Eaf(str(folder / "session1.eaf"))
    eaf.add_annotation("Ana-tx", 51000, 53000, "past the end")
    eaf.add_annotation("Ana-tx", 100, 900, "overlaps the next")
    eaf.to_file(str(folder / "session1.eaf"))
    rep = import_dataset(project, "u", folder, tiers="Ana-tx", speaker_by="tier")
    assert rep.imported == 20 and len(rep.problems) == 2
    reasons = sorted(p.reason for p in rep.problems)
    assert any(
        r.startswith("tier 'Ana-tx' interval 2 (0.100–0.900 s): overlaps the interval before")
        for r in reasons
    )
    assert any("the span 51–53 s ends after the end of the file (52.000 s)" in r for r in reasons)
    items = project.items(project.dataset("u"))
    assert set(items["speaker_id"]) == {"Ana-tx"}


def test_a_praat_session_with_a_speaker_tier(project, tmp_path):
    from praatio import textgrid
    from praatio.data_classes.interval_tier import IntervalTier

    folder = tmp_path / "praat"
    _session_wav(folder / "rec.wav", 30.0)
    words = [(a, b, f"utterance {i}") for i, (a, b) in enumerate(_intervals(10))]
    who = [(0.0, 12.4, "S1"), (12.4, 30.0, "S2")]
    tg = textgrid.Textgrid()
    tg.addTier(IntervalTier("words", words, 0, 30.0))
    tg.addTier(IntervalTier("speaker", who, 0, 30.0))
    tg.save(str(folder / "rec.TextGrid"), format="long_textgrid", includeBlankSpaces=True)
    assert detect_format(folder) == "textgrid"
    rep = import_dataset(project, "p", folder, speaker_tier="speaker")
    assert rep.format == "textgrid" and rep.imported == 10 and rep.problems == ()
    items = project.items(project.dataset("p")).sort_values("start_s")
    assert list(items["speaker_id"]) == ["S1"] * 5 + ["S2"] * 5
    assert list(items["text"]) == [w[2] for w in words]
    assert list(items["end_s"]) == pytest.approx([b for _a, b, _t in words])


class SpanBackend:
    """Hears every clip it is given (their lengths) and says the tier's first words."""

    id = "fake-span"
    fingerprint = "v1"
    device = "cpu"
    capabilities = {"transcribe"}
    preferred_workers = 1

    def __init__(self):
        self.lengths = []

    def transcribe(self, audios):
        from fairdesk.models.base import Transcription

        self.lengths += [len(a) for a in audios]
        return [Transcription(text="ana says", words=(), confidence=None, language="en")] * len(
            audios
        )


def test_an_elan_session_audits_segment_by_segment(project, tmp_path):
    from tests.session_fixture import audit_by_tier

    elan_session(tmp_path / "corpus")
    import_dataset(project, "s", tmp_path / "corpus", tiers="Ana-tx,Ben-tx")
    be = SpanBackend()
    out = audit_by_tier(project, "s", "fake", backend=be)
    # 40 segments, each decoded alone (1.2 s at 16 kHz), none sharing a cached transcript
    assert be.lengths == [19200] * 40
    f = out.frame
    assert len(f) == 40 and f["start_s"].notna().all()
    assert list(f["duration_s"]) == pytest.approx([1.2] * 40)  # the acoustics read the span
    f = f.assign(errors=f["n_sub"] + f["n_del"] + f["n_ins"])
    by = f.groupby("tier")[["errors", "n_words"]].sum()
    wer = (by["errors"] / by["n_words"]).to_dict()
    assert wer == pytest.approx({"Ana-tx": 1 / 3, "Ben-tx": 2 / 3})
