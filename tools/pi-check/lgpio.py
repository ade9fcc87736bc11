"""A stand-in for lgpio's C library in the emulated Pi (no /dev/gpiochip0 under qemu-user).

Only for tools/pi-check.sh: on PYTHONPATH of the service it lets ``companion run`` start
the real (not --mock) way on gpiozero's LGPIOFactory.  Like lgpio it creates its notify
pipe in $LG_WD (else the working directory), so a unit whose working directory is not
writable fails here as it fails on a Pi.  SPI reads show no magnet (all inputs high).
"""

import itertools
import os

SET_PULL_NONE, SET_PULL_UP, SET_PULL_DOWN = 0, 32, 64
SET_BIAS_DISABLE, SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN = 0, 32, 64
RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3
_OUT = 1 << 1
_modes: dict[int, int] = {}
_levels: dict[int, int] = {}
_spi: dict[int, tuple[int, int]] = {}
_handles = itertools.count(1)


class error(Exception):
    pass


def opened(path):
    """Note a device node the stack opens ($PI_CHECK_DEVICES; pi-check's device step)."""
    record = os.environ.get("PI_CHECK_DEVICES")
    if record:
        with open(record, "a", encoding="utf-8") as out:
            out.write(path + "\n")


def gpiochip_open(chip):
    opened(f"/dev/gpiochip{chip}")
    where = os.environ.get("LG_WD") or os.getcwd()
    pipe = os.path.join(where, f".lgd-nfy{os.getpid()}")
    try:
        if not os.path.exists(pipe):
            os.mkfifo(pipe)
    except OSError as exc:
        raise error(f"can not open notify pipe in {where}: {exc}") from None
    return next(_handles)


def gpiochip_close(handle):
    return 0


def gpio_claim_input(handle, gpio, flags=0):
    _modes[gpio] = flags
    _levels.setdefault(gpio, 1 if flags & SET_PULL_UP else 0)
    return 0


def gpio_claim_output(handle, gpio, level=0, flags=0):
    _modes[gpio] = _OUT
    _levels[gpio] = int(level)
    return 0


def gpio_claim_alert(handle, gpio, edges, flags=0, notify=None):
    _modes[gpio] = flags
    return 0


def gpio_free(handle, gpio):
    _modes.pop(gpio, None)
    return 0


def gpio_get_mode(handle, gpio):
    return _modes.get(gpio, 0)


def gpio_read(handle, gpio):
    return _levels.get(gpio, 0)


def gpio_write(handle, gpio, level):
    _levels[gpio] = int(level)
    return 0


def gpio_set_debounce_micros(handle, gpio, micros):
    return 0


def tx_pwm(handle, gpio, frequency, duty, offset=0, cycles=0):
    return 0


class _Callback:
    def cancel(self):
        pass


def callback(handle, gpio, edge=BOTH_EDGES, func=None):
    return _Callback()


def spi_open(bus, device, baud, flags=0):
    opened(f"/dev/spidev{bus}.{device}")
    handle = next(_handles)
    _spi[handle] = (bus, device)
    return handle


def spi_close(handle):
    _spi.pop(handle)
    return 0


def spi_xfer(handle, data):
    return len(data), bytearray(b"\xff" * len(data))


def spi_read(handle, count):
    return count, bytearray(b"\xff" * count)


def spi_write(handle, data):
    return len(data)
