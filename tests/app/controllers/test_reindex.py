"""Re-indexing from the window: a banner says when the library needs it (passages of an older
format, another embedding model in the settings, an unfinished re-embed), its "Reindex" button
and the Library menu run the job with progress and Stop, and a stopped re-embed continues."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from app.controllers.reindex import reindex_notice
from summarizer.library.storage.store import PASSAGE_FORMAT, Library
from summarizer.library.vectors import reembed as reembed_module
from summarizer.library.vectors.embed_passages import embed_missing
from tests.summarizer.doc_factory import add_document, numbered_pages
from tests.summarizer.tiny_embedder import build_tiny_embedder


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """Two tiny random embedding models of the same width, told apart by their folders."""
    folder = tmp_path_factory.mktemp("embedders")
    return str(build_tiny_embedder(folder / "tiny-a", seed=0)), str(build_tiny_embedder(folder / "tiny-b", seed=1))


def banner(window: Any) -> Any:
    items = [item for item in window.message_bar.items() if item.message.key == "reindex"]
    assert len(items) <= 1
    return items[0] if items else None


def said(window: Any) -> list[str]:
    return [message.text for message in window.messages.history]


def menu_action(window: Any, text: str) -> Any:
    for menu_action in window.menuBar().actions():
        for action in menu_action.menu().actions():
            if action.text() == text:
                return action
    raise AssertionError(f"no menu entry {text!r}")


def test_an_old_library_gets_a_banner_and_reindexing_takes_it_away(qtbot: Any, make_window: Any) -> None:
    with Library.open() as library:
        doc_id = add_document(library, numbered_pages(3, 80), words_per_passage=15)  # format 1: an older Pagewise
    window = make_window()
    item = banner(window)
    assert item is not None and "1 document was cut into passages by an older Pagewise" in item.message.text
    assert item.action_button is not None and item.action_button.text() == "Reindex"
    item.action_button.click()
    assert window.reindexer.job is not None and window.reindex_progress.isVisible()
    qtbot.waitUntil(lambda: window.reindexer.job is None, timeout=60_000)
    assert banner(window) is None and not window.reindex_progress.isVisible()
    assert window.library.document(doc_id).passage_format == PASSAGE_FORMAT
    assert said(window).count("Library re-indexed: cut the passages of 1 document again.") == 1
    # Nothing left to do: the menu entry still runs, and says so.
    menu_action(window, "&Re-index library…").trigger()
    qtbot.waitUntil(lambda: window.reindexer.job is None, timeout=30_000)
    assert "The library is up to date." in said(window) and banner(window) is None


def test_a_new_embedding_model_is_reembedded_and_a_stopped_reembed_continues(
    qtbot: Any, make_window: Any, tiny_models: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model_a, model_b = tiny_models
    with Library.open() as library:
        for n in range(2):
            add_document(library, numbered_pages(2, 60), title=f"Doc {n}", words_per_passage=30)
        library.db.execute("UPDATE documents SET passage_format = ?", [PASSAGE_FORMAT])  # current: no re-cut
        embed_missing(library, None, model_a)
    window = make_window(settings={"embedding_model": model_a})
    assert banner(window) is None
    window.model_setup.apply_settings({"embedding_model": model_b})
    item = banner(window)
    assert item is not None
    assert "embedded with tiny-a, but the settings name tiny-b; search uses tiny-a" in item.message.text

    # The second document waits until Stop is pressed: the job stops after the first.
    reached, stopped = threading.Event(), threading.Event()
    real = reembed_module._stage_document
    staged: list[str] = []

    def stage(library: Library, embedder: Any, doc_id: str, cancel: Any) -> int:
        staged.append(doc_id)
        if len(staged) == 2:
            reached.set()
            stopped.wait(30)
        return real(library, embedder, doc_id, cancel)

    monkeypatch.setattr(reembed_module, "_stage_document", stage)
    menu_action(window, "&Re-index library…").trigger()
    assert banner(window) is None
    qtbot.waitUntil(reached.is_set, timeout=60_000)
    window.reindex_progress.cancel_button.click()
    assert window.reindex_progress.label.text() == "Stopping…"
    stopped.set()
    qtbot.waitUntil(lambda: window.reindexer.job is None, timeout=60_000)
    item = banner(window)
    assert item is not None and "with tiny-b is unfinished (1 of 2 documents); search uses tiny-a" in item.message.text
    assert window.library.embedding_model == model_a

    item.action_button.click()  # continues: only the second document is embedded now
    qtbot.waitUntil(lambda: window.reindexer.job is None, timeout=60_000)
    assert banner(window) is None and window.library.embedding_model == model_b
    assert len(staged) == 3 and staged[2] == staged[1]
    assert said(window).count(f"Library re-indexed: re-embedded with {Path(model_b).name}.") == 1


def test_the_notice_tells_an_older_format_from_an_interrupted_document() -> None:
    with Library.open() as library:
        old = add_document(library, numbered_pages(2, 40), title="Old")
        half = add_document(library, numbered_pages(2, 40), title="Half")
        library.db.execute("UPDATE documents SET passage_format = ? WHERE doc_id = ?", [PASSAGE_FORMAT, half])
        library.db.execute("UPDATE documents SET state = 'chunking' WHERE doc_id = ?", [half])
        notice = reindex_notice(library, None)
        assert notice is not None and "1 document was cut into passages by an older Pagewise" in notice
        assert "1 document was interrupted while being added" in notice
        # While documents are being added, the ingest may be cutting that one right now.
        assert "interrupted" not in (reindex_notice(library, None, adding=True) or "")
        library.db.execute("UPDATE documents SET passage_format = ? WHERE doc_id = ?", [PASSAGE_FORMAT, old])
        assert reindex_notice(library, None, adding=True) is None


def test_reindexing_waits_for_documents_being_added(make_window: Any) -> None:
    with Library.open() as library:
        add_document(library, numbered_pages(2, 40))
    window = make_window()
    window.runner.ingests.append(object())  # an ingest under way (the process itself is not needed)
    try:
        assert window.reindexer.reindex() is None and window.reindexer.job is None
        assert "once the documents being added are in the library" in said(window)[-1]
    finally:
        window.runner.ingests.clear()


def test_a_library_embedded_with_minilm_is_offered_the_clause_embedder() -> None:
    from summarizer.library.vectors.clause_embedder import BASE_MODEL, CLAUSE_EMBEDDER

    with Library.open() as library:
        add_document(library, numbered_pages(2, 40))
        library.db.execute("UPDATE documents SET passage_format = ?", [PASSAGE_FORMAT])
        library.set_meta("embedding_model", BASE_MODEL)
        notice = reindex_notice(library, CLAUSE_EMBEDDER)
        assert notice is not None and "Pagewise now embeds passages with its clause embedder" in notice
        assert "embedded with all-MiniLM-L6-v2, which search uses until it is re-embedded" in notice
        assert "the settings name" not in notice  # the user changed nothing


def test_the_words_for_an_interrupted_add_and_for_quitting_say_the_same_as_the_rest() -> None:
    """Walk 2026-12-05, finding 24: "left half cut into passages" (jargon) beside a row that says
    "add it again to finish"; "Nothing is lost" when quitting during an answer loses that answer."""
    with Library.open() as library:
        half = add_document(library, numbered_pages(2, 40), title="Half")
        library.db.execute("UPDATE documents SET passage_format = ? WHERE doc_id = ?", [PASSAGE_FORMAT, half])
        library.db.execute("UPDATE documents SET state = 'embedding' WHERE doc_id = ?", [half])
        notice = reindex_notice(library, None) or ""
    assert "cut into passages" not in notice
    assert "1 document was interrupted while being added: Reindex finishes it, as adding it again does." in notice
    from app.main_window import quit_question

    answering = quit_question(["answering"])
    assert "Nothing is lost" not in answering and "The answer being written is lost" in answering
    assert quit_question(["adding 2 documents"]).startswith("Pagewise is adding 2 documents. Quit anyway?")
    assert "Nothing is lost" in quit_question(["adding 2 documents"])
