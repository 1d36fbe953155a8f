"""lab.results.write_json: the layout every lab result file was written in before it was shared
(indented, a closing newline, ASCII unless asked otherwise), so a rerun's file diffs cleanly."""

from __future__ import annotations

from pathlib import Path

from lab.results import write_json

RESULT = {"locator": "§ 1.3 Jurisdiction, ¶ 4", "rows": [1, 2]}


def test_a_result_is_indented_closed_by_a_newline_and_ascii_by_default(tmp_path: Path) -> None:
    path = tmp_path / "made" / "result.json"  # the folder does not exist yet
    write_json(path, RESULT)
    expected = '{\n "locator": "\\u00a7 1.3 Jurisdiction, \\u00b6 4",\n "rows": [\n  1,\n  2\n ]\n}\n'
    assert path.read_bytes() == expected.encode("ascii")


def test_a_result_keeps_its_quotes_readable_in_utf8_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    write_json(path, RESULT, indent=2, ensure_ascii=False)
    expected = '{\n  "locator": "§ 1.3 Jurisdiction, ¶ 4",\n  "rows": [\n    1,\n    2\n  ]\n}\n'
    assert path.read_bytes() == expected.encode("utf-8")
