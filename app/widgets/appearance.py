"""Light or dark colours: the ``appearance`` setting (auto follows the desktop).

Qt takes the colour scheme from the platform theme; on Linux without a desktop that reports
dark (a bare X server, some window managers) asking Qt for the dark scheme changes nothing, so
Fusion is given the palette a dark desktop gives it (walk 2026-12-05: dark mode had no way to
be asked for there).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

DARK_COLOURS = {
    QPalette.ColorRole.Window: "#2b2b2b",
    QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Base: "#1f1f1f",
    QPalette.ColorRole.AlternateBase: "#2a2a2a",
    QPalette.ColorRole.Text: "#e6e6e6",
    QPalette.ColorRole.Button: "#353535",
    QPalette.ColorRole.ButtonText: "#e6e6e6",
    QPalette.ColorRole.Highlight: "#2f65ca",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#7fb0ff",
    QPalette.ColorRole.LinkVisited: "#c59bff",
    QPalette.ColorRole.PlaceholderText: "#8c8c8c",
    QPalette.ColorRole.ToolTipBase: "#353535",
    QPalette.ColorRole.ToolTipText: "#e6e6e6",
    QPalette.ColorRole.Mid: "#444444",
    QPalette.ColorRole.Dark: "#1a1a1a",
    QPalette.ColorRole.Light: "#505050",
}

SCHEMES = {"auto": Qt.ColorScheme.Unknown, "light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in DARK_COLOURS.items():
        palette.setColor(role, QColor(colour))
    return palette


def is_dark(app: QApplication) -> bool:
    return app.palette().window().color().lightness() < 128


def apply_appearance(app: QApplication, choice: str) -> None:
    """Colours for ``choice`` ("auto", "light" or "dark"), whatever the desktop reports."""
    app.styleHints().setColorScheme(SCHEMES.get(choice, Qt.ColorScheme.Unknown))
    app.setPalette(QPalette())  # an empty palette: the platform's for the scheme (drops one set before)
    if choice == "dark" and not is_dark(app):
        app.setPalette(dark_palette())
    elif choice == "light" and is_dark(app):
        app.setPalette(QPalette(QColor("#efefef")))
