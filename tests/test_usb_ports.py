"""port = "auto": the Pico firmware's data channel is found by its USB id and interface.

pyserial's own listing (``ListPortInfo``) is fed entries as Linux reports them for a
CircuitPython Pico (console on interface 00, data on 02), an FTDI adapter, and nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest
from serial.tools.list_ports_common import ListPortInfo

from companion.board.firmware_sim import SimulatedPico
from companion.board.serial_link import SerialLink
from companion.pi.usb_ports import PortNotFound, find_data_port, resolve


def usb_port(
    device: str, vid: int, pid: int, interface: str | None, location: str, product: str
) -> ListPortInfo:
    """A port as serial.tools.list_ports_linux fills it from sysfs."""
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    info.serial_number = "E6614103E7431E2F"
    info.location = location
    info.manufacturer = "Raspberry Pi" if vid == 0x239A else "FTDI"
    info.product = product
    info.interface = interface
    info.description = f"{product} - {interface}" if interface else product
    info.hwid = f"USB VID:PID={vid:04X}:{pid:04X} SER={info.serial_number} LOCATION={location}"
    return info


PICO_CONSOLE = usb_port(
    "/dev/ttyACM0", 0x239A, 0x80F4, "CircuitPython CDC control", "1-1.3:1.0", "Pico"
)
PICO_DATA = usb_port(
    "/dev/ttyACM1", 0x239A, 0x80F4, "CircuitPython CDC2 control", "1-1.3:1.2", "Pico"
)
FTDI = usb_port("/dev/ttyUSB0", 0x0403, 0x6001, None, "1-1.2:1.0", "FT232R USB UART")


def no_links(pattern: str) -> list[str]:
    return []


def test_the_data_interface_is_chosen_never_the_console() -> None:
    for order in ([PICO_CONSOLE, PICO_DATA, FTDI], [FTDI, PICO_DATA, PICO_CONSOLE]):
        assert find_data_port(lambda order=order: order, no_links) == "/dev/ttyACM1"


def test_without_interface_names_the_interface_number_decides() -> None:
    console = usb_port("/dev/ttyACM0", 0x239A, 0x80F4, None, "1-1.3:1.0", "Pico")
    data = usb_port("/dev/ttyACM1", 0x239A, 0x80F4, None, "1-1.3:1.2", "Pico")
    assert find_data_port(lambda: [console, data], no_links) == "/dev/ttyACM1"


def test_a_pico_without_boot_py_is_not_opened_and_the_message_says_what_was_found() -> None:
    with pytest.raises(PortNotFound) as caught:
        find_data_port(lambda: [PICO_CONSOLE, FTDI], no_links)
    message = str(caught.value)
    assert "/dev/ttyACM0 (239A:80F4, CircuitPython CDC control)" in message
    assert "/dev/ttyUSB0 (0403:6001, FT232R USB UART)" in message
    assert "boot.py" in message


def test_no_serial_port_at_all_is_said_plainly() -> None:
    with pytest.raises(PortNotFound, match="no serial ports at all"):
        find_data_port(lambda: [], no_links)


def test_by_id_if02_is_the_fallback_when_the_listing_has_no_usb_details() -> None:
    bare = ListPortInfo("/dev/ttyACM1", skip_link_detection=True)
    links = {"/dev/serial/by-id/*-if02": ["/dev/serial/by-id/usb-Raspberry_Pi_Pico_E661-if02"]}
    assert (
        find_data_port(lambda: [bare], lambda p: links[p]) == links["/dev/serial/by-id/*-if02"][0]
    )


def test_a_named_port_is_used_as_it_is() -> None:
    assert resolve("/dev/ttyACM3", lambda: pytest.fail("no search for a named port")) == (
        "/dev/ttyACM3"
    )


@pytest.fixture
def pico() -> Iterator[SimulatedPico]:
    with SimulatedPico(heartbeat_ms=100, poll_s=0.002) as pico:
        yield pico


def test_the_link_opens_the_port_auto_finds_and_logs_it(
    pico: SimulatedPico, caplog: pytest.LogCaptureFixture
) -> None:
    data = usb_port(pico.url, 0x239A, 0x80F4, "CircuitPython CDC2 control", "1-1:1.2", "Pico")
    caplog.set_level(logging.INFO, logger="companion.board.serial_link")
    with SerialLink(
        "auto",
        on_event=lambda *_: None,
        find_port=lambda: find_data_port(lambda: [PICO_CONSOLE, data], no_links),
        reconnect=(0.02, 0.2),
    ) as link:
        deadline = time.monotonic() + 3
        while not link.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        assert link.connected and link.port_name == pico.url
    assert f"board port: {pico.url}" in caplog.text


def test_the_link_says_once_what_it_found_when_auto_finds_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="companion.board.serial_link")
    with SerialLink(
        "auto",
        on_event=lambda *_: None,
        find_port=lambda: find_data_port(lambda: [FTDI], no_links),
        reconnect=(0.01, 0.02),
    ) as link:
        time.sleep(0.3)
        assert not link.connected and link.stats()["open_failures"] > 3
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "/dev/ttyUSB0 (0403:6001" in warnings[0].getMessage()
