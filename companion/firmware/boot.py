"""Runs once at power-up, before USB starts: the data serial port, and the "play" jumper.

The console (REPL, print, tracebacks) stays on the first port for debugging; the
companion talks to the firmware on the second one (usb_cdc.data).  With the jumper of
settings.HIDE_DRIVE_PIN closed (10 kOhm from that pin to GND, hardware/README.md), the
CIRCUITPY drive is hidden from the Pi, so nothing the Pi does to a mounted drive can
reload the board mid-game; open the jumper and reset to update the firmware.  Changes
to this file take effect only after a hard reset (RESET, or unplugging the board).
"""

import board
import digitalio
import settings
import storage
import usb_cdc

usb_cdc.enable(console=True, data=True)

_pin_name = getattr(settings, "HIDE_DRIVE_PIN", None)
if _pin_name:
    _jumper = digitalio.DigitalInOut(getattr(board, _pin_name))
    _jumper.switch_to_input(pull=digitalio.Pull.UP)  # ~50 kOhm up against the 10 kOhm down
    _closed = not _jumper.value
    _jumper.deinit()
    if _closed:
        storage.disable_usb_drive()
