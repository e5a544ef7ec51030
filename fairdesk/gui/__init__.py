"""The desktop GUI (PySide6 + pyqtgraph): the only package that imports Qt.

Start it with ``fairdesk gui [--project DIR]``; ``fairdesk gui --screenshot OUT --project DIR``
saves one PNG per panel offscreen.
"""
