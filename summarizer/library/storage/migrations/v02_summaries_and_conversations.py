"""Migration 2: model files' hashes, segments of passages, summaries of them, and conversation turns."""

from __future__ import annotations

import sqlite_utils


def summaries_and_conversations(db: sqlite_utils.Database) -> None:
    # sha256 of model files, so a multi-GB GGUF is hashed once per (path, size, mtime).
    db.execute(
        """
        CREATE TABLE model_files (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL
        )
        """
    )
    # Segments of consecutive passages, counted in one LLM tokenizer's tokens. ``source_key``
    # fingerprints the document's passages, so re-indexing the document drops these rows' use.
    db.execute(
        """
        CREATE TABLE segments (
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            source_key TEXT NOT NULL,
            tokenizer TEXT NOT NULL,
            segment_tokens INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            first_passage_seq INTEGER NOT NULL,
            last_passage_seq INTEGER NOT NULL,
            page_start INTEGER NOT NULL,
            page_end INTEGER NOT NULL,
            n_tokens INTEGER NOT NULL,
            PRIMARY KEY (doc_id, source_key, tokenizer, segment_tokens, seq)
        )
        """
    )
    # Segment summaries, intermediate reductions and super-summaries. ``summary_key`` hashes
    # everything the text depends on (document, input text, model file, prompt version, params).
    db.execute(
        """
        CREATE TABLE summaries (
            summary_key TEXT PRIMARY KEY,
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            kind TEXT NOT NULL,            -- segment | reduce | super (the document's result)
            level INTEGER NOT NULL,
            page_start INTEGER NOT NULL,
            page_end INTEGER NOT NULL,
            model_sha256 TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            params TEXT NOT NULL,
            text TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            detail TEXT NOT NULL DEFAULT '{}', -- super: the summary keys of each level of its tree
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX summaries_doc ON summaries(doc_id, model_sha256, prompt_version)")
    # One conversation per document: its questions and answers (the answer as JSON).
    db.execute(
        """
        CREATE TABLE conversation_turns (
            turn_id INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            answer_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX conversation_turns_doc ON conversation_turns(doc_id, turn_id)")
