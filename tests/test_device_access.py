"""A Pico plugged in after the service started: the link opens without a restart.

qemu and nspawn cannot enforce a device list, so this runs over a stand-in of what a Pi
does at boot: systemd-modules-load loads the modules of the installer's modules-load.d
file before the units ordered after it; at the unit's start systemd turns each
``DeviceAllow=char-NAME`` into the major /proc/devices names then, and skips a name it
does not find (``bpf_devices_allow_list_major``, logged at debug level only).  The
service's opener is refused (EPERM, as the device cgroup refuses) for any other major.
The link is the real SerialLink against the simulated Pico over a pty.
"""

from __future__ import annotations

import errno
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import serial

from companion.board import serial_link
from companion.board.firmware_sim import SimulatedPico
from companion.board.serial_link import SerialLink
from companion.pi.install import MODULES_TEXT, unit_text

#: The names the kernel gives its character majors in /proc/devices, and the module that
#: registers each (gpiochip is built into the Pi's kernel).
MODULE_REGISTERS = {"spidev": ("spi", 153), "cdc_acm": ("ttyACM", 166)}
BUILT_IN = {"gpiochip": 254}


class Kernel:
    """The stand-in kernel: which majors /proc/devices lists."""

    def __init__(self) -> None:
        self.devices = dict(BUILT_IN)

    def modprobe(self, module: str) -> None:
        name, major = MODULE_REGISTERS[module]
        self.devices[name] = major


def directives(unit: str, key: str) -> list[str]:
    """Every value of ``key=`` in the unit, space-separated lists split."""
    values: list[str] = []
    for line in unit.splitlines():
        if line.startswith(f"{key}="):
            values += line.split("=", 1)[1].split()
    return values


def boot_and_start(unit: str, modules_load: str, kernel: Kernel) -> set[int]:
    """The majors the unit may open: modules-load.d runs first only when the unit is
    ordered after it; the DeviceAllow= names are looked up at start, a miss skipped."""
    if "systemd-modules-load.service" in directives(unit, "After"):
        for line in modules_load.splitlines():
            if line.strip() and not line.startswith("#"):
                kernel.modprobe(line.strip())
    names = [
        line.split("=", 1)[1].split()[0].removeprefix("char-")
        for line in unit.splitlines()
        if line.startswith("DeviceAllow=char-")
    ]
    return {kernel.devices[name] for name in names if name in kernel.devices}


def plug_in(pico: SimulatedPico, kernel: Kernel) -> None:
    """The cable goes in: udev loads cdc_acm for the Pico's interface, the node appears."""
    kernel.modprobe("cdc_acm")
    pico.replug()


def policed_opener(pico: SimulatedPico, allowed: set[int]) -> Any:
    """serial_for_url behind the unit's device list: /dev/ttyACM0 is the pico's pty."""

    def opener(url: str, **kwargs: Any) -> Any:
        if not pico.plugged:
            raise serial.SerialException(errno.ENOENT, f"could not open port {url}: gone")
        if MODULE_REGISTERS["cdc_acm"][1] not in allowed:
            raise serial.SerialException(
                errno.EPERM, f"could not open port {url}: [Errno 1] Operation not permitted"
            )
        return serial.serial_for_url(pico.url, **kwargs)

    return opener


@pytest.fixture
def unplugged_pico() -> Iterator[SimulatedPico]:
    fast = {"heartbeat_ms": 100, "snapshot_ms": 500, "host_timeout_ms": 700, "settle_ms": 30}
    with SimulatedPico(**fast, poll_s=0.002) as pico:
        pico.unplug()  # not there when the service starts
        yield pico


def start_link(pico: SimulatedPico, allowed: set[int], connected: threading.Event) -> SerialLink:
    def status(state: str) -> None:
        if state == "connected":
            connected.set()

    return SerialLink(
        "/dev/ttyACM0",
        on_event=lambda *_: None,
        on_status=status,
        reconnect=(0.01, 0.05),
        keepalive=0.1,
        silence=0.5,
        snapshot_retry=0.1,
        opener=policed_opener(pico, allowed),
    )


def test_a_pico_plugged_in_after_start_opens_without_a_restart(
    unplugged_pico: SimulatedPico,
) -> None:
    kernel = Kernel()
    allowed = boot_and_start(unit_text(), MODULES_TEXT, kernel)
    assert allowed == {254, 153, 166}  # gpiochip, spi and ttyACM: nothing more
    connected = threading.Event()
    with start_link(unplugged_pico, allowed, connected) as link:
        assert not connected.wait(0.3)  # no Pico yet: retried quietly
        plug_in(unplugged_pico, kernel)
        assert connected.wait(5), link.stats()
        assert link.device is not None


def test_without_the_modules_first_the_plugged_pico_stays_refused_and_the_log_says_so(
    unplugged_pico: SimulatedPico, caplog: pytest.LogCaptureFixture
) -> None:
    """The unit as it was (no ordering after modules-load.d): ttyACM has no major at start,
    so the Pico plugged in later is refused until a restart; the log says why, once."""
    unit = unit_text().replace("After=systemd-modules-load.service\n", "")
    kernel = Kernel()
    allowed = boot_and_start(unit, MODULES_TEXT, kernel)
    assert 166 not in allowed
    connected = threading.Event()
    caplog.set_level(logging.WARNING, logger=serial_link.__name__)
    with start_link(unplugged_pico, allowed, connected) as link:
        plug_in(unplugged_pico, kernel)
        assert not connected.wait(1.0)
        assert link.stats()["open_failures"] > 10
    warnings = [r.getMessage() for r in caplog.records if "permission denied" in r.getMessage()]
    assert len(warnings) == 1, warnings  # rate-limited: one a minute
    assert "DeviceAllow=char-ttyACM" in warnings[0] and "dialout" in warnings[0]


def test_the_modules_loaded_first_are_those_of_the_units_device_list() -> None:
    loaded = {line for line in MODULES_TEXT.splitlines() if line and not line.startswith("#")}
    assert loaded == {"spidev", "cdc_acm"}
    unit = unit_text()
    assert "systemd-modules-load.service" in directives(unit, "Wants")
    names = {n.removeprefix("char-") for n in directives(unit, "DeviceAllow") if "-" in n}
    assert names == {"gpiochip", "spi", "ttyACM"}
    assert names - set(BUILT_IN) == {MODULE_REGISTERS[m][0] for m in loaded}
