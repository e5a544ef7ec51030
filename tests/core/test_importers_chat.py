"""TalkBank CHAT transcripts: utterances with time bullets become segments of the linked
media, speakers and their @ID metadata, the audible text as the reference, and the
utterances that cannot be scored listed as problems."""

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.importers import detect_format, import_dataset
from fairdesk.core.store import Project

pytest.importorskip("pylangacq")

SR = 16000
BULLET = "\x15"

CHA = """@UTF8
@Begin
@Languages:\teng
@Participants:\tCHI Ross Target_Child, MOT Mother
@ID:\teng|demo|CHI|2;06.15|male|TD||Target_Child|||
@ID:\teng|demo|MOT|||||Mother|||
@Media:\t{media}, audio
*CHI:\tI want [/] I want the ball . {b}100_1500{b}
*MOT:\tyou want the xxx ? {b}1600_2600{b}
*CHI:\tdoggie@c go(ne) &-um there . {b}2700_4000{b}
*MOT:\tno bullet here .
*MOT:\tlook at that ! {b}4100_5000{b}
@End
"""


def _write(folder, name, media, seconds=6.0):
    folder.mkdir(parents=True, exist_ok=True)
    x = np.random.default_rng(1).uniform(-0.2, 0.2, int(seconds * SR)).astype(np.float32)
    sf.write(str(folder / f"{media}.wav"), x, SR)
    (folder / f"{name}.cha").write_text(CHA.format(media=media, b=BULLET), encoding="utf-8")


def test_a_chat_transcript_imports_its_bulleted_utterances(tmp_path):
    folder = tmp_path / "childes"
    _write(folder, "ross01", "ross01")
    project = Project(tmp_path / "proj")
    assert detect_format(folder) == "chat" and detect_format(folder / "ross01.cha") == "chat"
    rep = import_dataset(project, "c", folder)
    assert rep.format == "chat" and rep.imported == 3
    items = project.items(project.dataset("c")).sort_values("start_s")
    # the audible text: the retraced words kept, codes and the terminator removed
    assert list(items["text"]) == ["I want I want the ball", "doggie go um there", "look at that"]
    assert list(items["start_s"]) == pytest.approx([0.1, 2.7, 4.1])
    assert list(items["end_s"]) == pytest.approx([1.5, 4.0, 5.0])
    assert list(items["speaker_id"]) == ["Ross", "Ross", "ross01:MOT"]
    chi = items.iloc[0]
    assert chi["age"] == "2;06.15" and int(chi["age_months"]) == 30
    assert chi["role"] == "Target_Child" and chi["participant"] == "CHI"
    reasons = sorted(p.reason for p in rep.problems)
    assert len(reasons) == 2
    assert reasons[0].startswith("utterance of MOT at line 11: no time bullet")
    assert reasons[1] == (
        "utterance of MOT at line 9: holds xxx (unintelligible, coded or untranscribed "
        "material), so it is not scored"
    )


def test_a_media_name_that_differs_is_resolved_or_reported(tmp_path):
    """@Media names a file that is not there: the audio named as the transcript is taken,
    and the import says so; with neither, the transcript is reported, not the whole import."""
    folder = tmp_path / "c"
    _write(folder, "s1", "s1")
    (folder / "s1.cha").write_text(CHA.format(media="other-name", b=BULLET), encoding="utf-8")
    _write(folder / "sub", "s2", "s2-audio")
    (folder / "sub" / "s2-audio.wav").rename(folder / "sub" / "unrelated.wav")
    project = Project(tmp_path / "proj")
    rep = import_dataset(project, "c", folder)
    assert rep.imported == 3  # s1's utterances
    reasons = [p.reason for p in rep.problems if p.row is None]
    assert (
        "media: @Media names 'other-name', which is not here; took s1.wav, named as the transcript"
    ) in reasons
    assert any(
        r.startswith("no audio for this transcript (looked for s2-audio, s2") for r in reasons
    )
