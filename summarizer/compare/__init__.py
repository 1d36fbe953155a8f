"""Comparing two versions of a contract clause by clause: clause units, their alignment, the
differences between aligned clauses and the marks on the ones that usually matter. Deterministic:
no model finds or classifies a change."""
