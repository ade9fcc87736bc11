"""Which serial port is the Pico firmware's data channel (``port = "auto"``).

CircuitPython with boot.py's ``usb_cdc.enable(console=True, data=True)`` shows two USB
serial ports: the console (interface 00, named "CircuitPython CDC control") and the data
channel (interface 02, "CircuitPython CDC2 control").  Opening the console by mistake
sends 0x03/0x04 and soft-reloads the board again and again, so it is never chosen: the
data port is the one whose USB interface says CDC2 or whose interface number is 02, on a
board with Adafruit's USB vendor id (0x239A, which CircuitPython uses).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterable
from typing import Any

from serial.tools import list_ports

#: USB vendor id of CircuitPython boards (Adafruit's, lent to every CircuitPython build).
CIRCUITPYTHON_VID = 0x239A
#: Where udev names serial ports by their USB id; the data channel ends in "-if02".
BY_ID_PATTERN = "/dev/serial/by-id/*-if02"
AUTO = "auto"


class PortNotFound(ValueError):
    """No CircuitPython data port is plugged in; the message says what was found."""


def _interface_number(info: Any) -> int | None:
    """The USB interface number from a location such as ``1-1.3:1.2`` (None if absent)."""
    location = getattr(info, "location", None) or ""
    _, _, tail = location.rpartition(":")
    _, dot, number = tail.rpartition(".")
    return int(number) if dot and number.isdigit() else None


def is_data_port(info: Any) -> bool:
    """True for a CircuitPython board's data channel, never for its console."""
    if getattr(info, "vid", None) != CIRCUITPYTHON_VID:
        return False
    interface = getattr(info, "interface", None) or ""
    if interface:
        return "CDC2" in interface
    return _interface_number(info) == 2


def describe(info: Any) -> str:
    """One line naming a port for a log or an error message."""
    vid, pid = getattr(info, "vid", None), getattr(info, "pid", None)
    ids = f"{vid:04X}:{pid:04X}" if vid is not None and pid is not None else "no USB id"
    interface = getattr(info, "interface", None) or getattr(info, "description", "") or ""
    return f"{info.device} ({ids}, {interface})"


def find_data_port(
    comports: Callable[[], Iterable[Any]] = list_ports.comports,
    by_id: Callable[[str], list[str]] = glob.glob,
) -> str:
    """The device path of the Pico firmware's data channel; ``PortNotFound`` if none.

    ``comports`` is pyserial's listing and ``by_id`` a glob over /dev/serial/by-id (the
    fallback when the listing carries no USB details); both are parameters for tests.
    """
    ports = sorted(comports(), key=lambda info: info.device)
    matches = [info.device for info in ports if is_data_port(info)]
    if matches:
        return str(matches[0])
    links = sorted(by_id(BY_ID_PATTERN))
    if links:
        return os.path.realpath(links[0]) if os.path.exists(links[0]) else links[0]
    if ports:
        found = "; ".join(describe(info) for info in ports)
    else:
        found = "no serial ports at all (is the Pico plugged in?)"
    raise PortNotFound(
        f"no CircuitPython data port (USB {CIRCUITPYTHON_VID:04X}, interface CDC2/02) among: "
        f"{found}. Copy boot.py to the board (companion firmware install) and press RESET, "
        'or name the port in [sensors] port = "/dev/ttyACM1"'
    )


def resolve(port: str, finder: Callable[[], str] = find_data_port) -> str:
    """``port`` itself, or the data channel found now when it is ``"auto"``."""
    return finder() if port == AUTO else port
