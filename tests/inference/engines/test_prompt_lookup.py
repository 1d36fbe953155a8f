"""The n-gram index behind prompt-lookup drafting."""

from __future__ import annotations

from inference.engines.prompt_lookup import NgramIndex


def test_draft_follows_the_last_earlier_match() -> None:
    #              0  1  2  3  4  5  6  7
    index = NgramIndex([5, 6, 7, 8, 9, 5, 6, 7])
    # Suffix (5, 6, 7) appeared ending at 2: the draft is what followed it.
    assert index.draft(3) == [8, 9, 5]
    assert index.draft(1) == [8]


def test_longest_match_wins_and_updates_incrementally() -> None:
    index = NgramIndex([1, 2, 3, 9, 2, 3, 4, 1, 2])
    # (1, 2) ended at 1 -> follow [3, 9]; the shorter (2,) last ended at 4 -> [3, 4]: longer wins.
    assert index.draft(2) == [3, 9]
    index.add(3)
    # (1, 2, 3) ended at 2 -> [9, 2]
    assert index.draft(2) == [9, 2]


def test_no_match_no_draft() -> None:
    index = NgramIndex([1, 2, 3])
    assert index.draft(5) == []
    assert NgramIndex().draft(5) == []
    assert NgramIndex([1, 1]).draft(0) == []


def test_draft_stops_at_the_end_of_history() -> None:
    index = NgramIndex([4, 4, 4])
    # (4, 4) ended at 1 before: follow is [4]
    assert index.draft(10) == [4]
