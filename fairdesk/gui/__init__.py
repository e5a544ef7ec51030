"""The desktop GUI (PySide6 + pyqtgraph): the only package that imports Qt.

Start it with ``fairdesk gui [--project DIR]``; ``fairdesk gui --screenshot OUT --project DIR``
saves one PNG per panel offscreen.
"""

from .pyside_compat import guard as _guard

_guard()  # PySide6 6.12.0 on CPython 3.11 drops references to None/True/False (see module)
