"""The firmware's entry point on the Pico: build the hardware objects, then run forever.

All the logic lives in firmware.py (tested on a PC with stand-ins); this file only wires
CircuitPython's real keypad, neopixel, digitalio, usb_cdc, supervisor and watchdog into
it.  The watchdog resets a board whose loop hangs.

An exception restarts the firmware, on the first run after power-up as on every later
one: ``supervisor.set_next_code_file(None, reload_on_error=True)`` only takes effect from
the *next* run (CircuitPython reads it when a run ends), so on its own the first crash
after power-up would leave the board at the REPL until the watchdog's 5 s ran out, and
only if the crash came after the watchdog was armed.  Here the whole run sits in a
``try``: any ``Exception`` is printed on the console and the board reloads itself
(``supervisor.reload()``) after ``RESTART_DELAY_S``, whatever run it is.  Ctrl-C on the
console (``KeyboardInterrupt``, no ``Exception``) still stops at the REPL for debugging;
``reload_on_error`` stays set for what the ``try`` cannot catch (an error while this
file itself is compiled).
"""

import time

import supervisor

#: Seconds the loop may stall before the watchdog resets the board (the RP2040 allows 8.3).
WATCHDOG_S = 5.0
#: Seconds between an error and the reload: the console shows the traceback, and a board
#: that fails at every start does not spin (well inside the watchdog's 5 s).
RESTART_DELAY_S = 1.0

# From the next run on, an uncaught error runs code.py again (not the REPL prompt).
supervisor.set_next_code_file(None, reload_on_error=True)


def clock():
    # type: () -> int
    """Milliseconds since boot (monotonic_ns keeps ms precision, unlike monotonic)."""
    return time.monotonic_ns() // 1000000


def playing(active):
    # type: (bool) -> None
    """No autoreload while a host plays: a write to CIRCUITPY must not restart the board."""
    supervisor.runtime.autoreload = not active


def main():
    # type: () -> None
    """Build the board's objects from settings.py and run the firmware until an error."""
    import board
    import digitalio
    import keypad
    import microcontroller
    import neopixel  # type: ignore[import-untyped]  # a library (lib/neopixel.py), no stubs
    import settings
    import usb_cdc
    import watchdog

    import firmware

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


try:
    main()
except Exception as error:  # every error restarts; Ctrl-C (no Exception) does not
    print("firmware error, restarting in", RESTART_DELAY_S, "s:", repr(error))
    try:
        import traceback

        traceback.print_exception(error)
    except ImportError:  # a build without traceback: the line above said what it was
        pass
    time.sleep(RESTART_DELAY_S)
    supervisor.reload()
