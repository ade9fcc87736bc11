"""systemd's notify protocol over a real unix datagram socket: ready, and the scan loop
feeding the watchdog until the scan thread sticks."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from companion.board.config import default_config
from companion.board.mock_board import MockBoard, mock_factory
from companion.board.sensors import Sensors
from companion.pi.notify import Notifier, Watchdog


@pytest.fixture
def systemd_socket() -> Iterator[tuple[socket.socket, str]]:
    """A datagram socket where systemd would listen (abstract namespace, ``@name``)."""
    name = f"@companion-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name[1:].encode())
    sock.settimeout(2.0)
    yield sock, name
    sock.close()


def messages(sock: socket.socket, seconds: float) -> list[str]:
    """Every datagram that arrives within ``seconds``."""
    deadline = time.monotonic() + seconds
    got = []
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            got.append(sock.recv(4096).decode())
        except TimeoutError:
            break
    return got


def test_ready_and_stopping_reach_systemd(systemd_socket: tuple[socket.socket, str]) -> None:
    sock, name = systemd_socket
    notifier = Notifier({"NOTIFY_SOCKET": name})
    assert notifier.ready("serving on port 8080")
    assert sock.recv(4096) == b"READY=1\nSTATUS=serving on port 8080"
    assert notifier.stopping()
    assert sock.recv(4096) == b"STOPPING=1"


def test_a_path_socket_works_too(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = f"/tmp/notify-{uuid.uuid4().hex[:8]}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        try:
            assert Notifier({"NOTIFY_SOCKET": path}).ready("up")
            assert sock.recv(4096).startswith(b"READY=1")
        finally:
            os.unlink(path)


def test_outside_systemd_nothing_is_sent() -> None:
    notifier = Notifier({})
    assert not notifier.enabled and not notifier.ready("x")
    assert Notifier({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"}).watchdog_s is None


def test_the_scan_loop_feeds_the_watchdog_until_it_sticks(
    systemd_socket: tuple[socket.socket, str],
) -> None:
    sock, name = systemd_socket
    notifier = Notifier({"NOTIFY_SOCKET": name, "WATCHDOG_USEC": "200000"})
    watchdog = Watchdog(notifier)
    assert watchdog.interval == pytest.approx(0.1)
    config = default_config()
    factory = mock_factory(config)
    stuck = threading.Event()
    release = threading.Event()
    try:
        with MockBoard(config, factory), Sensors(config.sensors, pin_factory=factory) as sensors:
            backend_read = sensors._backend.read  # type: ignore[union-attr]

            def read() -> int:
                if stuck.is_set():
                    release.wait(5)  # a scan that hangs (a wedged bus)
                return backend_read()

            sensors._backend.read = read  # type: ignore[union-attr,method-assign]
            sensors.heartbeat = watchdog.kick
            sensors.start()
            pings = messages(sock, 0.6)
            assert 3 <= len(pings) <= 8 and set(pings) == {"WATCHDOG=1"}  # ~every 0.1 s
            stuck.set()
            messages(sock, 0.15)  # a ping may be under way
            assert messages(sock, 0.5) == []  # stuck: systemd would restart the service
            release.set()
            sensors.stop()
    finally:
        release.set()
        factory.close()
        factory.reset()
