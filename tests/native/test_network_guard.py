"""The guard the native tests run under refuses what it should and nothing else."""

from __future__ import annotations

import socket

import pytest
from network_guard import guarded_connect

from memshift_tools.localserver import LocalServer, canned_answer


def test_a_connection_beyond_loopback_is_refused_and_noted():
    refused: list[object] = []
    connect = guarded_connect(refused)
    with socket.socket() as s, pytest.raises(OSError, match="beyond loopback"):
        connect(s, ("192.0.2.1", 80))
    assert refused == [("192.0.2.1", 80)]


def test_loopback_and_unix_sockets_pass(tmp_path):
    refused: list[object] = []
    connect = guarded_connect(refused)
    with LocalServer(canned_answer) as server, socket.socket() as s:
        connect(s, ("127.0.0.1", int(server.url.rsplit(":", 1)[1])))
    with socket.socket(socket.AF_UNIX) as s, pytest.raises(FileNotFoundError):
        connect(s, str(tmp_path / "absent.sock"))
    assert refused == []
