"""Wiring tables and the LED power budget, generated from a board config.

The tables say, for every cell and pad, which chip input (or matrix crossing, or
GPIO pin) its sensor is wired to and which pixel lights it, in the same terms the
software uses: they are computed from ``BoardConfig`` with the documented bit order
(docs/board-config.md), so a board wired from them reads correctly.

- ``shift_register`` (reference design 1): sensor index ``8 x chip + input`` with
  inputs A to H = 0 to 7; chip 0 is the first of the chain (SER grounded), the last
  chip's QH goes to the Pi.  ``companion.board.shift_register`` reads it this way.
- ``matrix`` (on the Pi): index ``row x number of columns + column``.
- ``gpio``: index ``i`` is ``pins[i]``.
- ``serial`` (reference design 2): the Pico reports indices; the firmware's
  ``settings.py`` wires them as a diode matrix (``PicoMatrix`` mirrors its defaults,
  and a test keeps the two equal).

``wiring_page`` assembles everything as sections of tables, written as Markdown
(hardware/wiring-*.md) or plain text (``companion wiring``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.board.config import SPI1_PINS, BoardConfig

from .builds import (
    MAGNET_DIAMETER_MM,
    MAGNET_GRADE,
    MAGNET_HEIGHT_MM,
    RECOMMENDED,
    STACK,
    Recommended,
)
from .clock import longest_lumped_mm
from .clock import summary as clock_summary

#: BCM GPIO number -> physical pin of the Raspberry Pi's 40-pin header.
PI_HEADER = {
    2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33,
    14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18,
    25: 22, 26: 37, 27: 13,
}  # fmt: skip
#: Second functions worth knowing when wiring (SPI0 drives the strip, SPI1 reads the chain).
PI_FUNCTIONS = {
    2: "I2C1 SDA",
    3: "I2C1 SCL",
    7: "SPI0 CE1",
    8: "SPI0 CE0",
    9: "SPI0 MISO",
    10: "SPI0 MOSI",
    11: "SPI0 SCLK",
    12: "PWM0",
    13: "PWM1",
    14: "UART TXD",
    15: "UART RXD",
    18: "SPI1 CE0",
    19: "SPI1 MISO",
    20: "SPI1 MOSI",
    21: "SPI1 SCLK",
}
PI_3V3_PINS = (1, 17)
PI_5V_PINS = (2, 4)
PI_GND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)

#: The 74HC165's DIP/SOIC pin of each parallel input.
HC165_INPUT_PINS = {"A": 11, "B": 12, "C": 13, "D": 14, "E": 3, "F": 4, "G": 5, "H": 6}
INPUTS = "ABCDEFGH"

#: Raspberry Pi Pico: GPn -> physical pin.
PICO_PINS = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip


@dataclass(frozen=True)
class PicoMatrix:
    """The Pico's diode matrix as companion/firmware/settings.py wires it by default."""

    row_pins: tuple[str, ...] = tuple(f"GP{n}" for n in range(12))
    column_pins: tuple[str, ...] = (*(f"GP{n}" for n in range(12, 23)), "GP26", "GP27")
    pixel_pin: str = "GP28"
    #: Each diode's anode on the column wire, its stripe (cathode) towards the row.
    columns_to_anodes: bool = True
    #: The play jumper's crossing (settings.PLAY_JUMPER): row 11 x column 12, spare.
    play_jumper: int | None = 155

    def crossing(self, index: int) -> tuple[str, str]:
        """The row and column pins of sensor index ``index``."""
        row, column = divmod(index, len(self.column_pins))
        return self.row_pins[row], self.column_pins[column]

    @property
    def count(self) -> int:
        """Crossings, so sensor indices (rows x columns)."""
        return len(self.row_pins) * len(self.column_pins)


FIRMWARE_MATRIX = PicoMatrix()


#: The pull-up on every matrix column wire (the BOM buys 10 kohm; 4.7 kohm works too).
COLUMN_PULLUP = "10 kohm"
#: In series with the 74HC165 clock at the Pi (33-100 ohm).
CLOCK_RESISTOR = "47 ohm"
#: From the Pico's LED data pin to GND.
PULL_DOWN = "10 kohm"
#: What one pixel is: pieces that fit the 25 mm pitch.
LED_PIECES = (
    "one WS2812B cut from a 60/m strip (10 x 16.7 mm, laid along the row) or on a 10 mm round board"
)


