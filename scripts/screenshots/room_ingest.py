"""A data room added in the real window (issue 46): the progress line over the whole set while it
is added, then the library with its folders, filtered by one, and the batch's summary.

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \\
        .venv/bin/python -m scripts.screenshots room-ingest [--contracts 40]

The data room is the rendered CUAD contracts (``python -m lab.bench.dataroom_render`` first),
its first ``--contracts`` by name from each folder in turn, plus a text file, a Word lock file and a
broken PDF, so the summary has something to say. Ingest runs without embeddings (as the window
tests do) to keep it short. Saves ``room-adding.png``, ``room-filtered.png``.
"""

from __future__ import annotations

import argparse
from itertools import zip_longest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOM = ROOT / "build" / "dataroom"


def make_room(target: Path, count: int) -> Path:
    folders = sorted(p for p in ROOM.iterdir() if p.is_dir())
    columns = [sorted(f.glob("*.pdf")) for f in folders]
    picked = [p for row in zip_longest(*columns) for p in row if p is not None][:count]
    for pdf in picked:
        link = target / pdf.relative_to(ROOM)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(pdf)
    (target / "index.txt").write_text("the data room's index, not a contract")
    (target / "~$draft.docx").write_bytes(b"\x05alice" + b"\x00" * 150)
    (target / "scan-broken.pdf").write_bytes(b"%PDF-1.4\nnot really a pdf")
    return target


def run(args: argparse.Namespace, home: Path) -> None:
    out_dir = args.out
    contracts = args.contracts or 40
    room = make_room(home.parent / f"{home.name}-data-room", contracts)

    from app.widgets.qt_wait import wait_until
    from scripts.scripted_window import scripted_window

    app, window, _engine = scripted_window(home, context_size=4096)
    window.runner.embed = False
    job = window.add_paths([room])
    progressed: list[int] = []
    job.batch_progress.connect(lambda p: progressed.append(p.done))
    wait_until(lambda: len(progressed) > contracts // 3, 600)
    window.grab().save(str(out_dir / "room-adding.png"))
    print("while adding:", window.ingest_progress.label.text(), "|", window.ingest_progress.eta.text(), flush=True)
    wait_until(lambda: not window.runner.ingests, 900)
    wait_until(lambda: False, 2.0)  # the last list refresh
    panel = window.library_panel
    folders = [panel.folder_filter.itemText(i) for i in range(panel.folder_filter.count())]
    print("folders:", folders, flush=True)
    panel.show_folder("licensing")
    print("summary:", window.messages.history[-1].text, flush=True)
    window.grab().save(str(out_dir / "room-filtered.png"))
    print("saved", out_dir / "room-adding.png", out_dir / "room-filtered.png")
    window.close()
    app.quit()
