"""Pagewise's document floor: PDF ingest, passages, the library, retrieval, summaries."""