def pico_pin(name: str) -> str:
    """``"GP12 (pin 16)"``."""
    return f"{name} (pin {PICO_PINS[int(name[2:])]})"


def pi_pin(gpio: int) -> str:
    """``"GPIO10 (pin 19)"``."""
    return f"GPIO{gpio} (pin {PI_HEADER[gpio]})"


@dataclass(frozen=True)
class SensorWire:
    """Where one logical position's sensor is wired."""

    position: int
    name: str
    index: int
    chip: int | None = None
    input: str | None = None
    row: int | None = None
    column: int | None = None
    pin: str | None = None

    @property
    def short(self) -> str:
        """A label small enough for a cell: ``"U3 E"``, ``"R2 C7"``, ``"GPIO17"``."""
        if self.chip is not None:
            return f"U{self.chip} {self.input}"
        if self.row is not None:
            return f"R{self.row} C{self.column}"
        if self.pin is not None:
            return self.pin.split(" ")[0]
        return f"#{self.index}"

    @property
    def where(self) -> str:
        """In words: ``"chip 3 input E (pin 3)"``, ``"row 2 x column 7"``, ``"GPIO17 (pin 11)"``."""
        if self.chip is not None and self.input is not None:
            return f"chip {self.chip} input {self.input} (pin {HC165_INPUT_PINS[self.input]})"
        if self.row is not None:
            return f"row {self.row} x column {self.column}"
        if self.pin is not None:
            return self.pin
        return f"sensor {self.index}"


def sensor_wires(config: BoardConfig, pico: PicoMatrix = FIRMWARE_MATRIX) -> tuple[SensorWire, ...]:
    """Every position's sensor wiring, in position order (cells, camp, sarcophagus)."""
    sensors = config.sensors
    wires = []
    for position, index in enumerate(sensors.indices):
        name = config.position_name(position)
        if sensors.backend == "shift_register":
            chip, bit = divmod(index, 8)
            wire = SensorWire(position, name, index, chip=chip, input=INPUTS[bit])
        elif sensors.backend == "matrix":
            row, column = divmod(index, len(sensors.column_pins))
            wire = SensorWire(position, name, index, row=row, column=column)
        elif sensors.backend == "gpio":
            wire = SensorWire(position, name, index, pin=pi_pin(sensors.pins[index]))
        elif sensors.count == pico.count:
            row, column = divmod(index, len(pico.column_pins))
            wire = SensorWire(position, name, index, row=row, column=column)
        else:
            wire = SensorWire(position, name, index)
        wires.append(wire)
    return tuple(wires)


@dataclass(frozen=True)
class LedRun:
    """Consecutive pixels in a straight line (or along one room's slots)."""

    first: int
    last: int
    start: str
    end: str
    heading: str


def pixel_positions(config: BoardConfig) -> list[int | None]:
    """The logical position of every pixel on the strip (None: not used)."""
    positions: list[int | None] = [None] * config.leds.count
    for position, index in enumerate(config.leds.indices):
        positions[index] = position
    return positions


def _step(config: BoardConfig, a: int, b: int) -> str | None:
    """The heading from position a to the next pixel's position b, if they are neighbours."""
    cells = config.cells
    if a < cells and b < cells:
        (ra, ca), (rb, cb) = divmod(a, config.columns), divmod(b, config.columns)
        return {(0, 1): "east", (0, -1): "west", (1, 0): "south", (-1, 0): "north"}.get(
            (rb - ra, cb - ca)
        )
    camp, sarc = config.camp_positions(), config.sarcophagus_positions()
    for room in (camp, sarc):
        if a in room and b == a + 1 and b in room:
            return "next slot"
    return None


def led_runs(config: BoardConfig) -> list[LedRun]:
    """The strip's path through the board, as runs of pixels in one direction."""
    positions = pixel_positions(config)
    runs: list[LedRun] = []
    first = 0
    heading: str | None = None
    for pixel in range(1, len(positions) + 1):
        prev = positions[pixel - 1]
        here = positions[pixel] if pixel < len(positions) else None
        step = None if prev is None or here is None else _step(config, prev, here)
        if step is not None and (heading is None or step == heading) and pixel - first >= 1:
            heading = step
            continue
        start, end = positions[first], prev
        runs.append(
            LedRun(
                first,
                pixel - 1,
                "unused" if start is None else config.position_name(start),
                "unused" if end is None else config.position_name(end),
                heading or "",
            )
        )
        first, heading = pixel, None
    return runs


