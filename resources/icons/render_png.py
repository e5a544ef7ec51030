"""Render ``fairdesk.svg`` to ``fairdesk.png`` (256 x 256) with Qt's SVG renderer.

The PNG is committed (menus that ignore SVG use it); rerun after editing the SVG::

    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/icons/render_png.py [SIZE]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def render(
    size: int = 256, svg: Path = HERE / "fairdesk.svg", out: Path = HERE / "fairdesk.png"
) -> Path:
    """Draw ``svg`` into a transparent ``size`` x ``size`` PNG at ``out``."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    painter = QPainter(img)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    if not img.save(str(out), "PNG"):
        raise SystemExit(f"{out}: could not write the PNG")
    return out


if __name__ == "__main__":
    print(render(int(sys.argv[1]) if len(sys.argv) > 1 else 256))
