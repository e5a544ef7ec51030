"""``fairdesk import --help``'s list of formats: for each, the layout it expects and one
command (the guide's "Your data" page has the same table with more detail)."""

from __future__ import annotations

__all__ = ["FORMAT_LAYOUTS", "formats_epilog"]

#: ``--format`` → (the layout it expects, one command).
FORMAT_LAYOUTS: dict[str, tuple[str, str]] = {
    "manifest": (
        "a CSV, TSV, JSONL or Parquet table, one row per utterance: audio path, text, "
        "speaker id, metadata columns",
        "fairdesk import --project P --name test manifest.csv",
    ),
    "audiofolder": (
        "a folder with metadata.csv (file_name, transcription, metadata); a subfolder is a split",
        "fairdesk import --project P --name d data/",
    ),
    "commonvoice": (
        "cv-corpus/<lang>/ with validated.tsv, test.tsv ... and clips/",
        "fairdesk import --project P --name cv cv-corpus/en --split test",
    ),
    "librispeech": (
        "LibriSpeech/<subset>/<speaker>/<chapter>/*.trans.txt and *.flac, SPEAKERS.TXT above",
        "fairdesk import --project P --name ls LibriSpeech/dev-clean",
    ),
    "saa": (
        "speakers_all.csv and one MP3 per speaker reading the Stella paragraph",
        "fairdesk import --project P --name saa speech-accent-archive/",
    ),
    "l2arctic": (
        "one folder per speaker with wav/, transcript/ and annotation/*.TextGrid",
        "fairdesk import --project P --name l2 l2arctic/",
    ),
    "kaldi": (
        "a data directory: wav.scp, text, utt2spk (segments, spk2gender, spk2age ... optional); "
        "pipes such as 'flac -c -d -s F |' and F.ark:OFFSET entries are read without a shell",
        "fairdesk import --project P --name k data/train --audio-root /corpora/x",
    ),
    "nemo": (
        "a JSON-lines manifest: audio_filepath, text, duration (offset for a span)",
        "fairdesk import --project P --name n train_manifest.json",
    ),
    "lhotse": (
        "*_recordings_*.jsonl.gz + *_supervisions_*.jsonl.gz, or a CutSet (*cuts*.jsonl.gz)",
        "fairdesk import --project P --name l manifests/",
    ),
    "vctk": (
        "VCTK-Corpus: txt/p225/*.txt with wav48_silence_trimmed/ (or wav48/), speaker-info.txt",
        "fairdesk import --project P --name v VCTK-Corpus-0.92/",
    ),
    "timit": (
        "TIMIT/TRAIN|TEST/DR1..DR8/<speaker>/*.WAV (SPHERE) + .TXT, SPKRINFO.TXT",
        "fairdesk import --project P --name t TIMIT/",
    ),
    "hf": (
        "a Hugging Face save_to_disk folder or Hub Parquet snapshot (audio as bytes or paths)",
        "fairdesk import --project P --name f fleurs/",
    ),
    "eaf": (
        "ELAN sessions: session.eaf beside its media; each annotation of a transcript tier",
        "fairdesk import --project P --name e sessions/ --tiers '*-tx' --speakers speakers.csv",
    ),
    "textgrid": (
        "Praat sessions: rec.TextGrid beside rec.wav; each interval of a transcript tier",
        "fairdesk import --project P --name g sessions/ --speaker-tier speaker",
    ),
    "chat": (
        "TalkBank CHAT: file.cha with time bullets beside its @Media recording",
        "fairdesk import --project P --name c childes/Ross/",
    ),
}


def formats_epilog() -> str:
    """The help's closing list: each format, its layout and one command."""
    import textwrap

    lines = ["formats (--format; auto detects them), the layout each expects, one command:"]
    for fmt, (layout, command) in FORMAT_LAYOUTS.items():
        lines += textwrap.wrap(
            f"{fmt}: {layout}", width=88, initial_indent="  ", subsequent_indent="      "
        )
        lines.append(f"    $ {command}")
    lines.append(
        "relative audio paths start from --audio-root (default: found as recipes write them)"
    )
    return "\n".join(lines)