@dataclass(frozen=True)
class PowerBudget:
    """What the LEDs can draw and what supply they need (all in mA unless named)."""

    pixels: int
    milliamps_per_channel: float
    full_white: float
    idle: float
    limit: float
    brightness: float
    pixels_at_full_white: int
    share_of_full_white: float
    supply_amps: float


def power_budget(config: BoardConfig) -> PowerBudget:
    """The LED budget: worst case, what the limit allows, and the supply to buy.

    The supply is sized for the software limit plus 25 % headroom (a supply run
    continuously at its rating runs hot and sags), rounded up to half an ampere.
    """
    leds = config.leds
    per_pixel = 3 * leds.milliamps_per_channel
    idle = leds.count * leds.idle_milliamps
    full = leds.count * per_pixel + idle
    budget = leds.max_milliamps - idle
    return PowerBudget(
        pixels=leds.count,
        milliamps_per_channel=leds.milliamps_per_channel,
        full_white=full,
        idle=idle,
        limit=leds.max_milliamps,
        brightness=leds.brightness,
        pixels_at_full_white=min(leds.count, math.floor(budget / per_pixel)),
        share_of_full_white=min(1.0, budget / (leds.count * per_pixel)),
        supply_amps=math.ceil(leds.max_milliamps * 1.25 / 500.0 - 1e-9) / 2.0,
    )


#: The LED power wiring the guide prescribes, and what the voltage drops assume: 5 V and
#: GND bus wires of 0.75 mm2 (18 AWG) along the board's side, one pitch between the rows'
#: taps; 0.2 mm2 (24 AWG) 5 V and GND jumpers from pixel to pixel, one pitch long;
#: copper at 0.0175 ohm mm2/m; the supply at the bus's first tap.
BUS_MM2 = 0.75
JUMPER_MM2 = 0.2
COPPER_OHM_MM2_PER_M = 0.0175
#: The WS2812B's lowest supply voltage (its datasheet: 3.5 to 5.3 V).
WS2812B_MIN_VOLTS = 3.5


@dataclass(frozen=True)
class LedFeed:
    """How far the 5 V sags at the worst pixel when the LEDs draw the configured limit,
    all of it where it hurts most (volts, 5 V and GND wires together)."""

    runs: int  # the rows (and pad groups) fed from the bus, each at its first pixel
    drop_every_row: float  # fed into every row, as the guide says
    drop_one_end: float  # fed at pixel 0 only, through every jumper: the mistake

    @property
    def lowest_one_end(self) -> float:
        return 5.0 - self.drop_one_end


def _ladder_drop(segment_ohms: Sequence[float], beyond: Sequence[float], limit: float) -> float:
    """The drop along a line of segments (supply first) when each carries at most what
    the pixels beyond it can draw and at most ``limit`` (mA); both wires counted."""
    return 2 * sum(r * min(limit, i) / 1000.0 for r, i in zip(segment_ohms, beyond, strict=True))


def led_feed(config: BoardConfig) -> LedFeed:
    """The worst voltage drop of the LED supply wiring, fed into every row or at one end.

    An upper bound: each wire carries the most the pixels beyond it can draw (every
    pixel at full white), capped by ``leds.max_milliamps``, which is what the limiter
    lets the strip draw when a frame lights the far pixels.
    """
    leds, pitch_m = config.leds, config.cell_pitch_mm / 1000.0
    per_pixel = 3 * leds.milliamps_per_channel + leds.idle_milliamps
    bus = COPPER_OHM_MM2_PER_M * pitch_m / BUS_MM2
    jumper = COPPER_OHM_MM2_PER_M * pitch_m / JUMPER_MM2
    runs = [run.last - run.first + 1 for run in led_runs(config)]
    worst = 0.0
    for k, pixels in enumerate(runs):
        # The bus up to this run's tap (the tap of run 0 is the supply), then the run.
        to_tap = [bus] * k
        through_bus = [per_pixel * sum(runs[j:]) for j in range(1, k + 1)]
        along = [jumper] * (pixels - 1)
        through_run = [per_pixel * (pixels - j) for j in range(1, pixels)]
        drop = _ladder_drop(to_tap + along, through_bus + through_run, leds.max_milliamps)
        worst = max(worst, drop)
    n = leds.count
    one_end = _ladder_drop(
        [jumper] * (n - 1), [per_pixel * (n - j) for j in range(1, n)], leds.max_milliamps
    )
    return LedFeed(len(runs), round(worst, 2), round(one_end, 2))


