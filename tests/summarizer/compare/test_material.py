"""Material marks on a changed payment date and on a name or defined term replaced (issue 56, item 2)."""

from __future__ import annotations

import pytest

from summarizer.compare.material import material_reasons

PAYMENT = "4.1 Payment. The Licensee shall pay each invoice on the {day} day of the month following it."


@pytest.mark.parametrize(("old", "new"), [("15th", "30th"), ("first", "last"), ("fifteenth", "twentieth")])
def test_a_changed_payment_day_is_a_date_changed(old: str, new: str) -> None:
    reasons = material_reasons([old], [new], PAYMENT.format(day=old), PAYMENT.format(day=new))
    assert "a date changed" in reasons


def test_a_defined_term_replaced_alone_is_a_name_changed() -> None:
    # The word diff takes "Licensee" alone: it is judged where it stands in the clause.
    old, new = PAYMENT.format(day="15th"), PAYMENT.format(day="15th").replace("Licensee", "Distributor")
    assert "a party name or defined term changed" in material_reasons(["Licensee"], ["Distributor"], old, new)


def test_a_sentence_s_first_word_is_not_a_name() -> None:
    old = "4.2 Taxes. Each party bears its own taxes."
    new = "4.2 Taxes. Every party bears its own taxes."
    assert material_reasons(["Each"], ["Every"], old, new) == []
