"""The board config: one strict TOML file describes the whole physical board.

Unknown keys, missing keys, wrong types, a pin used twice and a cell without a sensor
are errors that name the key and its line (docs/board-config.md).  Without a file,
mock mode uses the built-in default board (``default_config``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from companion.games.mummy.maze import parse_cell_name
from companion.games.text import unfit_character
from companion.inputs import read_text

from .layout import ORDERS, ORIGINS, GridLayout, grid_indices
from .settle import KINDS, settle_for

#: Sensor backends; ``companion run --mock`` runs any of them on simulated hardware.
SENSOR_BACKENDS = ("shift_register", "gpio", "matrix", "serial")
LED_DRIVERS = ("neopixel", "serial")
BYTE_ORDERS = ("RGB", "GRB", "RBG", "GBR", "BRG", "BGR", "RGBW", "GRBW")
#: The SPI buses whose MOSI a NeoPixel strip may hang on: pin -> (bus, chip select of
#: /dev/spidevB.D).
SPI_MOSI_PINS = {10: (0, 0)}
#: BCM numbers of the GPIO pins on the 40-pin header.
GPIO_PINS = range(2, 28)


@dataclass(frozen=True)
class ConfigProblem:
    line: int
    key: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.key}: {self.message}"


class ConfigError(ValueError):
    """A board config that cannot be used; ``problems`` names every key and line."""

    def __init__(self, source: str, problems: list[ConfigProblem]) -> None:
        self.source = source
        self.problems = problems
        text = "; ".join(f"{source}:{p.line}: {p.key}: {p.message}" for p in problems)
        super().__init__(text)


@dataclass(frozen=True)
class SensorConfig:
    backend: str
    active_low: bool
    scan_hz: float
    settle_ms: float
    #: Sensor index of every logical position (cells in maze order, camp, sarcophagus).
    indices: tuple[int, ...]
    count: int
    #: "reed" or "hall": what the settle time is derived for (``settle.py``).
    kind: str = "reed"
    # shift_register
    clock_pin: int | None = None
    data_pin: int | None = None
    select_pin: int | None = None
    load_pin: int | None = None
    chips: int = 0
    # gpio: one pin per sensor index
    pins: tuple[int, ...] = ()
    # matrix: rows driven, columns read; index = row * len(columns) + column
    row_pins: tuple[int, ...] = ()
    column_pins: tuple[int, ...] = ()
    # serial: a device path, a pyserial URL, or "auto"
    port: str = "auto"


@dataclass(frozen=True)
class LedConfig:
    #: "neopixel": a strip on a Pi pin; "serial": the microcontroller drives it.
    driver: str
    pin: int | None
    count: int
    byte_order: str
    brightness: float
    max_milliamps: float
    milliamps_per_channel: float
    idle_milliamps: float
    gamma: float
    #: Pixel index of every logical position.
    indices: tuple[int, ...]


@dataclass(frozen=True)
class BoardConfig:
    name: str
    columns: int
    rows: int
    cell_pitch_mm: float
    camp_slots: int
    sarcophagus_slots: int
    sensors: SensorConfig
    leds: LedConfig
    buttons: dict[str, int] = field(default_factory=dict)
    buzzer_pin: int | None = None
    source: str = "<built-in>"

    @property
    def cells(self) -> int:
        return self.columns * self.rows

    @property
    def positions(self) -> int:
        """Logical positions: every cell, then the camp slots, then the sarcophagus slots."""
        return self.cells + self.camp_slots + self.sarcophagus_slots

    def camp_positions(self) -> range:
        return range(self.cells, self.cells + self.camp_slots)

    def sarcophagus_positions(self) -> range:
        start = self.cells + self.camp_slots
        return range(start, start + self.sarcophagus_slots)

    def position_name(self, position: int) -> str:
        """``"C4"``, ``"camp slot 2"``, ``"sarcophagus slot 1"`` (slots count from 1)."""
        if position < self.cells:
            row, col = divmod(position, self.columns)
            return f"{chr(ord('A') + col)}{row + 1}"
        if position < self.cells + self.camp_slots:
            return f"camp slot {position - self.cells + 1}"
        return f"sarcophagus slot {position - self.cells - self.camp_slots + 1}"


#: The example configs shipped with the package, one per reference design.
EXAMPLES = {
    "reference-1-pi": "reference-1-pi.toml",
    "reference-2-pico": "reference-2-pico.toml",
    "reference-3-tiles": "reference-3-tiles.toml",
}


def example_config_text(name: str = "reference-1-pi") -> str:
    """The text of an example config (the default board is ``reference-1-pi``)."""
    data = resources.files("companion.board").joinpath("data", EXAMPLES[name])
    return data.read_text(encoding="utf-8")


def default_config_text() -> str:
    return example_config_text("reference-1-pi")


def default_config() -> BoardConfig:
    """The built-in mock board for the default maze."""
    return parse_config(default_config_text(), "<built-in default board>")


def load_config(path: str | Path | None) -> BoardConfig:
    if path is None:
        return default_config()
    return parse_config(read_text(path), str(path))


# -- parsing ------------------------------------------------------------------------


def key_lines(text: str) -> dict[str, int]:
    """Line of every table header and ``key =`` line, by dotted path (``sensors.clock_pin``)."""
    lines: dict[str, int] = {}
    table = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and not line.startswith("[["):
            table = line.strip("[] \t").split("#")[0].strip().strip("]").strip()
            lines.setdefault(table, number)
            continue
        if "=" in line and (line[0].isalnum() or line[0] in "_-\"'"):
            key = line.split("=", 1)[0].strip().strip("\"'")
            lines.setdefault(f"{table}.{key}" if table else key, number)
    return lines


class _Reader:
    """Reads one table of the config, collecting problems instead of stopping."""

    def __init__(self, data: dict[str, Any], path: str, parent: _Parser) -> None:
        self.data = data
        self.path = path
        self.parent = parent
        self.used: set[str] = set()

    def _line(self, key: str) -> int:
        return self.parent.line(f"{self.path}.{key}" if key else self.path)

    def problem(self, key: str, message: str) -> None:
        self.parent.problem(self._line(key), f"{self.path}.{key}" if key else self.path, message)

    def get(
        self,
        key: str,
        kind: type | tuple[type, ...],
        default: Any = ...,
        check: Callable[[Any], str | None] | None = None,
    ) -> Any:
        self.used.add(key)
        if key not in self.data:
            if default is ...:
                self.parent.problem(self.parent.line(self.path), f"{self.path}.{key}", "missing")
            return None if default is ... else default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(k.__name__ for k in kinds)
            self.problem(key, f"expected {_article(names)}, got {value!r}")
            return None if default is ... else default
        if check is not None:
            message = check(value)
            if message:
                self.problem(key, message)
                return None if default is ... else default
        return value

    def pin(self, key: str, default: Any = ...) -> int | None:
        """A GPIO number, remembered so that a pin used twice is found."""
        value = self.get(key, int, default, check=_pin)
        if isinstance(value, int):
            self.parent.pins.append((f"{self.path}.{key}", value))
        return value if isinstance(value, int) else None

    def pin_list(self, key: str) -> list[int]:
        values = self.get(key, list, check=_pins) or []
        self.parent.pins += [(f"{self.path}.{key}", v) for v in values]
        return list(values)

    def table(self, key: str, required: bool = True) -> _Reader | None:
        self.used.add(key)
        value = self.data.get(key)
        if value is None:
            if required:
                self.parent.problem(self.parent.line(self.path), f"{self.path}.{key}", "missing")
            return None
        if not isinstance(value, dict):
            self.problem(key, "expected a table")
            return None
        return _Reader(value, f"{self.path}.{key}" if self.path else key, self.parent)

    def finish(self) -> None:
        for key in self.data:
            if key not in self.used:
                path = f"{self.path}.{key}" if self.path else key
                self.parent.problem(self.parent.line(path), path, "unknown key")


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.lines = key_lines(text)
        self.problems: list[ConfigProblem] = []
        self.pins: list[tuple[str, int]] = []

    def line(self, path: str) -> int:
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path.rpartition(".")[0]
        return 0

    def problem(self, line: int, key: str, message: str) -> None:
        self.problems.append(ConfigProblem(line, key, message))


def _article(names: str) -> str:
    return f"an {names}" if names[0] in "aeiou" else f"a {names}"


def _pin(value: Any) -> str | None:
    return None if value in GPIO_PINS else f"GPIO{value} is not a header pin (2 to 27)"


def _pins(value: Any) -> str | None:
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return "expected a list of GPIO numbers"
    bad = [v for v in value if v not in GPIO_PINS]
    return f"GPIO{bad[0]} is not a header pin (2 to 27)" if bad else None


def _nonempty(value: str) -> str | None:
    return None if value.strip() else 'must name a port, or be "auto"'


def _between(low: float, high: float) -> Callable[[Any], str | None]:
    return lambda v: None if low <= v <= high else f"must be between {low:g} and {high:g}"


#: The longest board name (it is shown in the log, the self-test and the board check).
MAX_BOARD_NAME = 120


def _fit_name(value: str) -> str | None:
    """A board's name: not over ``MAX_BOARD_NAME`` characters, no control or direction
    character (it is shown among other words)."""
    if len(value) > MAX_BOARD_NAME:
        return f"is {len(value)} characters long; at most {MAX_BOARD_NAME}"
    unfit = unfit_character(value)
    return None if unfit is None else f"holds the character {unfit}, which a name may not"


def _one_of(options: Iterable[str]) -> Callable[[Any], str | None]:
    allowed = tuple(options)
    return lambda v: None if v in allowed else f"must be one of {', '.join(allowed)}"


def parse_config(text: str, source: str = "<config>") -> BoardConfig:
    """Parse and validate a board config; raise ConfigError naming every problem."""
    text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", 0) or _toml_error_line(str(exc))
        raise ConfigError(source, [ConfigProblem(line, "toml", str(exc))]) from exc
    except ValueError as exc:  # tomllib's int() of a number over Python's 4,300 digits
        line = next((n for n, t in enumerate(text.splitlines(), 1) if re.search(r"\d{100}", t)), 1)
        message = "a number is far too long to be a setting"
        raise ConfigError(source, [ConfigProblem(line, "toml", message)]) from exc
    except RecursionError as exc:
        line = next((n for n, t in enumerate(text.splitlines(), 1) if t.count("[") > 50), 1)
        message = "arrays or tables are nested too deeply to be a board config"
        raise ConfigError(source, [ConfigProblem(line, "toml", message)]) from exc
    parser = _Parser(text, source)
    root = _Reader(data, "", parser)
    board = root.table("board")
    name, columns, rows, pitch = "board", 12, 12, 25.0
    if board is not None:
        name = board.get("name", str, "board", check=_fit_name)
        columns = board.get("columns", int, check=_between(2, 26)) or columns
        rows = board.get("rows", int, check=_between(2, 26)) or rows
        pitch = board.get("cell_pitch_mm", float, check=_between(10, 100)) or pitch
        board.finish()
    pads = root.table("pads")
    camp, sarc = 4, 4
    if pads is not None:
        camp = pads.get("camp_slots", int, check=_between(1, 4)) or camp
        sarc = pads.get("sarcophagus_slots", int, check=_between(1, 4)) or sarc
        pads.finish()
    cells = columns * rows
    sensors = _sensors(root.table("sensors"), cells, camp, sarc, columns, rows)
    leds = _leds(root.table("leds"), cells, camp, sarc, columns, rows)
    buttons: dict[str, int] = {}
    button_table = root.table("buttons", required=False)
    if button_table is not None:
        for role in ("roll", "confirm", "undo"):
            pin = button_table.pin(role, None)
            if pin is not None:
                buttons[role] = pin
        button_table.finish()
    buzzer_pin = None
    buzzer = root.table("buzzer", required=False)
    if buzzer is not None:
        buzzer_pin = buzzer.pin("pin")
        buzzer.finish()
    root.finish()
    _check_pins_unique(parser)
    if parser.problems or sensors is None or leds is None:
        problems = sorted(parser.problems, key=lambda p: (p.line, p.key))
        raise ConfigError(source, problems or [ConfigProblem(0, "config", "incomplete")])
    return BoardConfig(
        name=name,
        columns=columns,
        rows=rows,
        cell_pitch_mm=pitch,
        camp_slots=camp,
        sarcophagus_slots=sarc,
        sensors=sensors,
        leds=leds,
        buttons=buttons,
        buzzer_pin=buzzer_pin,
        source=source,
    )


def _toml_error_line(message: str) -> int:
    marker = "line "
    if marker in message:
        digits = message.split(marker, 1)[1].split()[0].strip(",)")
        if digits.isdigit():
            return int(digits)
    return 0


def _layout(
    reader: _Reader | None, cells: int, camp: int, sarc: int, columns: int, rows: int
) -> tuple[int, ...] | None:
    """Indices of every logical position from a ``layout`` table."""
    if reader is None:
        return None
    layout = GridLayout(
        order=reader.get("order", str, "rows", check=_one_of(ORDERS)),
        origin=reader.get("origin", str, "top-left", check=_one_of(ORIGINS)),
        serpentine=reader.get("serpentine", bool, False),
        first_index=reader.get("first_index", int, 0, check=_between(0, 4096)),
        stride=reader.get("stride", int, None, check=_between(1, 4096)),
        tile=_tile(reader.get("tile", list, None, check=_tile_size)),
    )
    try:
        indices: list[int] | None = grid_indices(columns, rows, layout)
    except ValueError as exc:
        reader.problem("tile" if layout.tile else "stride", str(exc))
        indices = None
    camp_idx = reader.get("camp", list, check=_index_list(camp))
    sarc_idx = reader.get("sarcophagus", list, check=_index_list(sarc))
    overrides = reader.get("cells", dict, {})
    for name, index in (overrides or {}).items():
        try:
            cell = parse_cell_name(name, columns, rows)
        except ValueError as exc:
            reader.problem("cells", str(exc))
            continue
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            reader.problem("cells", f"{name} = {index!r}: expected an index >= 0")
            continue
        if indices is not None:
            indices[cell] = index
    reader.finish()
    if indices is None or camp_idx is None or sarc_idx is None:
        return None
    result = (*indices, *camp_idx, *sarc_idx)
    seen: dict[int, int] = {}
    for position, index in enumerate(result):
        if index in seen:
            reader.problem(
                "",
                f"index {index} is given to two positions "
                f"({_position_name(seen[index], columns, cells, camp)} and "
                f"{_position_name(position, columns, cells, camp)})",
            )
        seen.setdefault(index, position)
    return result


def _tile_size(value: Any) -> str | None:
    ok = len(value) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 26 for v in value
    )
    return None if ok else "expected [columns, rows] of a tile, e.g. [4, 4]"


def _tile(value: list[int] | None) -> tuple[int, int] | None:
    return None if value is None else (value[0], value[1])


def _position_name(position: int, columns: int, cells: int, camp: int) -> str:
    if position < cells:
        row, col = divmod(position, columns)
        return f"{chr(ord('A') + col)}{row + 1}"
    if position < cells + camp:
        return f"camp slot {position - cells + 1}"
    return f"sarcophagus slot {position - cells - camp + 1}"


def _index_list(length: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if len(value) != length:
            return f"expected {length} indices, one per slot, got {len(value)}"
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
            return "expected whole numbers >= 0"
        return None

    return check


def _sensors(
    reader: _Reader | None, cells: int, camp: int, sarc: int, columns: int, rows: int
) -> SensorConfig | None:
    if reader is None:
        return None
    backend = reader.get("backend", str, check=_one_of(SENSOR_BACKENDS))
    active_low = reader.get("active_low", bool, True)
    scan_hz = reader.get("scan_hz", float, 100.0, check=_between(10, 2000))
    kind = reader.get("kind", str, "reed", check=_one_of(KINDS)) or "reed"
    derived = settle_for(kind, backend or "", scan_hz or 100.0)
    settle_ms = reader.get("settle_ms", float, derived, check=_between(0, 1000))
    indices = _layout(reader.table("layout"), cells, camp, sarc, columns, rows)
    extra: dict[str, Any] = {}
    count = 0
    if backend == "shift_register":
        extra["clock_pin"] = reader.pin("clock_pin")
        extra["data_pin"] = reader.pin("data_pin")
        extra["select_pin"] = reader.pin("select_pin")
        extra["load_pin"] = reader.pin("load_pin")
        extra["chips"] = reader.get("chips", int, check=_between(1, 64)) or 0
        count = 8 * extra["chips"]
    elif backend == "gpio":
        pins = reader.pin_list("pins")
        extra["pins"] = tuple(pins)
        count = len(pins)
    elif backend == "matrix":
        row_pins = reader.pin_list("row_pins")
        column_pins = reader.pin_list("column_pins")
        extra["row_pins"], extra["column_pins"] = tuple(row_pins), tuple(column_pins)
        count = len(row_pins) * len(column_pins)
    elif backend == "serial":
        # "auto": the CircuitPython data interface, found by its USB id (usb_ports.py).
        extra["port"] = reader.get("port", str, "auto", check=_nonempty)
        count = reader.get("count", int, check=_between(1, 4096)) or 0
    reader.finish()
    if indices is None or backend is None:
        return None
    too_big = [(p, i) for p, i in enumerate(indices) if i >= count]
    for position, index in too_big[:5]:
        reader.problem(
            "layout",
            f"{_position_name(position, columns, cells, camp)} has no sensor: index {index} "
            f"is beyond the {count} sensors of the {backend} backend",
        )
    if too_big:
        return None
    return SensorConfig(
        backend=backend,
        active_low=active_low,
        scan_hz=scan_hz,
        settle_ms=settle_ms,
        kind=kind,
        indices=indices,
        count=count,
        **extra,
    )


def _leds(
    reader: _Reader | None, cells: int, camp: int, sarc: int, columns: int, rows: int
) -> LedConfig | None:
    if reader is None:
        return None
    driver = reader.get("driver", str, "neopixel", check=_one_of(LED_DRIVERS))
    pin = reader.pin("pin") if driver == "neopixel" else None
    count = reader.get("count", int, check=_between(1, 4096))
    byte_order = reader.get("byte_order", str, "GRB", check=_one_of(BYTE_ORDERS))
    brightness = reader.get("brightness", float, 0.5, check=_between(0.0, 1.0))
    max_ma = reader.get("max_milliamps", float, check=_between(100, 100_000))
    per_channel = reader.get("milliamps_per_channel", float, 20.0, check=_between(1, 100))
    idle = reader.get("idle_milliamps", float, 1.0, check=_between(0, 10))
    gamma = reader.get("gamma", float, 2.6, check=_between(1.0, 3.5))
    indices = _layout(reader.table("layout"), cells, camp, sarc, columns, rows)
    reader.finish()
    if indices is None or count is None or max_ma is None or driver is None:
        return None
    if driver == "neopixel" and pin is None:
        return None
    if driver == "neopixel" and pin not in SPI_MOSI_PINS:
        # Checked here, not only when the strip opens: mock mode would take any pin.
        reader.problem(
            "pin",
            f"GPIO{pin} cannot drive the NeoPixels: they are driven through SPI0's MOSI, "
            f"so their data line goes on GPIO{min(SPI_MOSI_PINS)} (header pin 19)",
        )
        return None
    if max_ma <= count * idle * 1.5:
        reader.problem(
            "max_milliamps",
            f"{max_ma:g} mA leaves too little for light: {count} dark pixels alone draw "
            f"{count * idle:g} mA",
        )
        return None
    too_big = [(p, i) for p, i in enumerate(indices) if i >= count]
    for position, index in too_big[:5]:
        reader.problem(
            "layout",
            f"{_position_name(position, columns, cells, camp)} has no pixel: index {index} "
            f"is beyond the {count} pixels of the strip",
        )
    if too_big:
        return None
    return LedConfig(
        driver=driver,
        pin=pin,
        count=count,
        byte_order=byte_order,
        brightness=brightness,
        max_milliamps=max_ma,
        milliamps_per_channel=per_channel,
        idle_milliamps=idle,
        gamma=gamma,
        indices=indices,
    )


#: The Pi's SPI buses on the 40-pin header (BCM GPIO -> header pin and function).  SPI0
#: (``dtparam=spi=on``) is the NeoPixels' bus; SPI1 (``dtoverlay=spi1-1cs``: one chip
#: select, CE0 on GPIO18, ``/dev/spidev1.0``) is the 74HC165 chain's, on every model.
SPI0_PINS = {11: "SCLK", 10: "MOSI", 9: "MISO", 8: "CE0", 7: "CE1"}
SPI1_PINS = {21: "SCLK", 20: "MOSI", 19: "MISO", 18: "CE0"}
#: The chain's pins on SPI1: config key -> GPIO (header pins 40, 35 and 12).
CHAIN_SPI1 = {"sensors.clock_pin": 21, "sensors.data_pin": 19, "sensors.select_pin": 18}
#: The header pin of each SPI1 GPIO, for messages (companion/hardware/wiring.py has all).
SPI1_HEADER = {21: 40, 20: 38, 19: 35, 18: 12}


def _check_pins_unique(parser: _Parser) -> None:
    _check_spi_buses(parser)
    first: dict[int, str] = {}
    for key, pin in parser.pins:
        if pin in first:
            parser.problem(parser.line(key), key, f"GPIO{pin} is already used by {first[pin]}")
        else:
            first[pin] = key


def _check_spi_buses(parser: _Parser) -> None:
    """Each bus has one owner: SPI0 the strip on GPIO10, SPI1 the 74HC165 chain.

    The chain never shares the strip's bus: there the bus would switch from the LED
    frames' mode 0 to the chain's mode 2 before every scan, and a controller that sets
    the clock's idle level after chip select (upstream spi-dw-core, the Pi 5's) raises
    the clock under CLK INH: one stray shift, every sensor read one place off
    (docs/board-config.md, "Why the chain has a bus of its own").
    """
    pins = dict(reversed(parser.pins))  # key -> pin (the first, if given twice)

    def refuse(key: str, message: str) -> None:
        parser.problem(parser.line(key), key, message)

    if pins.get("leds.pin") == 10:
        for key, pin in parser.pins:
            if pin not in SPI0_PINS or key == "leds.pin":
                continue
            where = f"GPIO{pin} is SPI0 {SPI0_PINS[pin]}, the bus of the NeoPixels on GPIO10"
            if key in CHAIN_SPI1:
                want = CHAIN_SPI1[key]
                refuse(
                    key,
                    f"{where}: the sensor chain has a bus of its own, SPI1, so that the LED "
                    f"frames never change its clock mode: {key.split('.')[1]} = {want} "
                    f"(SPI1 {SPI1_PINS[want]}, header pin {SPI1_HEADER[want]}; "
                    "docs/board-config.md)",
                )
            else:
                refuse(key, where)
    chain = {key: pins[key] for key in CHAIN_SPI1 if key in pins}
    if not any(pin in SPI1_PINS for pin in chain.values()):
        return
    # The chain is on SPI1: all of its bus pins are SPI1's, and SPI1's MOSI is the bus's.
    for key, pin in chain.items():
        want = CHAIN_SPI1[key]
        if pin != want:
            refuse(
                key,
                f"GPIO{pin}: the chain's other pins are on SPI1, so {key.split('.')[1]} = "
                f"{want} (SPI1 {SPI1_PINS[want]}, header pin {SPI1_HEADER[want]})",
            )
    for key, pin in parser.pins:
        if pin == 20 and key not in CHAIN_SPI1:
            refuse(key, "GPIO20 is SPI1 MOSI: the spi1-1cs overlay takes it for the chain's bus")