def feed_instruction(config: BoardConfig) -> str:
    """The one LED power instruction, with the drops for this config's count and limit."""
    feed = led_feed(config)
    return (
        f"Feed 5 V and GND into the first pixel of every row ({feed.runs} feeds: the "
        f"{config.rows} rows and the pad groups) from two {BUS_MM2:g} mm2 bus wires run "
        "along the board's side, with 1000 uF across 5 V and GND where the supply joins "
        f"them. With {config.leds.count} pixels and `leds.max_milliamps` = "
        f"{config.leds.max_milliamps:,.0f} mA the worst pixel then sees at most "
        f"{feed.drop_every_row:.2f} V less than the supply. Fed only at pixel 0, through "
        f"{config.leds.count - 1} {JUMPER_MM2:g} mm2 jumpers, the far pixels would sag by "
        f"up to {feed.drop_one_end:.2f} V, to {feed.lowest_one_end:.2f} V"
        + (
            f", below the WS2812B's {WS2812B_MIN_VOLTS:g} V minimum."
            if feed.lowest_one_end < WS2812B_MIN_VOLTS
            else "."
        )
    )


# -- pages of tables -----------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A table of text: a header row and the rows under it."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Section:
    """A titled part of a wiring page: paragraphs, tables, and paragraphs after them."""

    title: str
    paragraphs: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    after: tuple[str, ...] = field(default=())


def _pi_rows(config: BoardConfig) -> list[tuple[int, tuple[str, ...]]]:
    """(GPIO, row) for every Pi pin the config uses, with what it connects to."""
    sensors, leds = config.sensors, config.leds
    rows: list[tuple[int, tuple[str, ...]]] = []

    def add(gpio: int | None, key: str, to: str) -> None:
        if gpio is None:
            return
        rows.append(
            (
                gpio,
                (
                    str(PI_HEADER[gpio]),
                    f"GPIO{gpio}",
                    PI_FUNCTIONS.get(gpio, ""),
                    f"`{key}`",
                    to,
                ),
            )
        )

    if sensors.backend == "shift_register":
        last = sensors.chips - 1
        add(
            sensors.clock_pin,
            "sensors.clock_pin",
            f"{CLOCK_RESISTOR} in series at the Pi, then one bus along the chip bank to CLK "
            f"(pin 2) of every 74HC165, at most {longest_lumped_mm(sensors.chips):.0f} mm in all; "
            "a GND wire runs beside it all the way",
        )
        add(
            sensors.data_pin,
            "sensors.data_pin",
            f"QH (pin 9) of chip {last}, the last of the chain",
        )
        add(sensors.select_pin, "sensors.select_pin", "CLK INH (pin 15) of every 74HC165")
        add(sensors.load_pin, "sensors.load_pin", "SH/LD (pin 1) of every 74HC165")
        if sensors.clock_pin in SPI1_PINS:  # the overlay claims the bus's MOSI as well
            rows.append(
                (
                    20,
                    (
                        str(PI_HEADER[20]),
                        "GPIO20",
                        PI_FUNCTIONS[20],
                        "",
                        "nothing: the chain only reads, but dtoverlay=spi1-1cs takes the pin",
                    ),
                )
            )
    elif sensors.backend == "gpio":
        for i, pin in enumerate(sensors.pins):
            add(pin, f"sensors.pins[{i}]", f"sensor {i} to GND (internal pull-up)")
    elif sensors.backend == "matrix":
        for i, pin in enumerate(sensors.row_pins):
            add(pin, f"sensors.row_pins[{i}]", f"matrix row {i} (driven)")
        for i, pin in enumerate(sensors.column_pins):
            add(pin, f"sensors.column_pins[{i}]", f"matrix column {i} (read)")
    if leds.driver == "neopixel":
        add(leds.pin, "leds.pin", "74AHCT125 1A (pin 2); 1Y (pin 3) -> 330 ohm -> DIN of pixel 0")
    for role, pin in sorted(config.buttons.items(), key=lambda kv: kv[1]):
        add(pin, f"buttons.{role}", f"{role} button, other leg to GND")
    add(config.buzzer_pin, "buzzer.pin", "piezo buzzer +, other leg to GND")
    return sorted(rows, key=lambda r: PI_HEADER[r[0]])


