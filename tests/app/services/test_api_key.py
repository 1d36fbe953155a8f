"""The remote server's API key: $PAGEWISE_API_KEY, else the keyring's entry for that server, else
none; a system without a keyring reads none and refuses to store, naming the variable.

Every test runs with an in-memory keyring (tests/conftest.py: ``memory_keyring``)."""

from __future__ import annotations

from typing import Any

import pytest

from app.services.api_key import (
    ENV_API_KEY,
    SERVICE,
    KeyringUnavailable,
    KeySource,
    api_key,
    key_source,
    store_key,
    stored_key,
)
from tests.conftest import MemoryKeyring

URL = "http://gpu-box:8080"


def test_the_environment_variable_beats_the_keyring(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert api_key(URL) is None and key_source(URL) is KeySource.NONE
    store_key(URL, "from-keyring")
    assert memory_keyring.entries == {(SERVICE, URL): "from-keyring"}
    assert api_key(URL) == "from-keyring" and key_source(URL) is KeySource.KEYRING
    monkeypatch.setenv(ENV_API_KEY, " from-env ")
    assert api_key(URL) == "from-env" and key_source(URL) is KeySource.ENVIRONMENT
    assert api_key("http://another:9000") == "from-env"  # the variable goes to whichever server is used


def test_a_stored_key_belongs_to_its_server_only() -> None:
    store_key(URL + "/v1/", "k1")  # the address as typed: the entry is the server's base address
    assert api_key(URL) == api_key(URL + "/v1") == "k1"
    assert api_key("http://gpu-box:8081") is None and api_key("https://gpu-box:8080") is None
    assert api_key("") is None


def test_an_empty_key_removes_the_stored_one(memory_keyring: MemoryKeyring) -> None:
    store_key(URL, "k1")
    store_key(URL, "")
    assert stored_key(URL) is None and memory_keyring.entries == {}
    store_key(URL, "")  # none to remove: fine


@pytest.mark.usefixtures("no_keyring")
def test_without_a_keyring_reading_gives_none_and_storing_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    assert api_key(URL) is None and key_source(URL) is KeySource.NO_KEYRING
    with pytest.raises(KeyringUnavailable, match=rf"no keyring.*Set the {ENV_API_KEY} environment variable"):
        store_key(URL, "k1")
    monkeypatch.setenv(ENV_API_KEY, "from-env")
    assert api_key(URL) == "from-env" and key_source(URL) is KeySource.ENVIRONMENT


def test_a_keyring_that_fails_reads_as_none_and_a_refused_store_is_a_typed_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A locked store or a D-Bus error: no key is sent, and Save says the keyring refused."""
    import keyring
    from keyring.errors import KeyringLocked

    class Locked(MemoryKeyring):
        def get_password(self, service: str, username: str) -> Any:
            raise RuntimeError("org.freedesktop.DBus.Error.ServiceUnknown")

        def set_password(self, service: str, username: str, password: str) -> None:
            raise KeyringLocked("the collection is locked")

    keyring.set_keyring(Locked())
    assert api_key(URL) is None
    with pytest.raises(KeyringUnavailable, match=r"refused to store the API key for http://gpu-box:8080.*locked"):
        store_key(URL, "k1")
