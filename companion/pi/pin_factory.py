"""Which gpiozero pin factory the board uses, chosen on purpose and logged at start-up.

On every Pi this project supports (3, 4, 5 and Zero 2 W, Raspberry Pi OS Bookworm) it is
gpiozero's lgpio factory: lgpio talks to the kernel's ``/dev/gpiochip*`` (the only GPIO
interface a Pi 5 has) and opens the hardware SPI bus itself, so no RPi.GPIO, pigpio
daemon or ``/dev/mem`` is involved.  gpiozero's own fallback order would silently pick
whatever imports (on a Pi 5 nothing works but lgpio; its native factory has no PWM for
the buzzer), so a missing lgpio is a start-up error that says what to install.

lgpio writes its notify pipes in its working directory, or in ``$LG_WD``: the service
points ``LG_WD`` at its runtime directory, emptied at every stop (a read-only ``/`` under
``ProtectSystem=strict`` makes gpiozero fall away from lgpio, gpiozero #1106).
"""

from __future__ import annotations

import importlib
import logging
import os
from typing import Any

from companion.errors import StartupError

log = logging.getLogger(__name__)


class PinFactoryUnavailable(StartupError, RuntimeError):
    """The Pi's pin factory could not open: says what to install or enable."""


def open_pin_factory(*, chip: int | None = None) -> Any:
    """gpiozero's ``LGPIOFactory`` on this Pi, with a start-up log line naming it."""
    try:
        module = importlib.import_module("gpiozero.pins.lgpio")
    except ImportError as exc:
        raise PinFactoryUnavailable(
            f"the board's hardware cannot be used here: the lgpio library is missing ({exc}). "
            "On a Pi, install it with sudo ./install.sh (or pip install lgpio in the "
            "companion's venv); without the board, start with --mock (a simulated board)."
        ) from exc
    try:
        factory = module.LGPIOFactory(chip=chip)
    except Exception as exc:
        raise PinFactoryUnavailable(
            f"gpiozero's lgpio pin factory did not open ({type(exc).__name__}: {exc}): "
            "is this a Raspberry Pi, and may this user open /dev/gpiochip* (group gpio)?"
        ) from exc
    log.info("pin factory: %s", describe(factory))
    log_pending_reboot()
    return factory


def log_pending_reboot() -> str | None:
    """Warn at start while config.txt changes of the installer wait for a reboot (the SPI
    overlays, the core clock the NeoPixels' timing needs); returns the warning."""
    from companion.pi.install import reboot_needed  # standard library only

    advice = reboot_needed()
    if advice:
        log.warning("%s", advice)
    return advice


def describe(factory: Any) -> str:
    """One line for the log: the factory, its chip and the board it found."""
    name = type(factory).__name__
    parts = [name]
    chip = getattr(factory, "chip", None)
    if chip is not None:
        parts.append(f"on /dev/gpiochip{chip}")
    try:
        info = factory.board_info
        parts.append(f"({info.model} rev {info.pcb_revision}, {info.soc})")
    except Exception:  # a factory without board info (e.g. not a Pi): say so
        parts.append("(board unknown)")
    working = os.environ.get("LG_WD")
    if working:
        parts.append(f"LG_WD={working}")
    return " ".join(parts)
