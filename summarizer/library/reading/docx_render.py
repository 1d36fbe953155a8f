"""A Word document laid out as pages by LibreOffice, for the viewer (issue 43).

Pagewise reads a ``.docx`` itself (``docx_extract``) and never needs LibreOffice. Where it is
installed (``soffice`` on the PATH, as Debian's ``libreoffice-writer-nogui`` puts it), the window
shows the pages LibreOffice lays out, with real page breaks, fonts and numbering, in the PDF viewer:
``render_docx`` converts the file once (``soffice --headless --convert-to pdf``) and keeps the PDF
in the cache folder under the file's SHA-256, so that the same file is never converted twice and a
changed file is converted again. Without LibreOffice the window shows the stored paragraphs as rich
text (``app/widgets/word_view.py``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.errors import PagewiseError
from inference.progress import Progress, ProgressCallback, Stage, no_progress
from summarizer.library.reading.pdf_extract import file_sha256

RENDER_TIMEOUT_S = 180.0  # a 300-page contract takes LibreOffice about a minute on 2 cores
POLL_S = 0.1
SOFFICE_NAMES = ("soffice", "libreoffice")


class WordRenderError(PagewiseError):
    """LibreOffice could not lay a Word document out as pages (the window then shows its text)."""


def find_soffice() -> str | None:
    """LibreOffice's ``soffice`` on the PATH, or None (then the Word view shows the text)."""
    for name in SOFFICE_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def rendered_path(cache: Path, sha256: str) -> Path:
    return cache / "word-pages" / f"{sha256}.pdf"


def cached_rendering(path: Path, cache: Path) -> Path | None:
    """The PDF made of ``path`` before (the same bytes), or None."""
    try:
        found = rendered_path(cache, file_sha256(path))
    except OSError:
        return None
    return found if found.is_file() else None


def render_docx(
    path: Path,
    cache: Path,
    soffice: str | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    timeout_s: float = RENDER_TIMEOUT_S,
) -> Path:
    """The PDF LibreOffice makes of the Word file ``path``, made once and kept in ``cache``.

    LibreOffice runs with a profile of its own in a temporary folder, so that a LibreOffice the
    user has open is neither used nor disturbed. Raises ``WordRenderError`` (not installed, failed,
    timed out, no PDF made) and ``Cancelled``."""
    try:
        sha = file_sha256(path)
    except OSError as error:
        raise WordRenderError(f"{path.name} cannot be read to lay it out as pages: {error}.", path=path) from error
    target = rendered_path(cache, sha)
    if target.is_file():
        return target
    program = soffice or find_soffice()
    if program is None:
        raise WordRenderError(
            f"{path.name} is shown as text: LibreOffice (soffice) is not installed to lay it out as pages.", path=path
        )
    progress(Progress(Stage.RENDER_PAGES, 0, None, f"Laying out {path.name} as pages with LibreOffice"))
    with tempfile.TemporaryDirectory(prefix="pagewise-render-") as scratch:
        work = Path(scratch)
        source = work / "in" / f"document{path.suffix.lower() or '.docx'}"  # a plain name LibreOffice keeps
        source.parent.mkdir()
        shutil.copyfile(path, source)
        command = [
            program,
            f"-env:UserInstallation={(work / 'profile').as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
            str(work / "out"),
            str(source),
        ]
        _run(command, path, cancel, timeout_s, work / "soffice.log")
        made = work / "out" / f"{source.stem}.pdf"
        if not made.is_file() or made.stat().st_size == 0:
            raise WordRenderError(
                f"LibreOffice made no pages of {path.name}: it is shown as text. Open it in Word to see its layout.",
                path=path,
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.part")
        shutil.copyfile(made, partial)
        partial.replace(target)  # whole or not at all: another window may read it
    progress(Progress(Stage.RENDER_PAGES, 1, 1, f"Laid out {path.name} as pages"))
    return target


def _run(command: list[str], path: Path, cancel: CancelToken, timeout_s: float, log: Path) -> None:
    """Run LibreOffice, polled so that a cancel or the time limit ends it (its messages go to
    ``log``, a file: a pipe nobody reads while it runs can fill up and stall it)."""
    started = time.monotonic()
    with log.open("wb") as messages:
        try:
            process = subprocess.Popen(
                command, stdout=messages, stderr=subprocess.STDOUT, creationflags=_NEW_GROUP,
                start_new_session=sys.platform != "win32",
            )  # fmt: skip
        except OSError as error:
            raise WordRenderError(
                f"LibreOffice could not be started to lay out {path.name}: {error}.", path=path
            ) from error
        try:
            while process.poll() is None:
                if cancel.cancelled:
                    raise Cancelled(f"Laying out {path.name} was stopped.")
                if time.monotonic() - started > timeout_s:
                    raise WordRenderError(
                        f"LibreOffice took more than {timeout_s:.0f} s to lay out {path.name}: it is shown as text.",
                        path=path,
                    )
                time.sleep(POLL_S)
        finally:
            if process.poll() is None:
                _stop(process)
    if process.returncode != 0:
        said = log.read_text("utf-8", "replace").strip()
        raise WordRenderError(
            f"LibreOffice could not lay out {path.name} (exit code {process.returncode}): it is shown as text.",
            path=path,
            detail=said[-500:],
        )


# LibreOffice in a process group of its own, so that stopping it stops what it started.
if sys.platform == "win32":
    _NEW_GROUP = subprocess.CREATE_NEW_PROCESS_GROUP
else:
    _NEW_GROUP = 0
GROUP_EXIT_S = 2.0


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End LibreOffice and the processes it started. ``soffice`` is a launcher: killing it alone
    left ``soffice.bin`` running with files open in the scratch folder, which Windows then cannot
    delete (issue 54)."""
    if sys.platform == "win32":
        subprocess.run(["taskkill", "/F", "/T", "/PID", str(process.pid)], capture_output=True, check=False)
        process.kill()
        process.wait()
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.kill()
    process.wait()
    deadline = time.monotonic() + GROUP_EXIT_S  # its other processes are not ours to wait for
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)  # until none is left in the group
        except ProcessLookupError:
            return
        time.sleep(0.02)
