"""Download a catalog model into the models folder, resumable, verified by sha256.

Flow: ask the hub which commit the revision resolves to and the file's sha256 at that
commit (``HubClient.file_info``); download through huggingface_hub into ``<file>.part``
(a partial file left by an earlier attempt is resumed with a Range request); hash the
file and compare; check that it is a GGUF model llama.cpp knows; record where it came
from in ``<file>.source.json``.

The hub is reached through ``HubClient`` (``HuggingFaceHub`` by default), so tests run
against a local fake hub and nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from inference.cancel import NEVER_CANCELLED, Cancelled, CancelToken
from inference.errors import ModelError, PagewiseError, error_cause
from inference.models.catalog import CatalogEntry
from inference.progress import Progress, ProgressCallback, Stage, no_progress

_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


class DownloadError(PagewiseError):
    """A model could not be downloaded (network, hub, disk)."""


def pagewise_home() -> Path:
    """The data folder: ``$PAGEWISE_HOME`` if set, else the platform's user data folder."""
    override = os.environ.get("PAGEWISE_HOME")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("Pagewise", appauthor=False))


def models_dir() -> Path:
    """Where downloaded models live (``<data folder>/models``)."""
    return pagewise_home() / "models"


@dataclass(frozen=True, slots=True)
class RemoteFile:
    """What the hub says about one file at one revision."""

    commit: str
    sha256: str | None
    size: int | None


