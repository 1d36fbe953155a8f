"""Every stage the pipeline reports is a ``Stage`` member, from adding a PDF to its summary."""

from __future__ import annotations

from pathlib import Path

from inference.engines.fake import FakeEngine
from inference.progress import Progress, Stage
from summarizer.library.ingest import ingest_path
from summarizer.library.storage.store import Library
from summarizer.summaries.compress import compress
from summarizer.summaries.tree import SummaryParams
from tests.pdf_factory import make_pdf, text_pages


def test_ingest_and_compress_report_typed_stages(tmp_path: Path) -> None:
    events: list[Progress] = []
    pdf = make_pdf(tmp_path / "supply.pdf", text_pages(6, words_per_page=110))  # type: ignore[arg-type]
    engine = FakeEngine(default_reply="the seller delivers the goods [p. 1]", n_ctx=1024)
    engine.load(progress=events.append)
    with Library.open() as library:
        result = ingest_path(library, pdf, progress=events.append)
        params = SummaryParams(segment_tokens=300, summary_tokens=20, super_tokens=30)
        compress(library, engine, result.doc_id, model_sha256="m", params=params, parallel=2, progress=events.append)
    assert events and all(isinstance(event.stage, Stage) for event in events)
    seen = {event.stage for event in events}
    assert {Stage.LOAD, Stage.READ_PAGES, Stage.EMBED_PASSAGES, Stage.COUNT_TOKENS, Stage.SUMMARIZE_SEGMENTS} <= seen
    assert {Stage.REDUCE, Stage.SUMMARIZED} <= seen
