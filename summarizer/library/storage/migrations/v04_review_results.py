"""Migration 4: contract review results per checklist item, and the reviewer's corrections beside them."""

from __future__ import annotations

import sqlite_utils


def review_results(db: sqlite_utils.Database) -> None:
    # One row per checklist item reviewed: the result as ItemResult JSON without its playbook
    # flag (computed when read, so the reviewer's side or a correction changes it without asking
    # the model again). The key: document, checklist name and version, model (its file's sha256),
    # prompt version and the document's passages fingerprint (a re-cut document's passage ids differ).
    db.execute(
        """
        CREATE TABLE review_results (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            checklist TEXT NOT NULL,
            checklist_version TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            passages_key TEXT NOT NULL,
            item_id TEXT NOT NULL,
            status TEXT NOT NULL,          -- answered | not_found | error
            result TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (doc_id, checklist, checklist_version, model, prompt_version, passages_key, item_id)
        )
        """
    )
    # The reviewer's word on a cell, kept apart from the results so no re-run overwrites it:
    # per document, checklist name and item, whatever model answered.
    db.execute(
        """
        CREATE TABLE review_corrections (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            checklist TEXT NOT NULL,
            item_id TEXT NOT NULL,
            value TEXT,                    -- the reviewer's value; NULL keeps the model's
            accepted INTEGER NOT NULL DEFAULT 0,
            accepted_value TEXT,           -- the model's value the reviewer accepted
            note TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL,
            PRIMARY KEY (doc_id, checklist, item_id)
        )
        """
    )
