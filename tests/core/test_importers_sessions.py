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
    rep = import_dataset(project, "s", folder)  # the transcript tiers: notes are skipped
    assert rep.imported == 40
    assert [p.reason for p in rep.problems] == [
        "tier 'notes' skipped: by name or type not a transcript (notes, comments, "
        "translations, glosses, phones); to import it as utterances name it with --tiers"
    ]
    assert rep.problems[0].source.endswith("session1.eaf")
    rep = import_dataset(project, "n", folder, tiers="notes")  # named: its empty note refused
    assert rep.imported == 0 and [p.reason for p in rep.problems] == [
        "tier 'notes' interval 1 (0.000–0.500 s): empty annotation; type its transcript or "
        "delete it"
    ]
    rep = import_dataset(project, "t", folder, tiers="Ana-tx,Carl")
    assert rep.imported == 20 and [p.reason for p in rep.problems] == [
        "--tiers 'Carl': no file has a tier of that name (or matching that pattern); check "
        "the spelling"
    ]
    rep = import_dataset(project, "v", folder, tiers="*-tx")  # a pattern
    assert rep.imported == 40 and rep.problems == ()
    rep = import_dataset(project, "w", folder, tiers="Carl")
    assert rep.imported == 0 and (
        "no tier matches --tiers Carl in this file (its tiers: Ana-tx, Ben-tx, notes); name "
        "one of those, or a pattern such as '*-tx'"
    ) in [p.reason for p in rep.problems]
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


EAF_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<ANNOTATION_DOCUMENT AUTHOR="" '
    'DATE="2020-01-01T00:00:00+00:00" FORMAT="3.0" VERSION="3.0"{xsi}>\n'
    '<HEADER MEDIA_FILE="" TIME_UNITS="milliseconds">\n'
    '<MEDIA_DESCRIPTOR MEDIA_URL="file:///elsewhere/{media}" MIME_TYPE="audio/x-wav" '
    'RELATIVE_MEDIA_URL="./{media}"/>\n</HEADER>\n'
)
XSI = (
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:noNamespaceSchemaLocation="http://www.mpi.nl/tools/elan/EAFv3.0.xsd"'
)


def _eaf_text(slots, annotations, media="rec.wav", xsi=XSI):
    """An EAF as ELAN writes it: ``slots`` [(id, ms or None)], ``annotations``
    [(id, ts1, ts2, text)] on one tier 'A' of participant 'Ann'."""
    out = EAF_HEAD.format(xsi=xsi, media=media) + "<TIME_ORDER>\n"
    for sid, ms in slots:
        value = "" if ms is None else f' TIME_VALUE="{ms}"'
        out += f'<TIME_SLOT TIME_SLOT_ID="{sid}"{value}/>\n'
    out += '</TIME_ORDER>\n<TIER LINGUISTIC_TYPE_REF="default-lt" PARTICIPANT="Ann" TIER_ID="A">\n'
    for aid, a, b, text in annotations:
        out += (
            f'<ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="{aid}" TIME_SLOT_REF1="{a}" '
            f'TIME_SLOT_REF2="{b}"><ANNOTATION_VALUE>{text}</ANNOTATION_VALUE>'
            "</ALIGNABLE_ANNOTATION></ANNOTATION>\n"
        )
    out += (
        '</TIER>\n<LINGUISTIC_TYPE GRAPHIC_REFERENCES="false" LINGUISTIC_TYPE_ID="default-lt" '
        'TIME_ALIGNABLE="true"/>\n</ANNOTATION_DOCUMENT>\n'
    )
    return out


