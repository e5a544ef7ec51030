"""Words users know: no user-facing text names a method by the project's internal name for its
source ("seed 003", "seed001", "seeds/000") or cites a section by number ("§6"). Walked here:
every command's ``--help``, the built-in prompt lists (names and titles), the metric and table
labels, the report templates and definitions, and the docs pages (README, CHANGELOG, the guide,
METHODS but its list of sources); the GUI's labels and menus are walked in
tests/gui/test_user_words_gui.py with the same rule.

The old names still accepted (so that scripts and saved state keep working) are listed here by
name, and only these may appear, only where the text says they are old names."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Old names still accepted: ``incremental --policy seed001`` (now ``whetten``), the Igbo
#: tone-mark prompt lists' old names ``seed003_*`` (now ``igbo_tone_marks_*``), and the stored
#: id of the incremental latency metric ``lat_seed001`` (shown as "LAT (per word)"; the id is
#: what earlier runs stored and what ``--metric`` accepts). The GUI's old row label "LAT (seed
#: 001)" is now "LAT (per word)".
ACCEPTED_ALIASES = (
    "lat_seed001",
    "seed003_1_orthographic_interference",
    "seed003_2_tone_sensitivity",
    "seed003_3_language_boundaries",
    "seed003_4_domain_terms",
    "seed003_*",
    "seed001",
)

#: "seed 003", "Seed 001's", "seed003", "seed_002", "seeds/000", "seed-000", and "§6", "§ 3".
INTERNAL = re.compile(r"(?i)\bseeds?[ _/-]?0\d\d|\bseeds/|§\s*\d")


def internal_names(text: str) -> list[str]:
    """The internal names in ``text`` once the accepted aliases are taken out, with their
    context (empty: the text speaks the users' words)."""
    for alias in sorted(ACCEPTED_ALIASES, key=len, reverse=True):
        text = text.replace(alias, "")
    return [text[max(0, m.start() - 40) : m.end() + 40] for m in INTERNAL.finditer(text)]


def test_the_rule_catches_what_it_should():
    for bad in ("seed 003's table", "as Seed 001", "seed002", "seeds/000", "METHODS §6", "§ 3"):
        assert internal_names(bad), bad
    for fine in ("--seed 0", "a seeded sample", "the run's seed", "lat_seed001", "seed001"):
        assert not internal_names(fine), fine


def _helps(parser: argparse.ArgumentParser, path: str = "fairdesk"):
    yield path, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _helps(sub, f"{path} {name}")


def test_every_commands_help_speaks_users_words():
    from fairdesk.cli import build_parser

    seen = 0
    for where, text in _helps(build_parser()):
        seen += 1
        assert not internal_names(text), (where, internal_names(text))
    assert seen > 15  # every command was walked, not only the top


def test_prompt_lists_names_and_titles():
    from fairdesk.recording.prompts import LIST_ALIASES, builtin_lists, load_prompts

    lists = builtin_lists()
    assert lists
    for name, path in lists.items():
        pl = load_prompts(path)
        assert not INTERNAL.search(name), name
        assert not internal_names(pl.name), (name, pl.name)
        for p in pl.prompts:  # the instructions shown in the Record tab
            assert not internal_names(p.instruction or ""), (name, p.instruction)
        # the file's comment lines are what a linguist reads when copying a list
        comments = "\n".join(x for x in path.read_text("utf-8").splitlines() if x.startswith("#"))
        assert not internal_names(comments), (name, internal_names(comments))
    # the old names are accepted aliases, named above
    assert set(LIST_ALIASES) <= set(ACCEPTED_ALIASES)


def test_metric_and_table_labels():
    from fairdesk.metrics.registry import METRICS
    from fairdesk.presentation import INCREMENTAL_ROW_HELP, INCREMENTAL_ROW_NAMES, metric_label

    texts = [*INCREMENTAL_ROW_NAMES.values(), *INCREMENTAL_ROW_HELP.values()]
    texts += [metric_label(m) for m in METRICS]
    texts += [str(getattr(spec, "label", "")) for spec in METRICS.values()]
    try:
        from fairdesk.incremental.metrics import INCREMENTAL_METRICS
    except ImportError:  # pragma: no cover - the incremental stage is part of the core
        INCREMENTAL_METRICS = ()
    specs = INCREMENTAL_METRICS.values() if isinstance(INCREMENTAL_METRICS, dict) else ()
    texts += [str(getattr(s, "label", "")) for s in specs]
    for t in texts:
        assert not internal_names(t), t


def test_report_templates_and_definitions():
    paths = sorted((ROOT / "fairdesk" / "reports" / "templates").glob("*.j2"))
    paths.append(ROOT / "resources" / "reports" / "definitions.md")
    assert len(paths) >= 4
    for p in paths:
        assert not internal_names(p.read_text("utf-8")), (p.name, internal_names(p.read_text()))


def _without_sources(text: str) -> str:
    """METHODS.md without its list of sources (which may name where each source came from)."""
    head, _, tail = text.partition("\n## Sources\n")
    rest = tail.split("\n## ", 1)
    return head + ("\n## " + rest[1] if len(rest) > 1 else "")


def test_docs_pages():
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    pages += [ROOT / "installer" / "demo.sh", ROOT / "mkdocs.yml"]
    for p in [p for p in pages if p.is_file()]:
        text = p.read_text("utf-8")
        if p.name == "METHODS.md":
            text = _without_sources(text)
        assert not internal_names(text), (str(p.relative_to(ROOT)), internal_names(text))
