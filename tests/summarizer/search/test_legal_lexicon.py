from __future__ import annotations

from summarizer.search.fts_query import fts_query
from summarizer.search.legal_lexicon import LEXICON, expansion_terms, matching_entries


def _concepts(question: str) -> list[str]:
    return [entry.concept for entry in matching_entries(question)]


def test_everyday_phrasing_maps_to_drafting_words() -> None:
    assert "for convenience" in expansion_terms("Can we get out of this deal early?")
    assert "right of first refusal" in expansion_terms("Do we get first dibs if they sell?")
    assert "royalties" in expansion_terms("What cut of the revenue do they take?")
    assert "preamble" in expansion_terms("Who are the parties?")


def test_a_specific_concept_replaces_the_general_one_it_overlaps() -> None:
    assert _concepts("How long does the warranty last?") == ["warranty"]
    assert "term and expiry" in _concepts("How long does this agreement last?")
    assert _concepts("Who owns the inventions?") == ["ownership of intellectual property"]


def test_party_names_do_not_trigger_licence_entries() -> None:
    assert _concepts("Licensor may terminate by notice to the Licensee") == []
    assert _concepts("Can the license be sublicensed?") == ["licence grant"]


def test_a_question_about_nothing_in_the_lexicon_adds_nothing() -> None:
    assert expansion_terms("What colour is the logo?") == []


def test_the_limit_takes_terms_in_turn_from_each_concept() -> None:
    question = "Are there carve-outs from the exclusivity?"
    both = [e for e in LEXICON if e.concept in ("exclusivity", "exceptions to restrictions")]
    limited = expansion_terms(question, 4)
    assert limited == [both[0].terms[0], both[1].terms[0], both[0].terms[1], both[1].terms[1]]


def test_terms_join_the_fts_query_as_phrases() -> None:
    query = fts_query("Can we walk away?", ["for convenience", "without cause", "terminate"])
    assert query == '"walk" OR "away" OR "for convenience" OR "without cause" OR "terminate"'
