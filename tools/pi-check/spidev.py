"""A stand-in for py-spidev in the emulated Pi (no /dev/spidev0.0 under qemu-user): the
companion's own StandInSpiDev with nothing on the bus.  Only for tools/pi-check.sh."""

from lgpio import opened  # the stand-in beside this file

from companion.board.mock_spi import spidev_on


class _Nothing:
    def exchange(self, bus, device, mode, speed_hz, data):
        opened(f"/dev/spidev{bus}.{device}")
        return bytes(len(data))


SpiDev = spidev_on(_Nothing())