def _power_rows(config: BoardConfig) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    logic = config.sensors.backend in ("shift_register", "gpio", "matrix")
    if config.sensors.backend == "shift_register":
        rows.append(
            (
                "1, 17",
                "3V3",
                "",
                "",
                "VCC (pin 16) of every 74HC165, the pull-up resistors (and Hall switches)",
            )
        )
    if logic or config.leds.driver == "neopixel":
        rows.append(
            (
                "6, 9, 14, 20, 25, 30, 34, 39",
                "GND",
                "",
                "",
                "one common ground: chips, switches, level shifter, LED supply GND",
            )
        )
    return rows


def _chip_section(config: BoardConfig, wires: Sequence[SensorWire]) -> Section:
    chips = config.sensors.chips
    by_bit: dict[int, str] = {w.index: w.name for w in wires}
    headers = ("chip", *(f"{i} (pin {HC165_INPUT_PINS[i]})" for i in INPUTS), "indices")
    rows = []
    for chip in range(chips):
        names = tuple(by_bit.get(8 * chip + bit, "-") for bit in range(8))
        rows.append((str(chip), *names, f"{8 * chip}-{8 * chip + 7}"))
    return Section(
        "74HC165 chain: which cell each input reads",
        (
            f"{chips} chips in a chain. Chip 0 is the first: its SER (pin 10) goes to GND. "
            "QH (pin 9) of each chip goes to SER (pin 10) of the next; QH of the last chip "
            f"(chip {chips - 1}) goes to the Pi. Every chip: VCC (pin 16) to 3V3, GND (pin 8) "
            "to GND, 100 nF from VCC to GND at the chip, QH' (pin 7) left open.",
            f"The clock fans out to {chips} chips and the 74HC165 has no Schmitt-trigger "
            f"inputs: put a {CLOCK_RESISTOR} resistor in series right at the Pi's SCLK pin, "
            "and run a GND wire beside the clock wire (twist them, or use the ribbon "
            "conductor next to it). A ringing clock edge counts twice, and every sensor "
            "after that chip reads shifted by one index. " + clock_summary(chips),
            "Every input has a 10 kohm pull-up to 3V3 (one 9-pin bussed resistor network per "
            "chip) and its reed switch (or the output of a Hall switch) to GND. Bit order "
            "(docs/board-config.md): sensor index = 8 x chip + input, inputs A to H = 0 to 7. "
            "A '-' input is spare: it keeps its pull-up and nothing else.",
        ),
        (Table(headers, tuple(rows)),),
    )


def _matrix_section(
    config: BoardConfig,
    wires: Sequence[SensorWire],
    row_pins: Sequence[str],
    column_pins: Sequence[str],
    columns_to_anodes: bool,
    where: str,
    jumper: int | None = None,
) -> Section:
    by_index = {w.index: w.name for w in wires}
    if jumper is not None:
        by_index.setdefault(jumper, "play jumper")
    headers = ("row", *(f"column {c}: {pin}" for c, pin in enumerate(column_pins)))
    rows = []
    for r, row_pin in enumerate(row_pins):
        cells = tuple(by_index.get(r * len(column_pins) + c, "-") for c in range(len(column_pins)))
        rows.append((f"row {r}: {row_pin}", *cells))
    if columns_to_anodes:
        diode = (
            "At every crossing: column wire -> diode (anode) -> diode stripe (cathode) -> "
            "switch -> row wire."
        )
    else:
        diode = (
            "At every crossing: row wire -> diode (anode) -> diode stripe (cathode) -> "
            "switch -> column wire."
        )
    return Section(
        "Diode matrix: which cell each crossing reads",
        (
            f"{len(row_pins)} rows x {len(column_pins)} columns on {where}; sensor index = "
            f"row x {len(column_pins)} + column. {diode} One 1N4148 per switch: without it, "
            "three figures on the corners of a rectangle make a ghost on the fourth corner. "
            "A '-' crossing is spare.",
            f"Every one of the {len(column_pins)} column wires has its own {COLUMN_PULLUP} "
            "pull-up (4.7-10 kohm) to 3V3 at the controller: the scan reads the columns "
            "about 1 us after driving a row, and the internal 50-80 kohm pull-ups with "
            "20-40 pF of wire do not recover in time, so a closed switch would also read on "
            "the next row. `companion selftest` finds such ghosts: one lit cell, one figure, "
            "exactly one press.",
        ),
        (Table(headers, tuple(rows)),),
    )


