"""The scoring rule every recall figure shares: when a labelled quote counts as found."""

from __future__ import annotations

from lab.eval.quote_match import normalize, quote_found


def test_normalizing_unifies_quotes_dashes_case_and_broken_words() -> None:
    assert normalize("The “Licensee” — shall\nnot assign-\nment") == normalize('the "licensee" - shall not assignment')


def test_a_short_quote_must_appear_verbatim() -> None:
    passage = "7.2 Neither party may assign this Agreement without the prior written consent of the other."
    assert quote_found("may assign this Agreement", passage)
    assert not quote_found("may transfer this Agreement", passage)


def test_a_long_quote_is_found_when_most_of_its_words_are_there() -> None:
    quote = " ".join(f"word{i}" for i in range(30))
    mostly = " ".join(f"word{i}" for i in range(26)) + " other words here"
    assert quote_found(quote, mostly)
    assert not quote_found(quote, " ".join(f"word{i}" for i in range(20)))
