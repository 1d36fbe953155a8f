from __future__ import annotations

from summarizer.answers.answer_wording import PassageForPrompt, passages_block
from summarizer.summaries.table_layout import aligned_table, split_row

STATEMENT = """CONSOLIDATED BALANCE SHEETS
MAY 31,
(Dollars in millions) 2019 2018
Current assets:
Cash and equivalents $ 4,466 $ 4,249
Short-term investments 197 996
Accumulated other comprehensive income (loss) 231 (92 )
Redeemable preferred stock — —
Total current assets 16,525 15,134"""


def test_a_row_splits_into_its_label_and_figures() -> None:
    assert split_row("Cash and equivalents $ 4,466 $ 4,249") == ("Cash and equivalents", ["$4,466", "$4,249"])
    assert split_row("Accumulated other comprehensive income (loss) 231 (92 )") == (
        "Accumulated other comprehensive income (loss)",
        ["231", "(92)"],
    )
    assert split_row("MAY 31,") == ("MAY 31,", [])
    assert split_row("Current assets:") == ("Current assets:", [])


def test_columns_line_up_under_their_years() -> None:
    table = aligned_table(STATEMENT)
    assert table is not None
    lines = table.split("\n")
    assert lines[0] == "CONSOLIDATED BALANCE SHEETS" and lines[1] == "MAY 31,"
    year_2018 = lines[2].index("2018") + len("2018")
    for line in lines[4:]:
        assert len(line) == year_2018, line  # every row's last figure ends under "2018"
    assert lines[4].startswith("Cash and equivalents ") and lines[4].endswith("$4,466  $4,249")


def test_prose_is_left_alone() -> None:
    prose = "Net sales rose 5% in fiscal 2019.\nWe expect growth of 3% to 4% in 2020."
    assert aligned_table(prose) is None
    block = passages_block([PassageForPrompt("d", 2, 2, prose)], several=False)
    assert prose in block


def test_the_prompt_shows_tables_aligned() -> None:
    block = passages_block([PassageForPrompt("d", 54, 54, STATEMENT)], several=False)
    assert aligned_table(STATEMENT) in block
