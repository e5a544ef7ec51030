"""The bundle's launcher: ``fairdesk`` alone opens the desktop application, ``fairdesk CMD ...``
runs that command (the same commands as an installed fairdesk)."""

import sys

from fairdesk.cli import main

if __name__ == "__main__":
    if len(sys.argv) == 1:
        sys.argv.append("gui")
    sys.exit(main())
