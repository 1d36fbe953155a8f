from __future__ import annotations

from summarizer.library.cutting.normalize import normalize


def test_ligatures_expand_and_map_back_to_one_raw_character() -> None:
    raw = "the \ufb01rst of\ufb02oor"
    norm = normalize(raw)
    assert norm.text == "the first offloor"
    i = norm.text.index("fi")
    assert norm.raw_index[i] == norm.raw_index[i + 1] == raw.index("\ufb01")


def test_line_end_hyphenation_is_removed_but_real_hyphens_stay() -> None:
    norm = normalize("the agree-\nment and the non-\nCompete clause, a well-known term")
    assert norm.text == "the agreement and the non- Compete clause, a well-known term"


def test_whitespace_collapses_and_blank_lines_become_paragraph_breaks() -> None:
    norm = normalize("  Exhibit\xa010.26\n\xa0\nEXECUTION   VERSION\nline two \n\n\nNext ")
    assert norm.text == "Exhibit 10.26\n\nEXECUTION VERSION line two\n\nNext"


def test_every_visible_character_maps_to_the_same_raw_character() -> None:
    raw = "Section 2.1\u00ad(a)  The Licensee-\nshall pay \ufb01fty\tdollars.\n\nEnd"
    norm = normalize(raw)
    assert len(norm.text) == len(norm.raw_index)
    for ch, idx in zip(norm.text, norm.raw_index, strict=True):
        if not ch.isspace() and raw[idx] != "\ufb01":
            assert raw[idx] == ch
    # indices never go backwards
    assert list(norm.raw_index) == sorted(norm.raw_index)


def test_raw_span_covers_the_raw_text_of_a_normalized_range() -> None:
    raw = "alpha  beta-\ngamma delta"
    norm = normalize(raw)
    start = norm.text.index("betagamma")
    s, e = norm.raw_span(start, start + len("betagamma"))
    assert raw[s:e] == "beta-\ngamma"


def test_empty_and_whitespace_only_pages() -> None:
    assert normalize("").text == ""
    assert normalize(" \n\xa0\n ").text == ""
