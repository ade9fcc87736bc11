"""The firmware's entry point on the Pico: build the hardware objects, then run forever.

All the logic lives in firmware.py (tested on a PC with stand-ins); this file only wires
CircuitPython's real keypad, neopixel, digitalio, usb_cdc, supervisor and watchdog into
it.  An exception restarts the firmware instead of halting the board until a reset, and
the watchdog resets a board whose loop hangs.
"""

import time

import board
import digitalio
import keypad
import microcontroller
import neopixel  # type: ignore[import-untyped]  # a library (lib/neopixel.py), no stubs
import settings
import supervisor
import usb_cdc
import watchdog

import firmware

#: Seconds the loop may stall before the watchdog resets the board (the RP2040 allows 8.3).
WATCHDOG_S = 5.0

# After an uncaught exception, run code.py again (instead of waiting at the REPL prompt).
supervisor.set_next_code_file(None, reload_on_error=True)


def clock():
    # type: () -> int
    """Milliseconds since boot (monotonic_ns keeps ms precision, unlike monotonic)."""
    return time.monotonic_ns() // 1000000


def playing(active):
    # type: (bool) -> None
    """No autoreload while a host plays: a write to CIRCUITPY must not restart the board."""
    supervisor.runtime.autoreload = not active


data = usb_cdc.data
if data is None:
    # boot.py has not run yet: it only takes effect after a hard reset.
    while True:
        print("No usb_cdc data port: copy boot.py to CIRCUITPY and press RESET.")
        time.sleep(5)

keys = firmware.make_keys(settings, board, keypad)
pixels = firmware.make_pixels(settings, board, neopixel)
status_led = firmware.make_status_led(settings, board, digitalio)
data.timeout = 0
data.write_timeout = 0.1  # a host that stops reading must not stall the loop
print("pyramid board firmware", firmware.VERSION, "-", keys.key_count, "sensors,", len(pixels))
dog = microcontroller.watchdog
if dog is not None:
    dog.timeout = WATCHDOG_S
    dog.mode = watchdog.WatchDogMode.RESET
board_firmware = firmware.Firmware.from_settings(
    settings, keys, pixels, data, clock, status_led, on_playing=playing
)
board_firmware.run(None if dog is None else dog.feed)
