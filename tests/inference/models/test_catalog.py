"""The model catalog, and downloads against a fake hub on 127.0.0.1 (no network)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from inference.cancel import Cancelled, CancelToken
from inference.errors import ModelError
from inference.models import catalog, download
from inference.models.catalog import CATALOG, CatalogEntry
from inference.models.download import DownloadError, HuggingFaceHub, download_model
from inference.progress import Progress, Stage

ROOT = Path(__file__).resolve().parents[3]
COMMIT = "0123456789abcdef0123456789abcdef01234567"
GIB = 1024**3


def test_catalog_covers_every_tier_without_invented_hashes() -> None:
    for tier in catalog.TIERS_GB:
        assert catalog.for_tier(tier), f"no model for {tier} GB"
    keys = [entry.key for entry in CATALOG]
    assert len(keys) == len(set(keys))
    for entry in CATALOG:
        assert entry.filename.endswith(".gguf")
        assert entry.license and entry.context_tokens > 0
        # Nothing could be checked against the hub: no pinned hash or revision was invented.
        assert entry.sha256 is None and entry.revision is None and not entry.verified
        assert 0 < entry.approx_size_gb < (entry.tier_gb or 1.5)  # the CPU tier's model: small
        assert json.dumps(entry.to_json())
    assert catalog.find(CATALOG[0].filename) is CATALOG[0]


@pytest.mark.parametrize(
    ("reported_gib", "tier"),
    [(7.6, 8), (11.6, 12), (12.0, 12), (15.6, 16), (23.6, 24), (80.0, 24), (5.8, None)],
)
def test_best_tier(reported_gib: float, tier: int | None) -> None:
    assert catalog.best_tier(int(reported_gib * GIB)) == tier


def test_models_dir_follows_pagewise_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAGEWISE_HOME", str(tmp_path))
    assert download.models_dir() == tmp_path / "models"
    monkeypatch.delenv("PAGEWISE_HOME")
    assert download.models_dir().name == "models"
    assert "Pagewise" in str(download.models_dir())


# A fake hub: the endpoints huggingface_hub calls for one file.


class FakeHub:
    def __init__(self, repo: str, filename: str, content: bytes) -> None:
        self.repo = repo
        self.filename = filename
        self.content = content
        self.sha256 = hashlib.sha256(content).hexdigest()
        self.reported_sha256 = self.sha256
        self.serve_content = content
        self.requests: list[tuple[str, str, str | None]] = []
        self.fail_after: int | None = None  # cut the connection after this many bytes (once)


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    resolve = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)$")
    paths_info = re.compile(r"^/api/models/(?P<repo>[^/]+/[^/]+)/paths-info/(?P<rev>[^/]+)$")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _file_headers(self) -> None:
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("X-Linked-Etag", f'"{hub.reported_sha256}"')
            self.send_header("ETag", f'"{hub.reported_sha256}"')
            self.send_header("X-Linked-Size", str(len(hub.serve_content)))
            self.send_header("Accept-Ranges", "bytes")

        def _match_file(self) -> bool:
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            match = resolve.match(path)
            if not match or match["repo"] != hub.repo or match["file"] != hub.filename:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.send_header("X-Error-Code", "EntryNotFound")
                self.end_headers()
                return False
            return True

        def do_HEAD(self) -> None:
            hub.requests.append(("HEAD", self.path, None))
            if not self._match_file():
                return
            self.send_response(200)
            self._file_headers()
            self.send_header("Content-Length", str(len(hub.serve_content)))
            self.end_headers()

        def do_GET(self) -> None:
            range_header = self.headers.get("Range")
            hub.requests.append(("GET", self.path, range_header))
            if not self._match_file():
                return
            body = hub.serve_content
            start = 0
            if range_header:
                start = int(range_header.split("=")[1].split("-")[0])
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            self._file_headers()
            part = body[start:]
            self.send_header("Content-Length", str(len(part)))
            self.end_headers()
            if hub.fail_after is not None:
                cut, hub.fail_after = hub.fail_after, None
                self.wfile.write(part[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(part)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = urllib.parse.parse_qs(self.rfile.read(length).decode())
            hub.requests.append(("POST", self.path, None))
            match = paths_info.match(urllib.parse.urlsplit(self.path).path)
            if not match or match["repo"] != hub.repo:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            items = [
                {
                    "type": "file",
                    "path": hub.filename,
                    "size": len(hub.serve_content),
                    "oid": "f" * 40,
                    "lfs": {"oid": hub.reported_sha256, "size": len(hub.serve_content), "pointerSize": 134},
                }
                for path in form.get("paths", [])
                if path == hub.filename
            ]
            data = json.dumps(items).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up mid-transfer is part of these tests


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeHub, str]]:
    # conftest sets HF_HUB_OFFLINE; this fake hub on loopback is the one server allowed.
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    # Small chunks, so that a cut or a cancel leaves a partial file to resume.
    monkeypatch.setattr(huggingface_hub.constants, "DOWNLOAD_CHUNK_SIZE", 64 * 1024)
    content = b"GGUF" + bytes(range(256)) * 4096  # ~1 MiB
    hub = FakeHub("pagewise-test/Tiny-GGUF", "tiny-Q4_K_M.gguf", content)
    server = _QuietServer(("127.0.0.1", 0), _handler(hub))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hub, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _entry(hub: FakeHub, **changes: Any) -> CatalogEntry:
    base = CatalogEntry(
        key="tiny",
        title="Tiny",
        tier_gb=8,
        repo=hub.repo,
        filename=hub.filename,
        license="Apache-2.0",
        context_tokens=2048,
        params_billion=0.1,
        quant="Q4_K_M",
        approx_size_gb=0.1,
    )
    return replace(base, **changes)


def test_file_info_from_the_fake_hub(fake_hub: tuple[FakeHub, str]) -> None:
    hub, url = fake_hub
    info = HuggingFaceHub(endpoint=url).file_info(hub.repo, hub.filename, "main")
    assert info.commit == COMMIT
    assert info.sha256 == hub.sha256
    assert info.size == len(hub.content)


def test_download_verifies_and_records_the_source(fake_hub: tuple[FakeHub, str], tmp_path: Path) -> None:
    hub, url = fake_hub
    seen: list[Progress] = []
    checked: list[Path] = []
    result = download_model(
        _entry(hub),
        dest_dir=tmp_path,
        hub=HuggingFaceHub(endpoint=url),
        progress=seen.append,
        check_gguf=checked.append,
    )
    assert result.path == tmp_path / hub.filename
    assert result.path.read_bytes() == hub.content
    assert result.sha256 == hub.sha256 and result.revision == COMMIT and not result.reused
    assert checked == [result.path]
    assert {p.stage for p in seen} >= {Stage.DOWNLOAD, Stage.VERIFY}
    assert max(p.done for p in seen if p.stage == Stage.DOWNLOAD) == len(hub.content)
    source = json.loads((tmp_path / (hub.filename + ".source.json")).read_text())
    assert source["revision"] == COMMIT and source["sha256"] == hub.sha256
    # The download asked for the resolved commit, not "main".
    assert any(method == "GET" and COMMIT in path for method, path, _ in hub.requests)
    # A second call finds the verified copy and downloads nothing.
    again = download_model(_entry(hub), dest_dir=tmp_path, hub=HuggingFaceHub(endpoint=url))
    assert again.reused
    assert download.installed_models(tmp_path) == [result.path]


def test_interrupted_download_resumes(fake_hub: tuple[FakeHub, str], tmp_path: Path) -> None:
    hub, url = fake_hub
    hub.fail_after = 300_000
    client = HuggingFaceHub(endpoint=url)
    # huggingface_hub retries within the call, from where the cut happened.
    result = download_model(_entry(hub), dest_dir=tmp_path, hub=client)
    assert result.path.read_bytes() == hub.content
    ranges = [r for method, _, r in hub.requests if method == "GET" and r]
    assert ranges and any(r != "bytes=0-" for r in ranges), f"not resumed: {hub.requests}"


def test_corrupt_download_is_deleted(fake_hub: tuple[FakeHub, str], tmp_path: Path) -> None:
    hub, url = fake_hub
    hub.serve_content = hub.content[:-1] + b"X"  # hub says sha of the good file
    with pytest.raises(ModelError, match="damaged"):
        download_model(_entry(hub), dest_dir=tmp_path, hub=HuggingFaceHub(endpoint=url))
    assert not (tmp_path / hub.filename).exists()


def test_pinned_hash_that_the_hub_contradicts_stops(fake_hub: tuple[FakeHub, str], tmp_path: Path) -> None:
    hub, url = fake_hub
    with pytest.raises(DownloadError, match="changed on the hub"):
        download_model(_entry(hub, sha256="0" * 64), dest_dir=tmp_path, hub=HuggingFaceHub(endpoint=url))
    assert not any(method == "GET" for method, _, _ in hub.requests)


def test_unknown_file_is_a_clear_error(fake_hub: tuple[FakeHub, str], tmp_path: Path) -> None:
    hub, url = fake_hub
    with pytest.raises(DownloadError, match="Could not get"):
        download_model(_entry(hub, filename="missing.gguf"), dest_dir=tmp_path, hub=HuggingFaceHub(endpoint=url))


def test_hub_down_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    hub = FakeHub("a/b", "c.gguf", b"GGUF")
    with pytest.raises(DownloadError, match="internet connection"):
        download_model(_entry(hub), dest_dir=tmp_path, hub=HuggingFaceHub(endpoint="http://127.0.0.1:9"))


def test_cancel_during_download_keeps_the_partial_file(fake_hub: tuple[FakeHub, str], tmp_path: Path) -> None:
    hub, url = fake_hub
    token = CancelToken()

    def cancel_soon(progress: Progress) -> None:
        if progress.stage == Stage.DOWNLOAD and progress.done > 0:
            token.cancel()

    with pytest.raises(Cancelled):
        download_model(
            _entry(hub),
            dest_dir=tmp_path,
            hub=HuggingFaceHub(endpoint=url),
            progress=cancel_soon,
            cancel=token,
        )
    assert not (tmp_path / hub.filename).exists()
    assert (tmp_path / (hub.filename + ".part")).stat().st_size > 0
    hub.requests.clear()
    result = download_model(_entry(hub), dest_dir=tmp_path, hub=HuggingFaceHub(endpoint=url))
    assert result.path.read_bytes() == hub.content
    ranges = [r for method, _, r in hub.requests if method == "GET"]
    assert ranges and ranges[0] not in (None, "bytes=0-"), f"the second attempt did not resume: {ranges}"


# The user's case (issue 24): the window loaded the embedding model, and a download started after
# that failed with "offline mode is enabled" although the user had set nothing. huggingface_hub
# reads HF_HUB_OFFLINE once, when it is first imported, so this runs in a fresh process where
# nothing imported it yet, with no hub variable set: as the app starts.
_LOAD_THEN_DOWNLOAD = """
import ipaddress, socket, sys
from pathlib import Path

