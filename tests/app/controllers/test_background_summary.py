"""Summaries made in the background (issue 25): after a document is added the summary is made
while nothing else needs the model, shown in the status bar; it can be turned off, and it
pauses on battery power when the setting is "auto"."""

from __future__ import annotations

from typing import Any

from app.controllers.background_summary import CRASHES_IN_A_ROW, STOPPED_AFTER_ERROR
from app.services import answering
from tests.app.conftest import wait_for_document
from tests.app.views.test_conversation_view import crashing_engine
from tests.conftest import CONTRACTS


def summary_stored(window: Any, doc_id: str) -> bool:
    return answering.cached_summary(window.library, doc_id, window.session.engine) is not None


def test_a_document_added_is_summarized_in_the_background(qtbot: Any, make_window: Any, fake_engine: Any) -> None:
    fake_engine.first_piece_delay_s = 0.3  # each segment's prompt takes a while to read
    window = make_window(settings={"background_summaries": "on"})
    texts: list[str] = []
    window.status.background.setText = lambda text, original=window.status.background.setText: (
        texts.append(text), original(text))  # fmt: skip
    window.add_paths([CONTRACTS / "license-17p.pdf"])
    doc_id = wait_for_document(qtbot, window)
    qtbot.waitUntil(lambda: window.background.job is not None, timeout=10_000)
    qtbot.waitUntil(lambda: summary_stored(window, doc_id) and window.background.job is None, timeout=60_000)
    shown = [t for t in texts if t.startswith("summarizing license-17p in the background")]
    early = [t for t in shown if ", 0/2 · " in t]  # before any segment ended: a rate and an estimate
    assert early and "tok/s" in early[0] and ("left" in early[0] or "almost done" in early[0])
    qtbot.waitUntil(lambda: window.background.resting, timeout=10_000)  # a last pass found nothing left
    qtbot.waitUntil(lambda: window.status.background.isHidden(), timeout=5000)


def test_background_summaries_can_be_turned_off_and_pause_on_battery(
    qtbot: Any, make_window: Any, fake_engine: Any
) -> None:
    window = make_window(settings={"background_summaries": "off"})
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    wait_for_document(qtbot, window)
    qtbot.wait(300)
    assert window.background.job is None and window.background.why_not() == "turned off in Settings"
    assert not [c for c in fake_engine.calls]  # the model was not asked
    window.settings.update({"background_summaries": "auto"})
    window.background.on_battery = lambda: True
    window.background.wake()
    assert window.background.job is None and window.background.why_not() == "paused on battery power"
    assert window.status.background.text() == "background summaries paused on battery power"
    window.background.on_battery = lambda: False
    window.background.wake()
    assert window.background.job is not None


def test_a_question_during_the_background_summary_is_answered_first_and_the_summary_resumes(
    qtbot: Any, make_window: Any, fake_engine: Any
) -> None:
    """Issue 25: a question never waits for the summary; the summary continues after it."""
    fake_engine.first_piece_delay_s = 1.0  # each summary segment takes a second to read
    window = make_window(settings={"background_summaries": "on"})
    window.add_paths([CONTRACTS / "collaboration-154p.pdf"])
    doc_id = wait_for_document(qtbot, window, timeout=240_000)  # 154 pages embedded on 2 busy cores
    qtbot.waitUntil(lambda: window.background.job is not None and ", 0/" in window.status.background.text(),
                    timeout=20_000)  # fmt: skip
    summary_job = window.background.job
    fake_engine.first_piece_delay_s = 0.0
    fake_engine.queue("The licensee may terminate on ninety days' notice.")
    with qtbot.waitSignal(window.ask("Who may terminate?").finished, timeout=20_000):
        pass
    assert summary_job.token.cancelled  # it yielded to the question
    answer = window.conversation.turns[-1]
    assert answer.mode == "passages" and "ninety days" in answer.text
    assert "summary is still being made" in window.conversation.browser.toPlainText()
    qtbot.waitUntil(lambda: window.background.job is not None and window.background.job is not summary_job,
                    timeout=10_000)  # fmt: skip
    qtbot.waitUntil(lambda: summary_stored(window, doc_id), timeout=120_000)  # resumed and finished


