"""A test that runs a real memory library may not reach past this machine: imported into its
module, this autouse fixture fails the test when anything connects beyond loopback (telemetry,
model downloads). (Not a conftest: other test folders import their own `conftest` by name.)"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator

import pytest

_connect = socket.socket.connect


def _loopback(address: object) -> bool:
    if not isinstance(address, tuple):
        return True  # a Unix socket
    host = str(address[0])
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def guarded_connect(refused: list[object]):  # type: ignore[no-untyped-def]
    """`socket.connect` that refuses, and notes in `refused`, any address beyond loopback."""

    def guarded(self: socket.socket, address: object) -> None:
        if not _loopback(address):
            refused.append(address)
            raise OSError(f"the native tests allow no connection beyond loopback: {address!r}")
        _connect(self, address)

    return guarded


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    refused: list[object] = []
    monkeypatch.setattr(socket.socket, "connect", guarded_connect(refused))
    yield refused
    assert refused == [], f"a library tried to reach {refused}"
