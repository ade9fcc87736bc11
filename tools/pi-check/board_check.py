"""Run inside the emulated Pi by tools/pi-check.sh with the installed venv's python.

Opens the whole board stack as ``companion run`` does on a Pi: the real compiled lgpio
and spidev load; gpiozero's LGPIOFactory (board from the fake /proc/cpuinfo) with its
LGPIOHardwareSPI reads the 74HC165 chain, adafruit's neopixel_spi draws a frame whose
SPI bytes decode back to the colours, pyserial opens a port.  The kernel's edge
(gpiochip, spidev) is the stand-ins' from tools/pi-check/, since qemu-user has no GPIO.
"""

import importlib
import sys
from importlib import metadata

expected_model = sys.argv[1]

# 1. The real compiled back-ends import on this architecture.
real_lgpio = importlib.import_module("lgpio")
real_spidev = importlib.import_module("spidev")
versions = {name: metadata.version(name) for name in ("lgpio", "spidev", "gpiozero")}
print("real compiled modules import:", ", ".join(f"{k} {v}" for k, v in versions.items()))
try:
    real_lgpio.gpiochip_open(0)
except real_lgpio.error as exc:
    print(f"real lgpio: /dev/gpiochip0 is absent here as expected ({exc})")

# 2. Stand-ins at the kernel's edge from here on.
sys.modules.pop("lgpio")
sys.modules.pop("spidev")
sys.path.insert(0, sys.argv[2])
importlib.import_module("lgpio")

from companion.board.config import default_config  # noqa: E402
from companion.board.mock_spi import spidev_on  # noqa: E402
from companion.board.pixels import NeoPixelStrip  # noqa: E402
from companion.board.shift_register import ShiftRegisterChain  # noqa: E402
from companion.pi.pin_factory import describe, open_pin_factory  # noqa: E402

factory = open_pin_factory()
line = describe(factory)
print("pin factory:", line)
assert type(factory).__name__ == "LGPIOFactory" and expected_model in line, line
s = default_config().sensors
with ShiftRegisterChain(
    s.clock_pin, s.data_pin, s.select_pin, s.load_pin, s.chips, pin_factory=factory
) as chain:
    assert type(chain.spi).__name__ == "LGPIOHardwareSPI", chain.spi
    assert chain.read() == (1 << 8 * s.chips) - 1
    print(f"74HC165 chain: {s.chips} chips read through {type(chain.spi).__name__}")


from lgpio import opened  # noqa: E402  (the stand-in: records the nodes opened)


class Wire:
    data = b""

    def exchange(self, bus, device, mode, speed_hz, data):
        opened(f"/dev/spidev{bus}.{device}")
        Wire.data = data
        return bytes(len(data))


class Spidev:
    SpiDev = spidev_on(Wire())


colours = [(255, 0, 0), (0, 128, 0), (1, 2, 3)]
with NeoPixelStrip(10, 3, "GRB", spidev=Spidev) as strip:
    strip[:] = colours
    strip.show()
    bits = Wire.data.strip(b"\0")
    raw = bytes(
        int("".join("1" if b == 0xF0 else "0" for b in bits[i : i + 8]), 2)
        for i in range(0, len(bits), 8)
    )
    shown = [(raw[i + 1], raw[i], raw[i + 2]) for i in range(0, len(raw), 3)]
    assert shown == colours, shown
    print(f"NeoPixels: neopixel_spi frame on /dev/spidev0.0 decodes to {shown}")

import serial  # noqa: E402

from companion.pi import usb_ports  # noqa: E402


class PicoPort:
    """What pyserial lists for a Pico with the board firmware (reference design 2)."""

    device, vid, pid, interface = "/dev/ttyACM1", 0x239A, 0x80F4, "CircuitPython CDC2 control"


class ConsolePort(PicoPort):
    device, interface = "/dev/ttyACM0", "CircuitPython CDC control"


pico = usb_ports.find_data_port(lambda: [ConsolePort(), PicoPort()], lambda _: [])
opened(pico)
print(f"Pico data port found by port = auto: {pico}")

with serial.serial_for_url("loop://", timeout=1) as port:
    port.write(b"ping")
    assert port.read(4) == b"ping"
print(f"pyserial {serial.__version__}: loop:// port round trip")
factory.close()
print("board stack: OK")
