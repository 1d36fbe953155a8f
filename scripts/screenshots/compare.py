"""Screenshots of the Compare tab: two versions of the Common Paper Cloud Service Agreement (the
Word file in tests/fixtures/docx, CC BY 4.0) and a second version with the edits a negotiation
makes (a period shortened, "will" made "must", a clause deleted, a sentence added, an amount in a
new clause), compared as Word files and as PDFs made from the same text; a material change
selected, both versions side by side at its clause. No model is used. Run it under Xvfb:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m scripts.screenshots compare
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
AGREEMENT = ROOT / "tests" / "fixtures" / "docx" / "common-paper-cloud-service-agreement.docx"

# (a phrase of a paragraph, what it becomes); None: the paragraph is deleted
EDITS: list[tuple[str, str | None]] = [
    ("for more than 30 days;", "for more than 15 days;"),
    ("Provider will delete Customer Content within 60 days.", "Provider must delete Customer Content within 30 days."),
    ("Force Majeure.  Either party may terminate an affected Order Form", None),
    (
        "Any notice, request, or approval about the Agreement must be in writing",
        "Any notice, request, or approval about the Agreement must be in writing and in English",
    ),
]


def edited_docx(source: Path, target: Path) -> Path:
    import docx

    document = docx.Document(str(source))
    for paragraph in document.paragraphs:
        for phrase, replacement in EDITS:
            if phrase not in paragraph.text:
                continue
            if replacement is None:
                element = paragraph._element
                element.getparent().remove(element)
                break
            text = paragraph.text.replace(phrase, replacement)
            runs = paragraph.runs
            runs[0].text = text  # the paragraph's own formatting and numbering stay
            for run in runs[1:]:
                run.text = ""
    document.save(str(target))
    return target


def docx_as_pdf(source: Path, target: Path, width: int) -> Path:
    """The Word file's paragraphs as a plain PDF (numbers as Word shows them), wrapped at ``width``."""
    from summarizer.library.reading.docx_extract import read_docx
    from tests.pdf_factory import make_pdf

    lines: list[str] = []
    for paragraph in read_docx(source).paragraphs:
        text = paragraph.display_text
        text = text.translate(str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"}))
        text = text.encode("latin-1", "replace").decode("latin-1")
        lines += [*textwrap.wrap(text, width, break_on_hyphens=False), ""]  # as a PDF writer breaks lines
    pages = [lines[k : k + 50] for k in range(0, len(lines), 50)]
    return make_pdf(target, pages)  # type: ignore[arg-type]


def show(window: Any, app: Any, old_id: str, new_id: str, path: Path) -> None:
    from app.widgets.qt_wait import wait_until

    job = window.comparisons.compare(old_id, new_id)
    assert job is not None
    wait_until(lambda: window.comparisons.job is None and window.comparisons.comparison is not None, 120)
    panel = window.compare
    changes = window.comparisons.comparison.changes
    target = next((i for i in panel.visible_changes() if changes[i].material and changes[i].kind == "changed"), None)
    if target is not None:
        panel.select_change(target)
    window.messages.resolve("document-ready")
    app.processEvents()
    wait_until(lambda: False, 1.0)
    window.grab().save(str(path))
    print("saved", path, "|", panel.message.text(), flush=True)
    for index in panel.visible_changes():
        change = changes[index]
        print(" ", change.kind, change.old.display_label if change.old else "-", "->",
              change.new.display_label if change.new else "-", "|", "; ".join(change.reasons), flush=True)  # fmt: skip


def run(args: argparse.Namespace, home: Path) -> None:
    out_dir = args.out
    from app.gui_main import make_application

    app = make_application(["pagewise"])
    from app.main_window import MainWindow
    from app.services.load_planning import PlanPreview
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from app.widgets.qt_wait import wait_until
    from tests.app.conftest import DocumentFake

    files = home / "files"
    files.mkdir()
    old_docx = files / "Cloud Service Agreement v1.docx"
    old_docx.write_bytes(AGREEMENT.read_bytes())
    new_docx = edited_docx(AGREEMENT, files / "Cloud Service Agreement v2.docx")
    old_pdf = docx_as_pdf(old_docx, files / "Cloud Service Agreement v1.pdf", 92)
    new_pdf = docx_as_pdf(new_docx, files / "Cloud Service Agreement v2.pdf", 80)  # reflowed

    engine = DocumentFake.make(piece_delay_s=0.0, model_name="Qwen2.5-14B-Instruct", n_ctx=16384)
    # A model file named in the settings (never loaded: comparing needs none), as a user with one has.
    values = {"model_path": str(home / "Qwen2.5-14B-Instruct-Q4_K_M.gguf"), "background_summaries": "off"}
    session = ModelSession(
        values, engine_factory=lambda _p: engine, planner=lambda _v: PlanPreview(None, "Qwen2.5-14B · 12 GiB")
    )
    window = MainWindow(settings=Settings(values, path=home / "settings.json"), session=session,
                        messages=MessageCenter())  # fmt: skip
    window.runner.embed = False
    window.resize(1600, 1000)
    window.show()
    window.add_paths([old_docx, new_docx, old_pdf, new_pdf])
    wait_until(lambda: len(window.library.documents()) == 4 and not window.runner.ingests, 300)
    window.splitter.setSizes([160, 840, 600])
    ids = {Path(r.path).name: r.doc_id for r in window.library.documents()}
    show(window, app, ids[old_docx.name], ids[new_docx.name], out_dir / "compare-word.png")
    show(window, app, ids[old_pdf.name], ids[new_pdf.name], out_dir / "compare-pdf.png")
    window.close()