@dataclass(frozen=True, slots=True)
class DownloadResult:
    path: Path
    sha256: str
    revision: str
    size: int
    reused: bool = False
    """True when a verified copy was already there (nothing downloaded)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "sha256": self.sha256,
            "revision": self.revision,
            "size": self.size,
            "reused": self.reused,
        }


ByteProgress = Callable[[int, int | None], None]
"""Called with (bytes done, bytes total) while downloading."""


class HubClient(Protocol):
    def file_info(self, repo: str, filename: str, revision: str) -> RemoteFile: ...

    def download(
        self,
        repo: str,
        filename: str,
        revision: str,
        local_dir: Path,
        on_bytes: ByteProgress,
        expected_size: int | None = None,
    ) -> Path:
        """Download to ``local_dir/filename``; a partial earlier download is resumed."""
        ...


class HuggingFaceHub:
    """``HubClient`` through huggingface_hub; ``endpoint`` defaults to ``HF_ENDPOINT``/the hub."""

    def __init__(self, endpoint: str | None = None, token: str | bool | None = None) -> None:
        self.endpoint = endpoint
        self.token = token

    def file_info(self, repo: str, filename: str, revision: str) -> RemoteFile:
        from huggingface_hub import HfApi, get_hf_file_metadata, hf_hub_url

        url = hf_hub_url(repo, filename, revision=revision, endpoint=self.endpoint)
        metadata = get_hf_file_metadata(url, token=self.token, endpoint=self.endpoint)
        commit = metadata.commit_hash or revision
        sha256: str | None = None
        size = metadata.size
        # The LFS object id is the file's sha256; ask for it at the resolved commit.
        api = HfApi(endpoint=self.endpoint, token=self.token)
        for item in api.get_paths_info(repo, [filename], revision=commit, expand=True):
            lfs = getattr(item, "lfs", None)
            if getattr(item, "path", None) == filename and lfs is not None:
                sha256, size = str(lfs.sha256).lower(), int(lfs.size)
        if sha256 is None and metadata.etag and _SHA256_RE.match(metadata.etag.lower()):
            sha256 = metadata.etag.lower()  # LFS files: the linked etag is the sha256
        return RemoteFile(commit=commit, sha256=sha256, size=size)

    def download(
        self,
        repo: str,
        filename: str,
        revision: str,
        local_dir: Path,
        on_bytes: ByteProgress,
        expected_size: int | None = None,
    ) -> Path:
        """Download into ``<local_dir>/<filename>.part``, resuming it if present, then rename.

        ``hf_hub_download`` (huggingface_hub 1.x/2.x) resumes only within one call: each call
        starts a fresh, uniquely named temporary file. A model is gigabytes and the app may be
        closed mid-way, so this keeps its own ``.part`` file and lets huggingface_hub's
        ``http_get`` continue it with a Range request (and retry within the call).
        """
        from huggingface_hub import hf_hub_url
        from huggingface_hub.file_download import http_get
        from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]

        target = local_dir / filename
        part = target.with_name(target.name + ".part")
        url = hf_hub_url(repo, filename, revision=revision, endpoint=self.endpoint)
        headers = build_hf_headers(token=self.token)
        with part.open("r+b" if part.exists() else "wb") as handle:
            handle.seek(0, os.SEEK_END)
            resume = handle.tell()
            if expected_size is not None and resume > expected_size:
                handle.seek(0)
                handle.truncate()
                resume = 0
            if expected_size is None or resume < expected_size:
                http_get(
                    url,
                    handle,
                    resume_size=resume,
                    headers=headers,
                    expected_size=expected_size,
                    tqdm_class=_tqdm_class(on_bytes),
                )
        os.replace(part, target)
        return target


def _tqdm_class(on_bytes: ByteProgress) -> Any:
    """A tqdm subclass reporting bytes to ``on_bytes`` (and drawing nothing)."""
    from tqdm.auto import tqdm

    class ProgressTqdm(tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = False
            kwargs["file"] = open(os.devnull, "w")  # noqa: SIM115 - closed in close()
            super().__init__(*args, **kwargs)
            on_bytes(int(self.n), int(self.total) if self.total else None)

        def update(self, n: float | None = 1) -> bool | None:
            result: bool | None = super().update(n)
            # May raise Cancelled: the partial file stays and the next attempt resumes it.
            on_bytes(int(self.n), int(self.total) if self.total else None)
            return result

        def close(self) -> None:
            handle = self.fp
            super().close()
            with contextlib.suppress(Exception):
                handle.close()

    return ProgressTqdm


def sha256_file(path: Path, cancel: CancelToken = NEVER_CANCELLED, on_bytes: ByteProgress | None = None) -> str:
    digest = hashlib.sha256()
    done = 0
    total = path.stat().st_size
    with path.open("rb") as handle:
        while chunk := handle.read(8 * 1024 * 1024):
            cancel.raise_if_cancelled()
            digest.update(chunk)
            done += len(chunk)
            if on_bytes is not None:
                on_bytes(done, total)
    return digest.hexdigest()


def _source_path(path: Path) -> Path:
    return path.with_name(path.name + ".source.json")


def verified_copy(path: Path, sha256: str) -> bool:
    """True if ``path`` was downloaded and verified before with this sha256 and is intact in size."""
    try:
        source = json.loads(_source_path(path).read_text(encoding="utf-8"))
        return bool(source.get("sha256") == sha256 and path.stat().st_size == source.get("size"))
    except (OSError, ValueError):
        return False


def download_model(
    entry: CatalogEntry,
    *,
    dest_dir: Path | None = None,
    hub: HubClient | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken = NEVER_CANCELLED,
    check_gguf: Callable[[Path], None] | None = None,
) -> DownloadResult:
    """Download ``entry`` into ``dest_dir`` (default: the models folder) and verify it."""
    hub = hub or HuggingFaceHub()
    dest = dest_dir or models_dir()
    dest.mkdir(parents=True, exist_ok=True)
    where = f"{entry.repo}/{entry.filename}"
    revision = entry.revision or "main"
    progress(Progress(Stage.DOWNLOAD, 0, None, f"asking the hub about {entry.filename}"))
    try:
        remote = hub.file_info(entry.repo, entry.filename, revision)
    except (PagewiseError, Cancelled):
        raise
    except Exception as error:
        raise DownloadError(
            f"Could not get {where} (revision {revision}) from the hub: {error_cause(error)}. "
            "Check the internet connection and try again."
        ) from error
    expected = (entry.sha256 or remote.sha256 or "").lower()
    if not expected:
        raise DownloadError(
            f"The hub reports no sha256 for {where} at {remote.commit[:12]}, so the download cannot be "
            "verified. Choose another model or download it by hand."
        )
    if entry.sha256 and remote.sha256 and entry.sha256.lower() != remote.sha256.lower():
        raise DownloadError(
            f"{where} at {remote.commit[:12]} does not match the hash pinned in the catalog: the file "
            "changed on the hub. Update Pagewise, or choose another model."
        )
    target = dest / entry.filename
    if target.exists() and verified_copy(target, expected):
        return DownloadResult(target, expected, remote.commit, target.stat().st_size, reused=True)

    cancel.raise_if_cancelled()
    started = time.monotonic()

    def on_bytes(done: int, total: int | None) -> None:
        cancel.raise_if_cancelled()
        elapsed = time.monotonic() - started
        rate = done / elapsed if elapsed > 0 and done else None
        progress(Progress(Stage.DOWNLOAD, done, total or remote.size, entry.filename, rate))

    try:
        path = hub.download(entry.repo, entry.filename, remote.commit, dest, on_bytes, remote.size)
    except (PagewiseError, Cancelled):
        raise
    except OSError as error:
        raise DownloadError(
            f"Could not write {entry.filename} into {dest}: {error.strerror or error}. "
            "Free some disk space or choose another models folder (PAGEWISE_HOME)."
        ) from error
    except Exception as error:
        raise DownloadError(
            f"Downloading {where} failed: {error_cause(error)}. Try again: the download resumes where it stopped."
        ) from error

    def on_hash(done: int, total: int | None) -> None:
        progress(Progress(Stage.VERIFY, done, total, f"checking {entry.filename}"))

    actual = sha256_file(path, cancel, on_hash)
    if actual != expected:
        path.unlink(missing_ok=True)
        raise ModelError(
            f"The downloaded {entry.filename} is damaged (its sha256 does not match the hub's). "
            "It was deleted; download it again.",
            path=path,
        )
    if check_gguf is not None:
        check_gguf(path)
    size = path.stat().st_size
    _source_path(path).write_text(
        json.dumps(
            {
                "repo": entry.repo,
                "filename": entry.filename,
                "revision": remote.commit,
                "sha256": actual,
                "size": size,
                "downloaded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    return DownloadResult(path, actual, remote.commit, size)


def installed_models(directory: Path | None = None) -> list[Path]:
    """GGUF files in the models folder (downloaded or copied there)."""
    folder = directory or models_dir()
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.glob("*.gguf") if path.is_file())
