"""Pagewise's document floor, in groups by job (docs/architecture.md has the picture):

* ``library``: PDFs in, pages read, clause passages with page spans, SQLite (FTS5) and vectors;
* ``search``: hybrid retrieval over the library;
* ``summaries``: segment summaries and the super-summary, stored and reused;
* ``llm``: the local model loaded with its plan, and a model file's identity;
* ``answers``: questions answered from the summary and the passages, citations checked;
* ``review``: a checklist per contract, with evidence, typed answers, flags and exports.

``errors`` (the floor's typed errors) sits at the top level. A group uses only the groups
below it: library, then search and summaries, then llm, then answers and review.
"""