def test_elan_unaligned_and_undefined_slots_and_a_missing_schema_attribute(project, tmp_path):
    """An unaligned time slot (legal in ELAN) is placed between its aligned neighbours as
    ELAN places it; an undefined slot refuses its annotation only, naming its id; a file
    without the schema attribute pympi needs is read; a folder whose .eaf links its audio
    under another name is detected as ELAN."""
    folder = tmp_path / "elan"
    _session_wav(folder / "recording-2021.wav", 3.0)
    slots = [("ts1", 100), ("ts2", None), ("ts3", None), ("ts4", 1000), ("ts5", 1500)]
    anns = [
        ("a1", "ts1", "ts2", "one"),
        ("a2", "ts2", "ts3", "two"),
        ("a3", "ts3", "ts4", "three"),
        ("a9", "ts5", "ts99", "lost"),
    ]
    (folder / "session.eaf").write_text(_eaf_text(slots, anns, "recording-2021.wav", xsi=""))
    assert detect_format(folder) == "eaf"
    rep = import_dataset(project, "e", folder)
    assert rep.imported == 3
    assert [p.reason for p in rep.problems] == [
        "tier 'A' annotation a9: its time slot 'ts99' is not defined in the file's TIME_ORDER; "
        "fix or delete the annotation in ELAN"
    ]
    items = project.items(project.dataset("e")).sort_values("start_s")
    assert list(items["text"]) == ["one", "two", "three"]
    assert list(items["start_s"]) == pytest.approx([0.1, 0.4, 0.7])
    assert list(items["end_s"]) == pytest.approx([0.4, 0.7, 1.0])
    assert set(items["speaker_id"]) == {"Ann"} and set(items["path"]) == {"recording-2021.wav"}


TG_HEAD = """File type = "ooTextFile"
Object class = "TextGrid"

xmin = 0
xmax = 3
tiers? <exists>
size = 1
item []:
    item [1]:
        class = "IntervalTier"
        name = "{tier}"
        xmin = 0
        xmax = 3
        intervals: size = {n}
"""


def _textgrid(intervals, tier="words"):
    out = TG_HEAD.format(tier=tier, n=len(intervals))
    for k, (a, b, text) in enumerate(intervals, start=1):
        out += f"        intervals [{k}]:\n            xmin = {a}\n            xmax = {b}\n"
        out += f'            text = "{text}"\n'
    return out


def test_textgrid_faults_refuse_an_interval_or_name_the_file(project, tmp_path):
    """One overlapping interval refuses that interval only; a negative start keeps its
    sign; an empty file, a Latin-1 file and a cut file each get a message of their own;
    Praat's short format and UTF-16 read as the long one."""
    folder = tmp_path / "tg"
    _session_wav(folder / "a.wav", 3.0)
    (folder / "a.TextGrid").write_text(
        _textgrid([(0, 1, "hello"), (0.5, 2, "world"), (2, 3, "ok")]), encoding="utf-8"
    )
    _session_wav(folder / "b.wav", 3.0)
    (folder / "b.TextGrid").write_text(
        _textgrid([(-1, 1, "early"), (1, 2, "fine")]), encoding="utf-16"
    )
    _session_wav(folder / "c.wav", 3.0)
    (folder / "c.TextGrid").write_bytes(b"")
    _session_wav(folder / "d.wav", 3.0)
    (folder / "d.TextGrid").write_bytes(_textgrid([(0, 1, "\u00c9t\u00e9")]).encode("latin-1"))
    _session_wav(folder / "e.wav", 3.0)
    (folder / "e.TextGrid").write_text(_textgrid([(0, 1, "cut"), (1, 2, "x")])[:-40])
    _session_wav(folder / "f.wav", 3.0)
    short = 'File type = "ooTextFile"\nObject class = "TextGrid"\n\n0\n3\n<exists>\n1\n'
    short += '"IntervalTier"\n"words"\n0\n3\n2\n0\n1.5\n"short ""one"""\n1.5\n3\n""\n'
    (folder / "f.TextGrid").write_text(short)
    rep = import_dataset(project, "t", folder)
    got = sorted(project.items(project.dataset("t"))["text"])
    assert got == ["fine", "hello", "ok", 'short "one"']
    reasons = {p.source.rsplit("/", 1)[-1]: p.reason for p in rep.problems}
    assert reasons["a.TextGrid"].startswith(
        "tier 'words' interval 2 (0.500–2.000 s): overlaps the interval before it"
    )
    assert reasons["b.TextGrid"] == (
        "tier 'words' interval 1 (-1.000–1.000 s): starts before the recording (at -1.000 s); "
        "move its start to 0 s or later"
    )
    assert reasons["c.TextGrid"] == (
        "not a readable TextGrid: the file is empty; re-save the TextGrid from Praat"
    )
    assert (
        reasons["d.TextGrid"].startswith(
            "not a readable TextGrid: line 18 holds byte 0xC9, which is not UTF-8"
        )
        and "iconv -f latin1 -t utf-8 d.TextGrid" in reasons["d.TextGrid"]
    )
    assert reasons["e.TextGrid"].startswith("not a readable TextGrid: the file ends where")
    assert len(rep.problems) == 5
