"""Review checklists: the items a reviewer asks of every contract.

A checklist is a CSV (or YAML) file of items with the columns

    id, category, question, queries, type[, expected]

``queries`` are one or more retrieval queries separated by ``|``, written in the words a clause
uses; ``type`` is one of ``ANSWER_TYPES``; ``expected`` is the reviewer's position (playbook),
optional. The CUAD checklist (41 categories, ``summarizer/review/checklists/cuad.csv``) is bundled.
The format is documented in docs/checklists.md with an example file.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

from inference.errors import PagewiseError

ANSWER_TYPES = ("yes_no", "date", "duration", "amount", "parties", "jurisdiction", "excerpt")
COLUMNS = ("id", "category", "question", "queries", "type")
BUNDLED = {"cuad": Path(__file__).resolve().parent / "checklists" / "cuad.csv"}


class ChecklistError(PagewiseError):
    """A checklist file cannot be used: the message names the file and the line."""


@dataclass(frozen=True, slots=True)
class ChecklistItem:
    id: str
    category: str
    question: str
    queries: tuple[str, ...]
    type: str
    expected: str = ""


@dataclass(frozen=True, slots=True)
class Checklist:
    name: str
    version: str  # the first 12 hex digits of the file's sha256: results are stored per version
    items: tuple[ChecklistItem, ...]

    def item(self, item_id: str) -> ChecklistItem:
        for item in self.items:
            if item.id == item_id:
                return item
        raise KeyError(item_id)


def load_checklist(name_or_path: str | Path) -> Checklist:
    """The bundled checklist ``name`` (``cuad``) or the checklist in a CSV/YAML file."""
    path = BUNDLED.get(str(name_or_path)) or Path(name_or_path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ChecklistError(
            f"{path}: cannot read the checklist ({error.strerror or error}). "
            f"Give a CSV or YAML file, or one of: {', '.join(BUNDLED)}.",
            path=path,
        ) from error
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ChecklistError(f"{path}: the checklist is not UTF-8 text. Save it as UTF-8.", path=path) from error
    rows = _yaml_rows(path, text) if path.suffix.lower() in (".yaml", ".yml") else _csv_rows(path, text)
    items: list[ChecklistItem] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        item = _item(path, line, row)
        if item.id in seen:
            raise ChecklistError(
                f"{path}, line {line}: the id '{item.id}' is used twice (first on line {seen[item.id]}). "
                "Give each item its own id.",
                path=path,
            )
        seen[item.id] = line
        items.append(item)
    if not items:
        raise ChecklistError(f"{path}: the checklist has no items.", path=path)
    name = str(name_or_path) if str(name_or_path) in BUNDLED else path.stem
    return Checklist(name, hashlib.sha256(raw).hexdigest()[:12], tuple(items))


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise ChecklistError(
            f"{path}, line 1: the header lacks the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}. "
            f"A checklist has the columns {', '.join(COLUMNS)}[, expected].",
            path=path,
        )
    rows = []
    for row in reader:
        if None in row:
            raise ChecklistError(
                f"{path}, line {reader.line_num}: more fields than columns (quote a field that holds a comma).",
                path=path,
            )
        rows.append((reader.line_num, {k.strip(): (v or "").strip() for k, v in row.items()}))
    return rows


def _yaml_rows(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        raise ChecklistError(f"{path}{where}: not valid YAML ({error}).", path=path) from error
    entries = data.get("items") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ChecklistError(f"{path}: expected a list of items (or a mapping with 'items:').", path=path)
    rows = []
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise ChecklistError(f"{path}, item {number}: each item is a mapping of id, category, ...", path=path)
        queries = entry.get("queries", "")
        if isinstance(queries, list):
            queries = " | ".join(str(q) for q in queries)
        row = {k: str(v).strip() for k, v in entry.items() if k != "queries"}
        row["queries"] = str(queries)
        rows.append((number, row))
    return rows


def _item(path: Path, line: int, row: dict[str, str]) -> ChecklistItem:
    for column in COLUMNS:
        if not row.get(column):
            raise ChecklistError(f"{path}, line {line}: the '{column}' field is empty.", path=path)
    if row["type"] not in ANSWER_TYPES:
        raise ChecklistError(
            f"{path}, line {line}: unknown answer type '{row['type']}'. Use one of: {', '.join(ANSWER_TYPES)}.",
            path=path,
        )
    queries = tuple(q.strip() for q in row["queries"].split("|") if q.strip())
    return ChecklistItem(row["id"], row["category"], row["question"], queries, row["type"], row.get("expected", ""))
