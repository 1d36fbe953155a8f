"""One sentence per material change, written by the model and marked as the model's.

The list of changes, their kinds and their material marks come from the deterministic core
(``summarizer.compare``): complete and reproducible without a model. With a model loaded, each
material change can be explained in one sentence for the reader ("The notice period for
termination doubles from 30 to 60 days."). The sentence is the model's reading of the two texts
given, nothing more: it is kept apart from the change (``Explanation.by`` names the model) and
never decides what is listed or marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inference.cancel import NEVER_CANCELLED, CancelToken
from inference.engines.engine import ChatMessage, Engine, Prompt
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.compare.comparison import VERSIONS, Comparison
from summarizer.compare.differences import Change

SYSTEM = (
    "You explain one change between two versions of a contract clause to a lawyer, in one plain sentence. "
    "Say what changed and what it does to the parties' rights or obligations, using only the texts given. "
    "Do not add advice, do not guess at intent, do not quote the clause number."
)
MAX_CLAUSE_CHARS = 1200  # each version of the clause as given to the model (the changed words kept)
MAX_TOKENS = 80


@dataclass(frozen=True)
class Explanation:
    """The model's sentence on the change at ``index`` of ``Comparison.changes``."""

    index: int
    text: str
    by: str  # the model's name: the reader sees whose sentence it is

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "by": self.by, "kind": "model"}


def _excerpt(text: str, change: Change, old: bool) -> str:
    """The clause as given: whole when short, else around its first changed words."""
    if len(text) <= MAX_CLAUSE_CHARS:
        return text
    changed = next((e.old if old else e.new for e in change.edits if e.op != "equal" and (e.old if old else e.new)), "")
    at = text.find(changed) if changed else -1
    start = max(0, min(at - MAX_CLAUSE_CHARS // 2, len(text) - MAX_CLAUSE_CHARS)) if at >= 0 else 0
    return ("…" if start else "") + text[start : start + MAX_CLAUSE_CHARS] + "…"


def explanation_prompt(change: Change) -> Prompt:
    old = _excerpt(change.old.text, change, True) if change.old else "(not in this version)"
    new = _excerpt(change.new.text, change, False) if change.new else "(not in this version)"
    rule = "; ".join(change.reasons) or change.kind
    return [
        ChatMessage("system", SYSTEM),
        ChatMessage(
            "user",
            f"Kind of change: {change.kind}; marked material because: {rule}.\n"
            f"Old version:\n{old}\n\nNew version:\n{new}\n\nThe change in one sentence:",
        ),
    ]


def _one_sentence(text: str) -> str:
    text = " ".join(text.split())
    for end in (". ", "! ", "? "):
        cut = text.find(end)
        if cut >= 0:
            return text[: cut + 1]
    return text


def explain_material_changes(
    engine: Engine,
    comparison: Comparison,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
) -> list[Explanation]:
    """The model's sentence for each material change shown (none for documents that are not two
    versions), asked as one batch; an empty reply gives no explanation."""
    if comparison.verdict != VERSIONS:
        return []
    chosen = [(i, c) for i, c in enumerate(comparison.changes) if c.material and not c.hidden]
    if not chosen:
        return []
    progress(Progress(Stage.GENERATE, 0, len(chosen), "explaining the material changes"))
    done: list[int] = []

    def finished(_index: int, _completion: object) -> None:
        done.append(_index)
        progress(Progress(Stage.GENERATE, len(done), len(chosen), "explaining the material changes"))

    completions = engine.generate_batch(
        [explanation_prompt(change) for _, change in chosen],
        max_tokens=MAX_TOKENS,
        cancel=cancel,
        on_result=finished,
    )
    return [
        Explanation(index, sentence, engine.model_name)
        for (index, _), completion in zip(chosen, completions, strict=True)
        if completion.error is None and (sentence := _one_sentence(completion.text))
    ]


def explanations_by_index(explanations: Sequence[Explanation]) -> dict[int, Explanation]:
    return {e.index: e for e in explanations}
