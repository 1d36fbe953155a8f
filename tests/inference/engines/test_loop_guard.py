"""A reply that falls into a loop is ended; a list or a table that repeats its shape is not."""

from __future__ import annotations

import pytest

from inference.engines.engine import collect
from inference.engines.fake import FakeEngine
from inference.engines.loop_guard import LoopGuard, cut_loop, loop_in

# Loops SmolLM2-135M wrote in `make demo` (its segment summaries and its answer), and a classic.
LOOPS = {
    "numbered parts": "The agreement is a marketing agreement. " + " ".join(f"Part {n}:" for n in range(1, 60)),
    "numbered premises": "The termination clause. "
    + " ".join(f"[SIGNATURES ON NEXT PAGE] Premise {n}: the parties agree to the terms." for n in range(1, 9)),
    "doubled counter": "Part 1:  Part 1:  The purpose of this part is to describe the Agreement.  "
    + "  ".join(f"Part {n}:  Part {n}:  The Agreement is defined as the Agreement." for n in range(2, 24)),
    "passages echoed": "Passage 3 (p. 1):\n16\n"
    + "\n\n".join(
        f"Passage {n} (p. {n - 2}):\n{n + 13}\nSource: LEJU HOLDINGS LTD, DRS (on F-1), 1/21/2014" for n in range(4, 16)
    ),
    "a sentence with page ranges": "Summary. "
    + "  ".join(
        f"Parts {a}-{b}: This Agreement is a non-disclosure agreement (NDAs) and is subject to the terms "
        "and conditions of this Agreement."
        for a, b in [(1, 3), (4, 6), (7, 9), (10, 14), (15, 17), (18, 19), (20, 23), (24, 27)]
    ),
    "one sentence": "Payment is due monthly. " + "The answer to this question is: " * 6,
    "one word": "Termination: " + "termination " * 12,
}

# What a real answer may hold: each must stream through whole.
NOT_LOOPS = {
    "numbered clauses": "\n".join(
        f"{n}. {text}"
        for n, text in enumerate(
            [
                "Term. The agreement runs for two years.",
                "Termination. Either party may end it on 30 days' notice.",
                "Fees. Fees are due monthly in arrears.",
                "Confidentiality. Each party keeps the other's information secret.",
                "Governing law. The laws of Delaware govern.",
                "Notices. Notices are given in writing.",
            ],
            start=1,
        )
    ),
    "a payment table": "| Year | Fee | Due |\n|---|---|---|\n"
    + "\n".join(f"| Year {n} | $ {n}00,000 | due January 31 |" for n in range(1, 16)),
    "a payment schedule": "\n".join(f"Year {n}: $ {n * 25},000 payable on signing." for n in range(1, 16)),
    "a rent schedule": "\n".join(f"Year {n}: rent of $ {100 + 3 * n},000 a year." for n in range(1, 11)),
    "a short repeat": "It is not, it is not, it is not assignable.",
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_a_loop_is_found_as_it_streams_and_cut_to_its_first_turn(name: str) -> None:
    text = LOOPS[name]
    guard = LoopGuard()
    words = text.split(" ")
    tripped_at = next((i for i, word in enumerate(words) if guard.feed(word + " ")), None)
    assert tripped_at is not None and tripped_at < len(words) - 1, "found before the loop runs out"
    cut = cut_loop(" ".join(words[: tripped_at + 1]))
    assert cut is not None and cut.endswith(" …") and len(cut) < 160


@pytest.mark.parametrize("name", sorted(NOT_LOOPS))
def test_a_list_or_a_table_is_not_a_loop(name: str) -> None:
    text = NOT_LOOPS[name]
    guard = LoopGuard()
    assert not any(guard.feed(piece) for piece in text.split(" ")) and not guard.feed("\n")
    assert not loop_in(text.split()) and cut_loop(text) is None


def test_the_first_turn_is_kept_with_what_came_before() -> None:
    text = "The fee is $5 [p. 3]. " + "The fee is due. " * 5
    assert cut_loop(text) == "The fee is $5 [p. 3]. The fee is due. …"


def test_every_engine_ends_a_looping_reply_and_says_why() -> None:
    engine = FakeEngine([LOOPS["numbered parts"], NOT_LOOPS["a payment table"]])
    looped = collect(engine.generate("Summarize.", max_tokens=400))
    assert looped.stats.stop_reason == "loop" and looped.stats.completion_tokens < 40
    whole = collect(engine.generate("Tabulate.", max_tokens=400))
    assert whole.stats.stop_reason == "eos" and whole.text == NOT_LOOPS["a payment table"]


def test_a_reply_held_to_a_json_schema_is_not_watched() -> None:
    reply = '{"items": [' + ", ".join(['"yes"'] * 20) + "]}"
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}}
    done = FakeEngine([reply]).complete("Answer.", max_tokens=400, json_schema=schema)
    assert done.stats.stop_reason != "loop" and done.text == reply