def _cell_grid_section(config: BoardConfig, wires: Sequence[SensorWire]) -> Section:
    led = config.leds.indices
    headers = ("", *(chr(ord("A") + c) for c in range(config.columns)))
    rows = []
    for r in range(config.rows):
        row = [str(r + 1)]
        for c in range(config.columns):
            p = r * config.columns + c
            row.append(f"{wires[p].short} / L{led[p]}")
        rows.append(tuple(row))
    pad_rows = []
    for p in range(config.cells, config.positions):
        pad_rows.append((config.position_name(p), str(wires[p].index), wires[p].where, str(led[p])))
    return Section(
        "Every cell: sensor and pixel",
        (
            "Each cell shows where its sensor is wired and its pixel: "
            + _short_legend(config)
            + " The maze assembly sheet (maze-assembly.svg) prints the same on every cell.",
        ),
        (
            Table(headers, tuple(rows)),
            Table(("pad", "sensor index", "sensor wired to", "pixel"), tuple(pad_rows)),
        ),
    )


def _short_legend(config: BoardConfig) -> str:
    backend = config.sensors.backend
    if backend == "shift_register":
        return "`U3 E` is chip 3, input E; `L12` is pixel 12."
    if backend in ("matrix", "serial"):
        return "`R2 C7` is the crossing of matrix row 2 and column 7; `L12` is pixel 12."
    if backend == "gpio":
        return "`GPIO17` is the pin; `L12` is pixel 12."
    return "`#12` is sensor index 12; `L12` is pixel 12."


def _led_section(config: BoardConfig) -> Section:
    leds = config.leds
    if leds.driver == "neopixel":
        source = (
            f"{pi_pin(leds.pin or 0)} through the 74AHCT125 level shifter and a 330 ohm resistor"
        )
    else:
        source = "the Pico's pixel pin through the 74AHCT125 level shifter and a 330 ohm resistor"
    rows = tuple(
        (
            str(run.first) if run.first == run.last else f"{run.first}-{run.last}",
            run.start,
            run.end,
            run.heading,
        )
        for run in led_runs(config)
    )
    return Section(
        "LED chain: the order of the pixels",
        (
            f"{leds.count} pixels ({leds.byte_order}). Data enters pixel 0 from {source}, "
            "then runs from each pixel's DOUT to the next pixel's DIN in this order. The "
            "arrows are drawn on the maze assembly sheet.",
            f"Each pixel is {LED_PIECES}, beside its cell's sensor where the assembly sheet "
            "draws its outline; a piece of a 30/m strip (33.3 mm) is longer than the 25 mm "
            "pitch and does not fit.",
        ),
        (Table(("pixels", "from", "to", "heading"), rows),),
    )


def _power_section(config: BoardConfig) -> Section:
    b = power_budget(config)
    rows = (
        ("pixels", f"{b.pixels}"),
        (
            "full white, no limit",
            f"{b.pixels} x 3 x {b.milliamps_per_channel:g} mA + idle = {b.full_white:,.0f} mA",
        ),
        ("dark pixels (idle)", f"{b.idle:,.0f} mA"),
        ("software limit (`leds.max_milliamps`)", f"{b.limit:,.0f} mA"),
        (
            "what the limit allows",
            f"{b.pixels_at_full_white} pixels at full white, or all {b.pixels} at "
            f"{b.share_of_full_white * 100:.0f} % of full white",
        ),
        ("brightness (`leds.brightness`)", f"{b.brightness:g} (before the limit)"),
        (
            "LED supply to buy",
            f"5 V, at least {b.supply_amps:g} A ({5 * b.supply_amps:g} W): the limit plus 25 %",
        ),
    )
    return Section(
        "Power budget",
        (
            "The current limiter scales every frame so the estimated draw never exceeds "
            "`leds.max_milliamps`; the supply only has to deliver that.",
            feed_instruction(config),
        ),
        (Table(("", ""), rows),),
    )


