"""The words of a passage that match a query, and the excerpt that shows them (issue 58, Build 3)."""

from __future__ import annotations

from summarizer.search.matched_words import ELLIPSIS, Excerpt, excerpt, marked, matched_spans

GOVERNING = (
    "12.1 This Agreement and all disputes arising hereunder shall be governed by and construed in "
    "accordance with the internal laws of the State of New York, without regard to conflicts of laws."
)
NOTICES = "Notices go by registered mail to the addresses set out above; a party may change its address. "


def words(text: str, spans: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> list[str]:
    return [text[s:e] for s, e in spans]


def test_query_words_match_by_stem_and_plural_and_adjacent_ones_form_one_run() -> None:
    found = words(GOVERNING, matched_spans(GOVERNING, "New York Governing Law"))
    assert found == ["governed", "laws", "New York", "laws"]
    # stop words and two-letter words are never marked; hyphenated words stay one run
    text = "The non-compete is bound by time and territory; of the Territory."
    assert words(text, matched_spans(text, "Non-compete bound by time and territory")) == [
        "non-compete",
        "bound",
        "time",
        "territory",
        "Territory",
    ]
    assert matched_spans("Nothing here matches.", "wilful misconduct") == []
    # the words that name what is searched are not the question's subject
    text = "This Agreement is a contract governed by the laws of New York."
    assert words(text, matched_spans(text, "Which contracts are governed by New York law?")) == [
        "governed",
        "laws",
        "New York",
    ]


def test_the_excerpt_shows_the_part_with_the_query_words_not_the_passage_start() -> None:
    text = NOTICES * 3 + GOVERNING
    part = excerpt(text, "New York governing law", 220)
    assert part.text.startswith(ELLIPSIS + " ") and len(part.text) <= 220 + 4
    assert "New York" in words(part.text, part.spans)
    assert not part.text.startswith(ELLIPSIS + " " + "Notices")  # the clause that matched, not the first lines
    # every span points at a matched word of the excerpt's own text
    assert all(part.text[s:e].lower().startswith(("new", "gover", "law")) for s, e in part.spans)


def test_a_short_passage_is_whole_and_one_without_matches_shows_its_beginning() -> None:
    assert excerpt("Governed by  the\nlaws of Delaware.", "governing law", 220) == Excerpt(
        "Governed by the laws of Delaware.", ((0, 8), (16, 20))
    )
    part = excerpt(NOTICES * 4, "wilful misconduct", 100)
    assert part.spans == () and part.text.startswith("Notices go by") and part.text.endswith(ELLIPSIS)


def test_marked_wraps_each_run_and_escapes_the_rest() -> None:
    part = Excerpt("a <b> New York law", ((6, 14), (15, 18)))
    assert marked(part, lambda w: f"[{w}]", lambda s: s.replace("<", "&lt;")) == "a &lt;b> [New York] [law]"
