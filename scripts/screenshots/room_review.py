"""The data room reviewed by the model from the Review table (issue 57): the bundled contracts found
evidence-only first, then "Review the library with the model" under way (the progress over the set,
some rows the model's answers, the others still evidence-only) and done.

The model is the scripted fake engine of the review scene (it quotes the contract's own sentence
for each item, so flags come from the real playbook), a little slow so the mid-review picture shows
the job running; its load is held a few seconds first, so the bar's "Loading <model>…" shows. Saves
``room-review-loading.png``, ``room-review-running.png`` and ``room-review-done.png``:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m scripts.screenshots room-review
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

NAMES = ("supply-16p.pdf", "license-17p.pdf", "endorsement-8p.pdf")


def run(args: argparse.Namespace, home: Path) -> None:
    from app.widgets.qt_wait import wait_until
    from scripts.screenshots.review import review_window, save_reviewed, wait_for_review

    _app, window, engine, session = review_window(home, NAMES, piece_delay_s=0.004, ingest_timeout_s=600)
    window.splitter.setSizes([190, 460, 950])
    window.tabs.setCurrentWidget(window.review)
    panel, room = window.review, window.reviews.room
    panel.check_all(True)
    panel.side.setText("Distributor")
    panel.contracts_as_rows.setChecked(True)
    panel.evidence_only.setChecked(True)
    assert window.reviews.review() is not None
    wait_until(lambda: window.reviews.job is None, 600)
    room.confirm = lambda _question: True
    session.close()  # as the first review after opening would: the job loads the model
    engine.load_gate = threading.Event()  # and the load takes its time: the bar says so
    assert room.start() is not None
    wait_until(lambda: panel.room.label.text().startswith("Loading"), 60)
    wait_until(lambda: False, 2.5)  # the seconds show
    window.grab().save(str(args.out / "room-review-loading.png"))
    print("saved", args.out / "room-review-loading.png", flush=True)
    engine.load_gate.set()
    wait_until(lambda: room.last_status is not None and room.last_status.contracts_done >= 2, 600)
    wait_until(lambda: False, 0.5)
    window.grab().save(str(args.out / "room-review-running.png"))
    print("saved", args.out / "room-review-running.png", flush=True)
    wait_for_review(window, 900)
    wait_until(lambda: False, 0.8)
    save_reviewed(window, args.out / "room-review-done.png")
    print("saved", args.out / "room-review-done.png", flush=True)
    window.close()