def test_the_document_started_is_finished_before_the_selected_one(
    qtbot: Any, make_window: Any, fake_engine: Any
) -> None:
    """Walk 2026-12-05, finding 18: the selected document went first at every pass, so selecting
    another moved the work and long documents never finished. A pass that yielded to a question
    now goes on with the document it started."""
    fake_engine.first_piece_delay_s = 0.5  # each summary segment takes a while to read
    window = make_window(settings={"background_summaries": "on"})
    window.add_paths([CONTRACTS / "license-17p.pdf"])
    started = wait_for_document(qtbot, window)
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    qtbot.waitUntil(lambda: len(window.library.documents()) == 2 and not window.runner.ingests, timeout=60_000)
    other = next(r.doc_id for r in window.library.documents() if r.doc_id != started)
    qtbot.waitUntil(lambda: "summarizing license-17p in the background, 0/" in window.status.background.text(),
                    timeout=20_000)  # fmt: skip
    summary_job = window.background.job
    window.select_document(other)
    fake_engine.queue("The endorsement fee is paid monthly.")
    with qtbot.waitSignal(window.ask("Who pays the fee?").finished, timeout=20_000):
        pass
    assert summary_job.token.cancelled  # it yielded to the question
    qtbot.waitUntil(lambda: summary_stored(window, started) or summary_stored(window, other), timeout=60_000)
    assert summary_stored(window, started) and not summary_stored(window, other)


def test_a_model_worker_killed_during_a_background_summary_is_loaded_again_and_the_summary_finishes(
    qtbot: Any, make_window: Any
) -> None:
    """Walk 2026-12-05, finding 7: after the worker was killed under a background summary, no
    summary started again until the window was restarted, and nothing said so."""
    engine = crashing_engine()
    engine.crash_next = True  # the first call of the background pass: the worker dies under it
    window = make_window(engine, settings={"background_summaries": "on"})
    window.add_paths([CONTRACTS / "license-17p.pdf"])
    doc_id = wait_for_document(qtbot, window)
    qtbot.waitUntil(lambda: any("stopped while working" in m.text for m in window.messages.history), timeout=30_000)
    qtbot.waitUntil(lambda: summary_stored(window, doc_id), timeout=60_000)
    assert not engine.crash_next and window.session.engine.loaded
    qtbot.waitUntil(lambda: window.background.resting and window.background.crashes == 0, timeout=10_000)


def test_background_summaries_that_keep_failing_rest_and_say_so(qtbot: Any, make_window: Any) -> None:
    engine = crashing_engine()
    generate = engine.generate

    def always_crash(prompt: Any, **kwargs: Any) -> Any:
        engine.crash_next = True
        return generate(prompt, **kwargs)

    engine.generate = always_crash
    window = make_window(engine, settings={"background_summaries": "on"})
    window.add_paths([CONTRACTS / "license-17p.pdf"])
    wait_for_document(qtbot, window)
    qtbot.waitUntil(lambda: window.background.resting, timeout=30_000)
    crashes = [m for m in window.messages.history if "stopped while working" in m.text]
    assert len(crashes) == CRASHES_IN_A_ROW + 1  # tried again, then no loop of reloads
    assert window.status.background.text() == STOPPED_AFTER_ERROR and window.status.background.isVisible()
    window.background.wake()  # a document added or the settings changed: it tries again
    assert window.background.job is not None


def test_in_a_large_library_only_the_documents_opened_are_summarized_until_summarize_all(
    qtbot: Any, make_window: Any, fake_engine: Any
) -> None:
    """Issue 46: a data room's background summaries would keep two cores busy for days. Past the
    setting's number of documents, only those the user opens (or asks about) are summarized, in
    that order; Library → Summarize all makes the rest."""
    window = make_window(settings={"background_summaries": "on", "background_summaries_all_up_to": 1})
    window.add_paths([CONTRACTS / "endorsement-8p.pdf"])
    first = wait_for_document(qtbot, window)  # alone in the library: summarized as before
    qtbot.waitUntil(lambda: summary_stored(window, first) and window.background.resting, timeout=60_000)
    window.add_paths([CONTRACTS / "supply-16p.pdf", CONTRACTS / "license-17p.pdf"])
    qtbot.waitUntil(lambda: len(window.library.documents()) == 3 and not window.runner.ingests, timeout=90_000)
    supply, license_ = (
        next(r.doc_id for r in window.library.documents() if r.title.startswith(name)) for name in ("supply", "license")
    )
    qtbot.wait(300)
    assert window.background.limited() and window.background.job is None
    assert not summary_stored(window, supply) and not summary_stored(window, license_)
    window.select_document(license_)  # opened: queued, and summarized
    qtbot.waitUntil(lambda: summary_stored(window, license_) and window.background.job is None, timeout=60_000)
    assert not summary_stored(window, supply) and window.background.queued() == 0
    window.summarize_all_action.trigger()
    qtbot.waitUntil(lambda: summary_stored(window, supply), timeout=60_000)
