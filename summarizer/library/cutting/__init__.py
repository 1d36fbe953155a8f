"""Cutting pages into passages: text normalized with a map back to the page (``normalize``), the
clauses and their heading paths (``clauses``; ``filing_headings`` for filings), and passages of
whole clauses with their page spans (``passages``)."""