real_connect = socket.socket.connect
reached = []

def loopback_only(self, address):
    host = address[0] if isinstance(address, tuple) else "localhost"
    if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
        reached.append(address)
        raise OSError(f"tried to reach the network: {address!r}")
    return real_connect(self, address)

socket.socket.connect = loopback_only

from summarizer.library.vectors.embedder import load_embedder

load_embedder("sentence-transformers/all-MiniLM-L6-v2").encode(["The embedding model is loaded."])
assert not reached, f"loading the embedding model tried the network: {reached}"

from inference.models.catalog import CatalogEntry
from inference.models.download import HuggingFaceHub, download_model

endpoint, repo, filename, dest = sys.argv[1:5]
entry = CatalogEntry(key="tiny", title="Tiny", tier_gb=8, repo=repo, filename=filename, license="Apache-2.0",
                     context_tokens=2048, params_billion=0.1, quant="Q4_K_M", approx_size_gb=0.1)
print(download_model(entry, dest_dir=Path(dest), hub=HuggingFaceHub(endpoint=endpoint)).sha256)
"""


def test_download_works_after_the_embedding_model_was_loaded(fake_hub: tuple[FakeHub, str], tmp_path: Path) -> None:
    hub, url = fake_hub
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env["HF_HOME"] = str(tmp_path / "hf-home")  # no cache or token of the user's
    done = subprocess.run(
        [sys.executable, "-c", _LOAD_THEN_DOWNLOAD, url, hub.repo, hub.filename, str(tmp_path / "models")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[-1] == hub.sha256
    assert (tmp_path / "models" / hub.filename).read_bytes() == hub.content


class _RefusingHub:
    """A hub client that fails as huggingface_hub did in offline mode (a 212-character message)."""

    message = (
        "Cannot reach https://huggingface.co/bartowski/Qwen2.5-7B-Instruct-GGUF/resolve/main/"
        "Qwen2.5-7B-Instruct-Q4_K_M.gguf: offline mode is enabled. To disable it, please unset the "
        "`HF_HUB_OFFLINE` environment variable."
    )

    def file_info(self, repo: str, filename: str, revision: str) -> Any:
        raise ConnectionError(self.message)

    def download(self, *args: Any, **kwargs: Any) -> Path:
        raise AssertionError("not reached")


def test_the_hubs_words_are_quoted_whole_not_cut_mid_word(tmp_path: Path) -> None:
    hub = FakeHub("a/b", "c.gguf", b"GGUF")
    with pytest.raises(DownloadError) as raised:
        download_model(_entry(hub), dest_dir=tmp_path, hub=_RefusingHub())
    # Before: cut at 200 characters, "...unset the `HF_HUB_OFFLINE` environme. Check the internet..."
    assert "`HF_HUB_OFFLINE` environment variable. Check the internet connection" in str(raised.value)
