"""The window's main states: empty on a first run, an answer with its citation highlighted, the
summary tab, the settings with the plan and a refused setting.

The model is the scripted fake engine, the plan line the planner's real output for a
Qwen2.5-14B-shaped model. Saves ``1-empty.png`` to ``5-settings-refused.png``:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m scripts.screenshots window [--dark] [--scale 2]

``--dark`` asks Qt for the dark colour scheme (what a desktop set to dark mode gives the app);
``--scale`` sets QT_SCALE_FACTOR (a high-DPI screen).
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(args: argparse.Namespace, home: Path) -> None:
    out_dir = args.out
    from PySide6.QtCore import QUrl

    from app.main_window import MainWindow
    from app.services import load_planning as planning
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter
    from app.widgets.qt_wait import wait_until
    from scripts.random_gguf import shape_info

    CONTRACT = ROOT / "tests/fixtures/contracts/license-17p.pdf"
    # A 14B-shaped model for the plan line: the planner's real output for that shape (no 9 GB file here).
    model_file = Path(home) / "Qwen2.5-14B-Instruct-Q4_K_M.gguf"
    model_file.write_bytes(b"GGUF")
    planning._gguf_info = lambda path, mtime: shape_info("qwen2.5-14b", "Q4_K_M", path)  # type: ignore[assignment]

    def shot(widget, name):
        wait_until(lambda: False, 0.6)
        widget.grab().save(str(out_dir / name))
        print("saved", name, flush=True)

    # 1. Empty state, first run
    messages = MessageCenter()
    w = MainWindow(settings=Settings({}, path=Path(home) / "settings.json"), messages=messages)
    w.resize(1360, 860)
    w.show()
    shot(w, "1-empty.png")
    w.close()

    # 2. With a model, a document, an answer and its highlight
    values = {
        "model_path": str(model_file),
        "vram_budget": "12GiB",
        "context_size": 8192,
        "background_summaries": "off",
    }
    from tests.app.conftest import DocumentFake

    engine = DocumentFake.make(piece_delay_s=0.002, model_name="Qwen2.5-14B-Instruct")
    session = ModelSession(values, engine_factory=lambda _p: engine)
    messages = MessageCenter()
    w = MainWindow(settings=Settings(values, path=Path(home) / "settings.json"), session=session, messages=messages)
    w.runner.embed = False
    w.resize(1360, 860)
    w.show()
    w.add_paths([CONTRACT])
    wait_until(lambda: w.doc_id is not None and not w.runner.ingests, 120)
    import re

    counter = []

    def summaries(prompt):
        if prompt.startswith("system: You combine"):
            return (
                "SINA licenses its domain names and content to the licensee for the term of the agency agreement "
                "(pp. 1-5). The licensee pays an annual licence fee in quarterly instalments and must keep the content "
                "confidential (pp. 6-9). Either party may terminate for an uncured material breach or insolvency; on "
                "termination the licensee stops using the domain names (pp. 12-14). PRC law, CIETAC arbitration "
                "(p. 16)."
            )
        counter.append(1)
        if len(counter) == 1:
            return (
                "SINA (licensor) grants the licensee an exclusive, non-transferable licence to the SINA domain names "
                "and content for the term; sublicensing needs SINA's written consent. The licensee pays the annual "
                "licence fee quarterly in advance."
            )
        return (
            "The term runs until the agency agreement ends; either party may terminate for a material breach not "
            "cured within 30 days, or on insolvency. On termination the licensee stops using the domain names; "
            "confidentiality survives; PRC law and CIETAC arbitration apply."
        )

    engine.summary_reply = summaries
    q = "How long does the license last, and how can it be terminated?"

    def reply(prompt):
        found = [int(m.group(2) or m.group(1)) for m in re.finditer(r"Passage \d \(pp?\. (\d+)(?:-(\d+))?\)", prompt)]
        pages = [found[0], found[-1]]
        return (
            f"The license runs for an **initial term** set out in the term clause [p. {pages[0]}], and it renews only "
            f"if both parties agree in writing.\n\nEither party may **terminate** it:\n\n"
            f"- for a material breach that is not cured within the cure period [p. {pages[-1]}];\n"
            f"- on the other party's insolvency or bankruptcy [p. {pages[-1]}].\n\n"
            "The document does not say that either party may terminate for convenience."
        )

    engine.queue(reply)
    job = w.ask(q)
    wait_until(lambda: job.done, 60)
    turn = w.conversation.turns[-1]
    w.conversation.browser.anchorClicked.emit(QUrl(f"cite:0/{turn.citations[0].number}"))
    w.status.set_last_rate(23.4)
    shot(w, "2-answer-highlight.png")

    # 3. Summary tab
    w.tabs.setCurrentIndex(1)
    sj = w.summarize()
    wait_until(lambda: sj.done, 60)
    shot(w, "3-summary.png")

    # 4. Settings with the plan
    d = w.open_settings()
    d.set_value("context_size", 32768)
    wait_until(lambda: False, 0.5)
    shot(d, "4-settings-plan.png")
    d.set_value("gpu_layers", "49")
    d.set_value("kv_type", "f16")
    d.set_value("vram_budget", "8GiB")
    shot(d, "5-settings-refused.png")
    d.reject()
    w.close()
    print("done")
