"""Migration 6: what OCR found on each scanned page: status, engine, confidence and word boxes."""

from __future__ import annotations

import sqlite_utils


def page_ocr(db: sqlite_utils.Database) -> None:
    # What OCR found on each page it looked at: ``read`` (its text is in ``pages.text``, its words'
    # character ranges and boxes in ``words``: [start, end, x0, y0, x1, y1, confidence] in PDF
    # points from the top left), ``no_image`` (little or no text and nothing drawn to read: not a
    # scan) or ``failed`` (``error`` says why). ``confidence`` is the page's mean word confidence.
    db.execute(
        """
        CREATE TABLE page_ocr (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            page INTEGER NOT NULL,
            status TEXT NOT NULL,
            engine TEXT NOT NULL DEFAULT '',
            confidence REAL,
            words TEXT NOT NULL DEFAULT '[]',
            error TEXT,
            PRIMARY KEY (doc_id, page)
        )
        """
    )
