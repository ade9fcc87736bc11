"""Runs once at power-up, before USB starts: the data serial port, and the "play" jumper.

The console (REPL, print, tracebacks) stays on the first port for debugging; the
companion talks to the firmware on the second one (usb_cdc.data).  With the play jumper
closed (a jumper at the spare matrix crossing settings.PLAY_JUMPER, hardware/README.md),
the CIRCUITPY drive is hidden from the Pi, so nothing the Pi does to a mounted drive can
reload the board mid-game; open the jumper and reset to update the firmware.

The jumper is read as keypad reads any crossing: its row driven, its column read with a
pull towards the other level, through the crossing's diode.  The strip's data line is
never touched here (it keeps its pull-down until the NeoPixel driver starts), so a reset
sends the strip nothing.  Changes to this file take effect only after a hard reset.
"""

import time

import board
import digitalio
import settings
import storage
import usb_cdc

usb_cdc.enable(console=True, data=True)


def play_jumper_closed():
    # type: () -> bool
    """Whether the jumper at the crossing settings.PLAY_JUMPER is closed (False: none)."""
    index = getattr(settings, "PLAY_JUMPER", None)
    if index is None or getattr(settings, "SCANNER", "matrix") != "matrix":
        return False
    columns = settings.COLUMN_PINS
    row_name, column_name = settings.ROW_PINS[index // len(columns)], columns[index % len(columns)]
    # Anodes on the columns (the default): the diode passes column -> row, so drive the
    # row low and pull the column up; the other way round, drive it high and pull down.
    anodes = getattr(settings, "COLUMNS_TO_ANODES", True)
    row = digitalio.DigitalInOut(getattr(board, row_name))
    column = digitalio.DigitalInOut(getattr(board, column_name))
    try:
        row.switch_to_output(value=not anodes)
        column.switch_to_input(pull=digitalio.Pull.UP if anodes else digitalio.Pull.DOWN)
        time.sleep(0.001)  # the column wire settles (10 kOhm against tens of pF: microseconds)
        return column.value != anodes
    finally:
        row.deinit()  # both pins back to inputs: keypad takes them in code.py
        column.deinit()


if play_jumper_closed():
    storage.disable_usb_drive()
