"""Laying a Word document out as pages with LibreOffice, faked: a script in place of ``soffice``
(the suite never needs LibreOffice)."""

from __future__ import annotations

import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.progress import Progress, Stage
from summarizer.library.reading.docx_render import (
    WordRenderError,
    cached_rendering,
    find_soffice,
    render_docx,
)
from tests.docx_factory import para, write_docx

FAKE_SOFFICE = """#!{python}
import sys, time
from pathlib import Path
args = sys.argv[1:]
log = Path({log!r})
log.write_text(log.read_text() + " ".join(args) + "\\n" if log.exists() else " ".join(args) + "\\n")
mode = {mode!r}
if mode == "fail":
    print("Error: source file could not be loaded", file=sys.stderr)
    sys.exit(1)
if mode == "slow":
    time.sleep(30)
assert args[args.index("--convert-to") + 1] == "pdf" and "--headless" in args
assert any(a.startswith("-env:UserInstallation=file://") for a in args)  # a profile of its own
out = Path(args[args.index("--outdir") + 1])
source = Path(args[-1])
if mode != "nothing":
    out.mkdir(parents=True, exist_ok=True)
    (out / (source.stem + ".pdf")).write_bytes(b"%PDF-1.4 made from " + source.read_bytes()[:2])
"""


def fake_soffice(folder: Path, mode: str = "ok") -> tuple[str, Path]:
    log = folder / "calls.txt"
    script = folder / "soffice"
    script.write_text(FAKE_SOFFICE.format(python=sys.executable, log=str(log), mode=mode))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), log


@pytest.fixture
def docx(tmp_path: Path) -> Path:
    return write_docx(tmp_path / "My Draft (v2).docx", para("This Agreement is made between the parties."))


def test_a_word_file_is_laid_out_once_and_kept_by_its_contents(docx: Path, tmp_path: Path) -> None:
    soffice, log = fake_soffice(tmp_path)
    seen: list[Progress] = []
    cache = tmp_path / "cache"
    pdf = render_docx(docx, cache, soffice, progress=seen.append)
    assert pdf.read_bytes() == b"%PDF-1.4 made from PK" and pdf.parent.parent == cache
    assert [p.stage for p in seen] == [Stage.RENDER_PAGES, Stage.RENDER_PAGES] and seen[-1].fraction == 1.0
    assert cached_rendering(docx, cache) == pdf
    copy = tmp_path / "copy.docx"
    copy.write_bytes(docx.read_bytes())
    assert render_docx(copy, cache, soffice) == pdf  # the same bytes under another name: not again
    assert len(log.read_text().splitlines()) == 1
    write_docx(docx, para("A changed draft."))  # changed: laid out again
    assert cached_rendering(docx, cache) is None
    assert render_docx(docx, cache, soffice) != pdf and len(log.read_text().splitlines()) == 2


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("fail", "LibreOffice could not lay out My Draft (v2).docx (exit code 1): it is shown as text."),
        ("nothing", "LibreOffice made no pages of My Draft (v2).docx: it is shown as text."),
    ],
)
def test_a_failed_layout_says_so_and_keeps_nothing(docx: Path, tmp_path: Path, mode: str, said: str) -> None:
    soffice, _ = fake_soffice(tmp_path, mode)
    with pytest.raises(WordRenderError) as error:
        render_docx(docx, tmp_path / "cache", soffice)
    assert str(error.value).startswith(said) and error.value.path == docx
    if mode == "fail":
        assert "source file could not be loaded" in error.value.detail
    assert cached_rendering(docx, tmp_path / "cache") is None


def test_a_slow_layout_is_stopped_by_cancel_and_by_the_time_limit(docx: Path, tmp_path: Path) -> None:
    soffice, _ = fake_soffice(tmp_path, "slow")
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        render_docx(docx, tmp_path / "cache", soffice, cancel=token)
    with pytest.raises(WordRenderError, match=r"took more than 0 s to lay out"):
        render_docx(docx, tmp_path / "cache", soffice, timeout_s=0.3)


def test_without_libreoffice_the_file_is_shown_as_text(
    docx: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert find_soffice() is None
    with pytest.raises(WordRenderError, match="LibreOffice \\(soffice\\) is not installed"):
        render_docx(docx, tmp_path / "cache")
    soffice, _ = fake_soffice(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_soffice() == soffice


LAUNCHER = """#!{python}
import subprocess, sys, time
from pathlib import Path
profile = Path(next(a for a in sys.argv if a.startswith("-env:UserInstallation=file://")).split("file://", 1)[1])
ready = Path({ready!r})
subprocess.Popen([sys.executable, "-c", (
    "import pathlib, sys, time; p = pathlib.Path(sys.argv[1]); p.mkdir(parents=True, exist_ok=True); "
    "held = open(p / 'registrymodifications.xcu', 'w'); pathlib.Path(sys.argv[2]).touch(); time.sleep(30)"
), str(profile), str(ready)])
time.sleep(30)
"""


def test_a_stopped_layout_ends_what_libreoffice_started(docx: Path, tmp_path: Path, windows_file_locks: Any) -> None:
    """``soffice`` is a launcher: ``soffice.bin`` runs below it with files open in the scratch
    folder. Killing the launcher alone left it running, and Windows refused to delete the folder
    (issue 54): a PermissionError instead of the Cancelled the user asked for."""
    ready = tmp_path / "soffice.bin-started"
    script = tmp_path / "soffice"
    script.write_text(LAUNCHER.format(python=sys.executable, ready=str(ready)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    token = CancelToken()

    def cancel_once_started() -> None:  # the user's Cancel, once soffice.bin holds its file
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        token.cancel()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    with pytest.raises(Cancelled):
        render_docx(docx, tmp_path / "cache", str(script), cancel=token, timeout_s=120)
    assert ready.exists() and not windows_file_locks.refusals
