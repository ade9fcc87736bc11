"""The firmware's entry point on the Pico: build the hardware objects, then run forever.

All the logic lives in firmware.py (tested on a PC with stand-ins); this file only wires
CircuitPython's real keypad, neopixel, digitalio and usb_cdc objects into it.
"""

import time

import board
import digitalio
import keypad
import neopixel
import settings
import usb_cdc

import firmware


def clock():
    """Milliseconds since boot (monotonic_ns keeps ms precision, unlike monotonic)."""
    return time.monotonic_ns() // 1000000


if usb_cdc.data is None:
    # boot.py has not run yet: it only takes effect after a hard reset.
    while True:
        print("No usb_cdc data port: copy boot.py to CIRCUITPY and press RESET.")
        time.sleep(5)

keys = firmware.make_keys(settings, board, keypad)
pixels = firmware.make_pixels(settings, board, neopixel)
status_led = firmware.make_status_led(settings, board, digitalio)
usb_cdc.data.timeout = 0
usb_cdc.data.write_timeout = 0.1  # a host that stops reading must not stall the loop
print(
    "pyramid board firmware",
    firmware.VERSION,
    "-",
    keys.key_count,
    "sensors,",
    len(pixels),
    "pixels",
)
firmware.Firmware.from_settings(settings, keys, pixels, usb_cdc.data, clock, status_led).run()
