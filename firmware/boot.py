"""Runs once at power-up, before USB starts: add the data serial port next to the console.

The console (REPL, print, tracebacks) stays on the first port for debugging; the
companion talks to the firmware on the second one (usb_cdc.data).  Changes to this file
take effect only after a hard reset (the RESET button or unplugging the board).
"""

import usb_cdc

usb_cdc.enable(console=True, data=True)