def sensor_builds(config: BoardConfig) -> tuple[Recommended, ...]:
    """The recommended sensor builds that fit this board: a Hall switch needs power and
    its own input (the 74HC165 chain or a GPIO), a passive matrix needs switches."""
    powered = config.sensors.backend in ("shift_register", "gpio")
    return tuple(b for b in RECOMMENDED if b.sensor.is_reed or powered)


def _sensor_section(config: BoardConfig) -> Section:
    rows = tuple(
        (
            b.part,
            f"`{b.order_code}`",
            f"{b.depth_mm:g} mm"
            + (f" (its face {b.face_depth_mm:g} mm)" if not b.sensor.is_reed else " (glass top)"),
            f"{b.below_carrier_top_mm:g} mm",
            b.per_sensor,
            f"`{b.command()}`",
        )
        for b in sensor_builds(config)
    )
    return Section(
        "Sensors and magnets",
        (
            f"Every figure carries an {MAGNET_DIAMETER_MM:g} x {MAGNET_HEIGHT_MM:g} mm "
            f"{MAGNET_GRADE} disc, axially magnetised, its underside "
            f"{STACK.figure_floor_mm:g} mm above the figure base's underside, over a "
            f"{STACK.cover_mm:g} mm cover and the {STACK.print_mm:g} mm printed maze. Depth is "
            "from the magnet's underside to the sensing element; the carrier holds the "
            "package face (a reed: the top of its glass) the given distance below its top. "
            "Each build passes `companion hardware magnets` with both margins "
            '(hardware/README.md, "Magnets").',
        ),
        (
            Table(
                ("sensor", "order code", "depth", "below the carrier top", "with it", "checked by"),
                rows,
            ),
        ),
    )


def wiring_page(config: BoardConfig, pico: PicoMatrix = FIRMWARE_MATRIX) -> list[Section]:
    """All wiring sections for a board config, in build order."""
    sensors = config.sensors
    wires = sensor_wires(config, pico)
    sections: list[Section] = []
    pi_rows = [row for _, row in _pi_rows(config)]
    headers = ("header pin", "GPIO", "function", "config key", "connect to")
    if sensors.backend == "serial":
        intro = (
            f"The Pi talks to the Pico over USB (`sensors.port` = `{sensors.port}`, the "
            "firmware's data port); the board needs no Pi GPIO."
        )
        if pi_rows:
            intro += " Optional controls on the Pi:"
        sections.append(
            Section("Raspberry Pi", (intro,), (Table(headers, tuple(pi_rows)),) if pi_rows else ())
        )
        sections.append(_pico_section(config, pico))
        if sensors.count == pico.count:
            sections.append(
                _matrix_section(
                    config,
                    wires,
                    [pico_pin(p) for p in pico.row_pins],
                    [pico_pin(p) for p in pico.column_pins],
                    pico.columns_to_anodes,
                    "the Pico (companion/firmware/settings.py)",
                    pico.play_jumper,
                )
            )
    else:
        sections.append(
            Section(
                "Raspberry Pi header",
                ("Pins by header number; the config key is where the pin is set.",),
                (Table(headers, tuple(pi_rows + _power_rows(config))),),
            )
        )
        if sensors.backend == "shift_register":
            sections.append(_chip_section(config, wires))
        elif sensors.backend == "matrix":
            sections.append(
                _matrix_section(
                    config,
                    wires,
                    [pi_pin(p) for p in sensors.row_pins],
                    [pi_pin(p) for p in sensors.column_pins],
                    not sensors.active_low,
                    "the Pi",
                )
            )
    sections.append(_sensor_section(config))
    sections.append(_cell_grid_section(config, wires))
    sections.append(_led_section(config))
    sections.append(_power_section(config))
    return sections


