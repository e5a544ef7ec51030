"""``fairdesk import --help`` lists every format with the layout it expects and one command."""

from __future__ import annotations

import pytest

from fairdesk.cli import main
from fairdesk.cli.import_help import FORMAT_LAYOUTS
from fairdesk.core.importers_formats import FORMATS


def test_every_format_has_its_layout_and_command_in_the_help(capsys):
    assert set(FORMAT_LAYOUTS) == set(FORMATS) - {"auto"}
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    out = capsys.readouterr().out
    for fmt, (_layout, command) in FORMAT_LAYOUTS.items():
        assert f"  {fmt}: " in out, fmt
        assert f"$ {command}" in out, command
        assert f"--format {fmt}" not in command  # auto detects each one the help names