def _pico_section(config: BoardConfig, pico: PicoMatrix) -> Section:
    rows: list[tuple[str, ...]] = []
    for i, pin in enumerate(pico.row_pins):
        rows.append((str(PICO_PINS[int(pin[2:])]), pin, f"matrix row {i}", "ROW_PINS"))
    for i, pin in enumerate(pico.column_pins):
        rows.append(
            (
                str(PICO_PINS[int(pin[2:])]),
                pin,
                f"matrix column {i}; {COLUMN_PULLUP} pull-up to 3V3(OUT)",
                "COLUMN_PINS",
            )
        )
    rows.append(
        (
            str(PICO_PINS[int(pico.pixel_pin[2:])]),
            pico.pixel_pin,
            f"74AHCT125 1A (pin 2); 1Y (pin 3) -> 330 ohm -> DIN of pixel 0; a {PULL_DOWN} "
            "pull-down to GND holds the data line low until the NeoPixel driver starts "
            "(no garbage on the strip at a reset)",
            "PIXEL_PIN",
        )
    )
    rows.sort(key=lambda r: int(r[0]))
    rows.append(("39", "VSYS", "5 V through a Schottky diode (keeps the Pico up without USB)", ""))
    rows.append(
        ("36", "3V3(OUT)", f"the {len(pico.column_pins)} column pull-ups ({COLUMN_PULLUP})", "")
    )
    rows.append(("3, 8, 13, 18, 23, 28, 33, 38", "GND", "common ground with the LED supply", ""))
    notes = [
        f"The firmware in companion/firmware/ reads {config.sensors.count} sensors and drives "
        f"{config.leds.count} pixels; these are the pins of its settings.py."
    ]
    if pico.play_jumper is not None:
        row_pin, column_pin = pico.crossing(pico.play_jumper)
        notes.append(
            f"The play jumper (optional) sits at the spare crossing {pico.play_jumper} "
            f"(row {row_pin}, column {column_pin}, `PLAY_JUMPER` in settings.py): a 2-pin "
            "jumper in place of a switch, with its own 1N4148 as at every crossing. Closed at "
            "power-up, boot.py hides the CIRCUITPY drive from the Pi; open it and reset to "
            "update the firmware. No position uses that crossing, so the companion ignores it "
            "during play."
        )
    return Section(
        "Raspberry Pi Pico",
        tuple(notes),
        (Table(("Pico pin", "GP", "connect to", "settings.py"), tuple(rows)),),
    )


# -- writing -------------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(config: BoardConfig, sections: Sequence[Section], source: str) -> str:
    """The wiring page as Markdown (hardware/wiring-*.md)."""
    if source.startswith("<"):
        origin = "Generated from the built-in board config by `companion wiring --markdown`."
    else:
        origin = (
            f"Generated from `{source}` by `companion wiring --markdown --config {source}` "
            "(all of hardware/ by `make -C hardware`)."
        )
    out = [
        f"# Wiring: {config.name}",
        "",
        origin + " Do not edit by hand: change the config and generate again.",
    ]
    for section in sections:
        out += ["", f"## {section.title}"]
        for paragraph in section.paragraphs:
            out += ["", paragraph]
        for table in section.tables:
            out += ["", "| " + " | ".join(_md_cell(h) for h in table.headers) + " |"]
            out.append("|" + "|".join("---" for _ in table.headers) + "|")
            for row in table.rows:
                out.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
        for paragraph in section.after:
            out += ["", paragraph]
    return "\n".join(out) + "\n"


def to_text(config: BoardConfig, sections: Sequence[Section]) -> str:
    """The wiring page as plain text with aligned columns (``companion wiring``)."""
    out = [f"Wiring: {config.name}"]
    for section in sections:
        out += ["", section.title, "-" * len(section.title)]
        for paragraph in section.paragraphs:
            out += [paragraph.replace("`", "")]
        for table in section.tables:
            rows = [table.headers, *table.rows]
            widths = [
                max(len(r[i].replace("`", "")) for r in rows) for i in range(len(table.headers))
            ]
            out.append("")
            for row in rows:
                cells = [c.replace("`", "").ljust(w) for c, w in zip(row, widths, strict=True)]
                out.append("  ".join(cells).rstrip())
    return "\n".join(out) + "\n"
