"""The wiring diagram: blocks, pins and nets of a board config, as an SVG drawing.

One diagram per reference design, generated from the config (pins, chip count, pixel
count, the LED limit) and, for the Pico, from ``wiring.PicoMatrix``; the tables in
``wiring`` give the cell of every input.  Long connections are drawn as net labels
(flags with the net's name: every flag with the same name is one wire), short ones
as lines, the way schematics keep a page readable.

Blocks: the Raspberry Pi (or the Pi and the Pico), the 74HC165 chain (its last and
first chip, the rest alike) or the diode matrix, one sensor input in detail (pull-up
and reed switch, or the recommended Hall switch with its 100 nF), the 74AHCT125 level
shifter, the series resistor, the NeoPixel chain with 5 V and GND fed into every row
from two bus wires, the 5 V supply sized from ``leds.max_milliamps``, and the buttons
and buzzer.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.board.config import BoardConfig

from .builds import HALL
from .clock import CHIP_PITCH_MM, bank_length_mm, longest_lumped_mm
from .drawing import (
    INK,
    Circle,
    Drawing,
    Group,
    Item,
    Line,
    Path,
    Rect,
    Style,
    Text,
    ellipse,
    polygon,
    polyline,
    text_width,
)
from .wiring import (
    BUS_MM2,
    CLOCK_RESISTOR,
    COLUMN_PULLUP,
    FIRMWARE_MATRIX,
    HC165_INPUT_PINS,
    INPUTS,
    PI_FUNCTIONS,
    PI_HEADER,
    PICO_PINS,
    PULL_DOWN,
    PicoMatrix,
    led_feed,
    power_budget,
    sensor_wires,
)

WIDTH, HEIGHT = 420.0, 297.0
WIRE = Style(stroke=INK, width=0.35)
THIN = Style(stroke=INK, width=0.25)
BLOCK = Style(stroke=INK, width=0.5, fill="#f7f7f2")
NET_FILL = "#fff3c4"
PIN_SIZE = 2.4


@dataclass(frozen=True)
class Anchor:
    """The outer end of a pin's stub: where a wire or a net label attaches."""

    x: float
    y: float
    side: str  # left, right, top, bottom (the direction the stub points)


class Sketch:
    """Collects the items of a diagram, with a few schematic symbols."""

    def __init__(self) -> None:
        self.items: list[Item] = []

    def add(self, *items: Item) -> None:
        """Draw ``items`` (in order: later ones lie on top)."""
        self.items.extend(items)

    def block(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        title: str,
        subtitle: str = "",
        title_y: float = 5.0,
    ) -> None:
        """A box with a bold title (``title_y`` below its top) and a subtitle under it."""
        self.add(Rect(x, y, w, h, BLOCK))
        self.add(Text(x + w / 2, y + title_y, title, 3.2, "middle", bold=True))
        if subtitle:
            self.add(Text(x + w / 2, y + title_y + 4.0, subtitle, 2.2, "middle", "#444444"))

    def pin(
        self, x: float, y: float, side: str, label: str, length: float = 6.0, inside: bool = True
    ) -> Anchor:
        """A pin on a block edge at (x, y), its stub pointing ``side``; label inside."""
        dx, dy = {"left": (-1, 0), "right": (1, 0), "top": (0, -1), "bottom": (0, 1)}[side]
        end = Anchor(x + dx * length, y + dy * length, side)
        self.add(Line(x, y, end.x, end.y, WIRE))
        if inside and label:
            if side == "left":
                self.add(Text(x + 1.5, y + 0.8, label, PIN_SIZE))
            elif side == "right":
                self.add(Text(x - 1.5, y + 0.8, label, PIN_SIZE, "end"))
            elif side == "top":
                self.add(Text(x, y + 3.2, label, PIN_SIZE * 0.8, "middle"))
            else:
                self.add(Text(x, y - 1.4, label, PIN_SIZE * 0.8, "middle"))
        return end

    def net(self, at: Anchor, name: str) -> None:
        """A net label flag at a stub's end, pointing away from the pin."""
        size = 2.3
        w = text_width(name, size, True) + 4.0
        h = 4.0
        x, y = at.x, at.y
        if at.side == "right":
            pts = [
                (x, y),
                (x + 2, y - h / 2),
                (x + w, y - h / 2),
                (x + w, y + h / 2),
                (x + 2, y + h / 2),
            ]
            tx = x + 2 + (w - 2) / 2
            ty = y
        elif at.side == "left":
            pts = [
                (x, y),
                (x - 2, y - h / 2),
                (x - w, y - h / 2),
                (x - w, y + h / 2),
                (x - 2, y + h / 2),
            ]
            tx = x - 2 - (w - 2) / 2
            ty = y
        elif at.side == "bottom":
            pts = [
                (x, y),
                (x + w / 2, y + 2),
                (x + w / 2, y + 2 + h),
                (x - w / 2, y + 2 + h),
                (x - w / 2, y + 2),
            ]
            tx, ty = x, y + 2 + h / 2
        else:
            pts = [
                (x, y),
                (x + w / 2, y - 2),
                (x + w / 2, y - 2 - h),
                (x - w / 2, y - 2 - h),
                (x - w / 2, y - 2),
            ]
            tx, ty = x, y - 2 - h / 2
        self.add(polygon(pts, Style(stroke=INK, width=0.25, fill=NET_FILL)))
        self.add(Text(tx, ty + 0.8, name, size, "middle", bold=True))

    def wire(self, *points: tuple[float, float]) -> None:
        """A wire through ``points`` (orthogonal by convention)."""
        self.add(polyline(list(points), WIRE))

    def dot(self, x: float, y: float) -> None:
        """A junction: wires crossing here are connected (a crossing without a dot is not)."""
        self.add(Circle(x, y, 0.7, Style(stroke=None, fill=INK)))

    def ground(self, x: float, y: float) -> None:
        """The ground symbol hanging below (x, y)."""
        self.add(Line(x, y, x, y + 2.0, WIRE))
        for i, half in enumerate((2.4, 1.5, 0.6)):
            self.add(Line(x - half, y + 2.0 + i * 0.9, x + half, y + 2.0 + i * 0.9, WIRE))

    def resistor(self, x1: float, y1: float, x2: float, y2: float, label: str) -> None:
        """A resistor (IEC box) between two points on one horizontal or vertical line."""
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        if y1 == y2:
            self.add(Line(x1, y1, mx - 4, y1, WIRE), Line(mx + 4, y1, x2, y2, WIRE))
            self.add(Rect(mx - 4, my - 1.4, 8, 2.8, Style(stroke=INK, width=0.35, fill="#ffffff")))
            self.add(Text(mx, my - 2.4, label, 2.2, "middle"))
        else:
            self.add(Line(x1, y1, x1, my - 4, WIRE), Line(x1, my + 4, x2, y2, WIRE))
            self.add(Rect(mx - 1.4, my - 4, 2.8, 8, Style(stroke=INK, width=0.35, fill="#ffffff")))
            self.add(Text(mx + 2.6, my + 0.8, label, 2.2))

    def capacitor(self, x: float, y1: float, y2: float, label: str) -> None:
        """A capacitor on a vertical line from y1 to y2."""
        my = (y1 + y2) / 2
        self.add(Line(x, y1, x, my - 0.8, WIRE), Line(x, my + 0.8, x, y2, WIRE))
        self.add(Line(x - 2.4, my - 0.8, x + 2.4, my - 0.8, Style(stroke=INK, width=0.5)))
        self.add(Line(x - 2.4, my + 0.8, x + 2.4, my + 0.8, Style(stroke=INK, width=0.5)))
        self.add(Text(x + 3.2, my + 0.8, label, 2.2))

    def reed_switch(self, x: float, y1: float, y2: float, label: str) -> None:
        """A reed switch (open contacts in a glass tube) on a vertical line."""
        my = (y1 + y2) / 2
        self.add(Line(x, y1, x, my - 3, WIRE), Line(x, my + 3, x, y2, WIRE))
        self.add(Line(x, my - 3, x + 1.2, my + 1.0, WIRE))
        self.add(Line(x, my + 3, x, my + 1.6, WIRE))
        self.add(ellipse(x, my, 2.4, 4.4, Style(stroke="#555555", width=0.25)))
        self.add(Text(x + 3.4, my + 0.8, label, 2.2))

    def diode(self, x: float, y1: float, y2: float, label: str) -> None:
        """A diode on a vertical line, conducting from y1 (anode) to y2 (cathode)."""
        my = (y1 + y2) / 2
        d = 1.4 if y2 > y1 else -1.4
        self.add(Line(x, y1, x, my - d, WIRE), Line(x, my + d, x, y2, WIRE))
        self.add(
            polygon(
                [(x - 1.6, my - d), (x + 1.6, my - d), (x, my + d)],
                Style(stroke=INK, width=0.3, fill=INK),
            )
        )
        self.add(Line(x - 1.6, my + d, x + 1.6, my + d, Style(stroke=INK, width=0.4)))
        self.add(Text(x + 2.6, my + 0.8, label, 2.2))

    def button(self, x1: float, x2: float, y: float, label: str) -> None:
        """A push button on a horizontal line."""
        mx = (x1 + x2) / 2
        self.add(Line(x1, y, mx - 3, y, WIRE), Line(mx + 3, y, x2, y, WIRE))
        self.add(Circle(mx - 3, y, 0.6, THIN), Circle(mx + 3, y, 0.6, THIN))
        self.add(Line(mx - 3.5, y - 2, mx + 3.5, y - 2, WIRE), Line(mx, y - 2, mx, y - 4, WIRE))
        self.add(Text(mx, y + 3.4, label, 2.2, "middle"))

    def note(self, x: float, y: float, lines: list[str], size: float = 2.4) -> None:
        """Explanatory text, one line per entry."""
        for i, line in enumerate(lines):
            self.add(Text(x, y + i * size * 1.35, line, size, fill="#333333"))


def _short(name: str) -> str:
    """A position name short enough for a chip input: ``"camp1"``, ``"sarc4"``, ``"C12"``."""
    if name.startswith("camp slot "):
        return "camp" + name.rsplit(" ", 1)[1]
    if name.startswith("sarcophagus slot "):
        return "sarc" + name.rsplit(" ", 1)[1]
    return name


def _title(s: Sketch, config: BoardConfig, what: str) -> None:
    s.add(Text(10, 15, f"Wiring diagram: {config.name}", 6.0, bold=True))
    s.add(
        Text(
            10,
            21.5,
            f"{what} Generated from the board config; flags with the same name are one net. "
            "Cells per input: the wiring tables.",
            2.6,
            fill="#333333",
        )
    )


def _input_detail(s: Sketch, x: float, y: float) -> None:
    """One sensor input in detail: pull-up and reed switch, or a Hall switch."""
    s.block(x, y, 104, 62, "Every sensor input (A to H)", "one per cell and pad")
    # Reed switch version.
    rail = y + 16
    node = y + 34
    s.add(Text(x + 6, rail - 1.5, "3V3", 2.4, bold=True))
    s.wire((x + 6, rail), (x + 30, rail))
    s.resistor(x + 18, rail, x + 18, node, "10 kohm")
    s.dot(x + 18, node)
    s.wire((x + 18, node), (x + 36, node))
    s.add(Text(x + 37, node + 0.8, "to input", 2.4))
    s.reed_switch(x + 18, node, node + 16, "reed switch")
    s.ground(x + 18, node + 16)
    # Hall switch version.
    hx = x + 62
    s.add(Text(hx, y + 16, "or a Hall switch:", 2.4, bold=True))
    s.add(Rect(hx, y + 22, 22, 16, Style(stroke=INK, width=0.4, fill="#ffffff")))
    s.add(Text(hx + 11, y + 28, HALL.sensor.key.upper(), 2.3, "middle", bold=True))
    s.add(Text(hx + 11, y + 31.5, "(open drain)", 2.0, "middle"))
    s.wire((hx, y + 26), (hx - 4, y + 26))
    s.add(Text(hx - 4.5, y + 24.8, "3V3", 2.2, "end"))
    # Its own 100 nF from VCC to GND, right at the sensor.
    s.dot(hx - 4, y + 26)
    s.capacitor(hx - 4, y + 26, y + 41, "")
    s.add(Text(hx - 7.5, y + 35, "100 nF", 2.0, "end"))
    s.ground(hx - 4, y + 41)
    s.wire((hx + 22, y + 30), (hx + 28, y + 30))
    s.add(Text(hx + 28.5, y + 30.8, "OUT", 2.2))
    s.add(Text(hx + 28.5, y + 33.6, "to input", 2.0))
    s.wire((hx + 11, y + 38), (hx + 11, y + 41))
    s.ground(hx + 11, y + 41)
    s.note(
        hx - 2,
        y + 52,
        ["keep the 10 kohm pull-up;", "100 nF at every sensor", "and at every chip"],
        2.2,
    )


def _led_section(s: Sketch, config: BoardConfig, y: float, data_net: str) -> None:
    """Level shifter, resistor, the pixel chain, its supply and capacitor."""
    budget = power_budget(config)
    # 74AHCT125.
    x = 110.0
    s.block(x, y, 46, 44, "74AHCT125", "3.3 V -> 5 V data")
    a = s.pin(x, y + 16, "left", "1A (2)")
    s.net(a, data_net)
    vcc = s.pin(x, y + 23, "left", "VCC (14)")
    s.net(vcc, "5V")
    oe = s.pin(x, y + 30, "left", "1OE (1)")
    s.wire((oe.x, oe.y), (oe.x - 3, oe.y))
    s.ground(oe.x - 3, oe.y)
    gnd = s.pin(x, y + 37, "left", "GND (7)", 3.0)
    s.ground(gnd.x, gnd.y)
    yq = s.pin(x + 46, y + 16, "right", "1Y (3)")
    s.note(x + 24, y + 27, ["2A-4A and", "2OE-4OE:", "to GND"], 2.0)
    # Series resistor into the strip.
    strip_x = 188.0
    s.resistor(yq.x, yq.y, strip_x - 6, yq.y, "330 ohm")
    # The chain of pixels.
    s.block(strip_x, y, 104, 40, f"{config.leds.count} x WS2812B", f"{config.leds.byte_order}, 5 V")
    din = s.pin(strip_x, y + 16, "left", "DIN")
    del din
    first = config.position_name(config.leds.indices.index(0))
    last_pixel = config.leds.count - 1
    last = (
        config.position_name(config.leds.indices.index(last_pixel))
        if last_pixel in config.leds.indices
        else "unused"
    )
    s.note(
        strip_x + 14,
        y + 12,
        [
            f"pixel 0: {first}",
            f"pixel {last_pixel}: {last}",
            "DOUT -> DIN of the next",
            "pieces: 60/m strip or 10 mm rounds",
        ],
        2.3,
    )
    v_in = s.pin(strip_x, y + 26, "left", "5V")
    g_in = s.pin(strip_x, y + 34, "left", "GND")
    # The 5 V and GND bus wires along the board's side, tapped into every row's first pixel.
    feed = led_feed(config)
    taps = [y + 7 + 7.5 * k for k in range(4)]
    buses = ((strip_x + 109, "5V", 0.0), (strip_x + 119, "GND", 2.5))
    for bx, name, dy in buses:
        s.wire((bx, taps[0] + dy), (bx, y + 48))
        s.net(Anchor(bx, y + 48, "bottom"), name)
        for ty in taps:  # a tap into every row; the GND tap crosses the 5 V bus unjoined
            s.wire((strip_x + 104, ty + dy), (bx, ty + dy))
            s.dot(bx, ty + dy)
    for k, ty in enumerate(taps):
        label = f"row {k + 1}" if k < 3 else f"... all {feed.runs}"
        s.add(Text(strip_x + 102, ty + 2, label, 2.0, "end"))
    s.note(
        strip_x,
        y + 46,
        [
            f"{BUS_MM2:g} mm2 bus wires: 5 V and GND into every row's first pixel,",
            f"drop at most {feed.drop_every_row:.2f} V at the limit "
            f"(fed at one end only: {feed.drop_one_end:.2f} V)",
        ],
        2.0,
    )
    # Power at the input end, with the capacitor across it.
    s.wire((v_in.x, v_in.y), (v_in.x - 14, v_in.y))
    s.wire((g_in.x, g_in.y), (g_in.x - 14, g_in.y))
    s.dot(v_in.x - 8, v_in.y)
    s.dot(g_in.x - 8, g_in.y)
    s.capacitor(v_in.x - 8, v_in.y, g_in.y, "")
    s.add(Text(v_in.x - 8, g_in.y + 5.2, "1000 uF", 2.2, "middle"))
    s.net(Anchor(v_in.x - 14, v_in.y, "left"), "5V")
    s.net(Anchor(g_in.x - 14, g_in.y, "left"), "GND")
    # Supply.
    px = 330.0
    s.block(px, y, 80, 40, "5 V LED supply", f"at least {budget.supply_amps:g} A")
    s.note(
        px + 4,
        y + 16,
        [f"limit {budget.limit:,.0f} mA + 25 %", f"(full white: {budget.full_white:,.0f} mA)"],
        2.3,
    )
    plus = s.pin(px, y + 30, "left", "+5 V", 8.0)
    minus = s.pin(px, y + 36, "left", "0 V", 8.0)
    del plus, minus
    s.net(Anchor(px - 8, y + 30, "left"), "5V")
    s.net(Anchor(px - 8, y + 36, "left"), "GND")


def _shift_register_diagram(config: BoardConfig) -> Drawing:
    s = Sketch()
    sensors = config.sensors
    _title(
        s,
        config,
        f"{sensors.chips} x 74HC165 on SPI1 (its own bus), "
        f"NeoPixels on SPI0 (GPIO{config.leds.pin}).",
    )
    # The Raspberry Pi and its pins.
    nets = {
        sensors.clock_pin: "SCLK",
        sensors.data_pin: "MISO",
        sensors.select_pin: "CE0",
        sensors.load_pin: "LOAD",
        config.leds.pin: "LED DATA",
        config.buzzer_pin: "BUZZER",
    }
    for role, pin in config.buttons.items():
        nets[pin] = role.upper()
    pins = sorted((PI_HEADER[g], g, name) for g, name in nets.items() if g is not None)
    rows = [(str(h), f"GPIO{g}", name) for h, g, name in pins]
    rows += [("1", "3V3", "3V3"), ("6", "GND", "GND")]
    rows.sort(key=lambda r: int(r[0]))
    px, py, pw = 10.0, 32.0, 64.0
    ph = 14.0 + 7.0 * len(rows)
    s.block(px, py, pw, ph, "Raspberry Pi", "40-pin header")
    for i, (header, gpio, net) in enumerate(rows):
        number = int(gpio[4:]) if gpio.startswith("GPIO") else None
        extra = f" {PI_FUNCTIONS[number]}" if number in PI_FUNCTIONS else ""
        end = s.pin(px + pw, py + 16 + 7 * i, "right", f"pin {header}: {gpio}{extra}")
        if net == "SCLK":  # the series resistor sits right at the Pi's pin
            s.resistor(end.x, end.y, end.x + 14, end.y, CLOCK_RESISTOR)
            end = Anchor(end.x + 14, end.y, "right")
        s.net(end, net)
    s.note(
        px,
        py + ph + 5,
        [
            f"SCLK: {CLOCK_RESISTOR} in series at the Pi, and a GND wire",
            f"beside the clock to every chip ({sensors.chips} chips, no Schmitt",
            "inputs: a ringing edge double-clocks and shifts the index).",
            f"All chips in ONE BANK, {CHIP_PITCH_MM:g} mm apart, mid-board:",
            f"clock bus {bank_length_mm(sensors.chips):.0f} mm, at most "
            f"{longest_lumped_mm(sensors.chips):.0f} mm (hardware/README.md).",
        ],
        2.2,
    )
    # The chain: the last chip next to the Pi, the first chip farthest away.
    wires = sensor_wires(config)
    names = {w.index: _short(w.name) for w in wires}
    cy = 120.0
    cw, ch = 52.0, 34.0
    last = sensors.chips - 1
    shown = [(last, 120.0), (0, 232.0)] if last > 0 else [(0, 120.0)]
    buses = ["LOAD", "SCLK", "CE0", "3V3", "GND"]
    bottom_pins = [
        ("SH/LD (1)", 0),
        ("CLK (2)", 1),
        ("CLK INH (15)", 2),
        ("VCC (16)", 3),
        ("GND (8)", 4),
    ]
    bus_y = [cy + ch + 8 + 5.5 * i for i in range(len(buses))]
    bus_x0, bus_x1 = 104.0, shown[-1][1] + cw + 6
    for name, yb in zip(buses, bus_y, strict=True):
        s.wire((bus_x0, yb), (bus_x1, yb))
        s.net(Anchor(bus_x0, yb, "left"), name)
    qh_anchor: dict[int, Anchor] = {}
    ser_anchor: dict[int, Anchor] = {}
    for chip, x in shown:
        s.block(
            x, cy, cw, ch, f"74HC165 chip {chip}", f"sensor indices {8 * chip}-{8 * chip + 7}", 13.5
        )
        for i, letter in enumerate(INPUTS):
            ix = x + 5 + i * 6.0
            end = s.pin(ix, cy, "top", letter, 7.0)
            s.add(
                Text(
                    ix,
                    end.y - 1.2,
                    names.get(8 * chip + i, "-"),
                    1.6,
                    "middle",
                    "#0b4f8a",
                    bold=True,
                )
            )
            s.add(Text(ix, cy + 6.4, str(HC165_INPUT_PINS[letter]), 1.6, "middle", "#666666"))
        for label, i in bottom_pins:
            bx = x + 5 + i * 10.5
            pin_name, pin_number = label.rsplit(" ", 1)
            end = s.pin(bx, cy + ch, "bottom", pin_name, 4.0)
            s.wire((end.x, end.y), (end.x, bus_y[i]))
            s.dot(end.x, bus_y[i])
            s.add(Text(bx, cy + ch - 4.6, pin_number, 1.6, "middle", "#666666"))
        qh_anchor[chip] = s.pin(x, cy + 22, "left", "QH (9)", 6.0)
        ser_anchor[chip] = s.pin(x + cw, cy + 22, "right", "SER (10)", 6.0)
    s.net(qh_anchor[last], "MISO")
    first_ser = ser_anchor[0]
    s.ground(first_ser.x, first_ser.y)
    if last > 0:
        a, b = ser_anchor[last], qh_anchor[0]
        s.add(Line(a.x, a.y, b.x, b.y, Style(stroke=INK, width=0.35, dash=(1.5, 1.2))))
        middle = (a.x + b.x) / 2
        s.add(Text(middle, a.y - 9, f"chips {last - 1} ... 1", 2.4, "middle", bold=True))
        s.add(Text(middle, a.y - 5.5, "the same: QH of chip k", 2.2, "middle"))
        s.add(Text(middle, a.y + 4.0, "-> SER of chip k + 1", 2.2, "middle"))
    s.note(
        120.0,
        cy - 20,
        [
            "Inputs read the cells shown above them (chip 0: the first cells of the layout).",
            "Bit order: sensor index = 8 x chip + input (A = 0 ... H = 7).",
        ],
        2.4,
    )
    # The chip bank: every chip side by side on one strip of board (clock.py's budget).
    bank_y = cy - 13
    s.add(
        Rect(
            bus_x0 + 1,
            bank_y,
            bus_x1 - bus_x0 + 3,
            bus_y[-1] + 4 - bank_y,
            Style(stroke="#0b4f8a", width=0.3, dash=(2.0, 1.2), fill=None),
        )
    )
    s.add(
        Text(
            bus_x0 + 1,
            bus_y[-1] + 8,
            f"ONE BANK: all {sensors.chips} chips side by side on one strip of board under the "
            f"middle of the maze; the clock bus {bank_length_mm(sensors.chips):.0f} mm from "
            f"the {CLOCK_RESISTOR} resistor, at most {longest_lumped_mm(sensors.chips):.0f} mm",
            2.2,
            "start",
            "#0b4f8a",
            bold=True,
        )
    )
    _input_detail(s, 306.0, 96.0)
    # Controls.
    controls = [(role.upper(), f"{role} button") for role in config.buttons]
    ky = 200.0
    if controls or config.buzzer_pin is not None:
        s.block(
            10.0,
            ky,
            84.0,
            20.0 + 8.0 * (len(controls) + 1),
            "Controls",
            "to GND, internal pull-ups",
        )
        for i, (net, label) in enumerate(controls):
            yy = ky + 18 + 8 * i
            s.net(Anchor(26.0, yy, "left"), net)
            s.button(26.0, 60.0, yy, label)
            s.wire((60.0, yy), (66.0, yy))
            s.ground(66.0, yy)
        if config.buzzer_pin is not None:
            yy = ky + 18 + 8 * len(controls)
            s.net(Anchor(26.0, yy, "left"), "BUZZER")
            s.wire((26.0, yy), (52.0, yy))
            s.add(Rect(52.0, yy - 2.5, 6.0, 5.0, Style(stroke=INK, width=0.35, fill="#ffffff")))
            s.add(Text(61.0, yy + 0.8, "piezo", 2.2))
            s.wire((55.0, yy + 2.5), (55.0, yy + 4.0))
            s.ground(55.0, yy + 4.0)
    _led_section(s, config, 240.0, "LED DATA")
    s.note(
        10.0,
        HEIGHT - 6,
        [
            "The Pi has its own USB-C supply; join its GND to the LED supply's GND "
            "(one common ground)."
        ],
        2.4,
    )
    return _drawing(config, s)


def _serial_diagram(config: BoardConfig, pico: PicoMatrix) -> Drawing:
    s = Sketch()
    _title(
        s,
        config,
        f"The Pico scans a {len(pico.row_pins)} x {len(pico.column_pins)} diode matrix and "
        "drives the pixels.",
    )
    # The Pi, and the USB cable.
    s.block(10.0, 32.0, 60.0, 30.0, "Raspberry Pi", "runs the companion")
    s.note(14.0, 50.0, [f"data port: {config.sensors.port}", "own USB-C supply"], 2.3)
    s.wire((70.0, 47.0), (100.0, 47.0))
    s.add(Text(85.0, 45.0, "USB cable", 2.4, "middle", bold=True))
    # The Pico.
    rows = len(pico.row_pins)
    cols = len(pico.column_pins)
    bx, by, bw = 100.0, 32.0, 62.0
    bh = 16.0 + 5.0 * (rows + cols + 2)
    s.block(bx, by, bw, bh, "Raspberry Pi Pico", "companion/firmware/ (CircuitPython)")
    y = by + 16.0
    for i, pin in enumerate(pico.row_pins):
        end = s.pin(bx + bw, y, "right", f"{pin} (pin {PICO_PINS[int(pin[2:])]})", 5.0)
        s.net(end, f"ROW {i}")
        y += 5.0
    for i, pin in enumerate(pico.column_pins):
        end = s.pin(bx + bw, y, "right", f"{pin} (pin {PICO_PINS[int(pin[2:])]})", 5.0)
        s.net(end, f"COL {i}")
        y += 5.0
    end = s.pin(
        bx + bw, y, "right", f"{pico.pixel_pin} (pin {PICO_PINS[int(pico.pixel_pin[2:])]})", 5.0
    )
    s.net(end, "LED DATA")
    # The pull-down that holds the strip's data line low until the NeoPixel driver starts.
    s.dot(end.x, end.y)
    s.resistor(end.x, end.y, end.x, end.y + 10, PULL_DOWN)
    s.ground(end.x, end.y + 10)
    y += 5.0
    s.pin(bx, by + 16.0, "left", "USB", 0.0)
    vs = s.pin(bx, by + 26.0, "left", "VSYS (39)", 6.0)
    s.diode(vs.x - 6, vs.y + 10, vs.y, "")
    s.wire((vs.x, vs.y), (vs.x - 6, vs.y))
    s.add(Text(vs.x - 8.5, vs.y + 6.5, "Schottky", 2.0, "end"))
    s.net(Anchor(vs.x - 6, vs.y + 10, "bottom"), "5V")
    gnd = s.pin(bx, by + 46.0, "left", "GND (38)", 6.0)
    s.net(gnd, "GND")
    v33 = s.pin(bx, by + 56.0, "left", "3V3(OUT) (36)", 6.0)
    s.net(v33, "3V3")
    s.note(
        14.0,
        by + 66.0,
        [
            f"COL 0-{cols - 1}: each with a {COLUMN_PULLUP}",
            "pull-up to 3V3 (4.7-10 kohm): the",
            "internal ones recover too slowly",
            "and a switch ghosts on the next row.",
            f"{pico.pixel_pin}: {PULL_DOWN} pull-down to GND, so the",
            "strip sees a low line until the driver starts.",
            *(
                [
                    f"Play jumper: crossing {pico.play_jumper} ("
                    + " x ".join(pico.crossing(pico.play_jumper))
                    + "),",
                    "a jumper + 1N4148 (boot.py hides CIRCUITPY).",
                ]
                if pico.play_jumper is not None
                else []
            ),
        ],
        2.2,
    )
    # The matrix: a small grid with one crossing drawn out.
    mx, my = 220.0, 40.0
    s.block(
        mx,
        my,
        100.0,
        96.0,
        "Diode matrix",
        f"{rows} rows x {cols} columns = {rows * cols} crossings",
    )
    wires = sensor_wires(config, pico)
    used = {w.index for w in wires}
    step_x, step_y = 6.0, 5.4
    gx0, gy0 = mx + 14.0, my + 16.0
    for c in range(cols):
        s.add(
            Line(gx0 + c * step_x, gy0 - 2, gx0 + c * step_x, gy0 + (rows - 1) * step_y + 2, THIN)
        )
        s.add(Text(gx0 + c * step_x, gy0 - 3.2, str(c), 1.8, "middle", "#555555"))
    for r in range(rows):
        s.add(
            Line(gx0 - 2, gy0 + r * step_y, gx0 + (cols - 1) * step_x + 2, gy0 + r * step_y, THIN)
        )
        s.add(Text(gx0 - 3.2, gy0 + r * step_y + 0.6, str(r), 1.8, "end", "#555555"))
        for c in range(cols):
            index = r * cols + c
            colour = "#0b4f8a" if index in used else "#bbbbbb"
            if index == pico.play_jumper:
                colour = "#c05a00"
            s.add(Circle(gx0 + c * step_x, gy0 + r * step_y, 0.9, Style(stroke=None, fill=colour)))
    s.add(Text(gx0 - 3.2, gy0 - 3.2, "ROW", 1.8, "end", bold=True))
    s.add(Text(gx0 + (cols - 1) * step_x + 3.0, gy0 - 3.2, "COL", 1.8, bold=True))
    s.note(mx + 4, my + 88.0, ["blue: a cell or pad; grey: spare; orange: play jumper"], 2.2)
    # One crossing in detail.
    dx, dy = 336.0, 40.0
    s.block(dx, dy, 74.0, 62.0, "Every crossing", "one switch, one 1N4148")
    col_x = dx + 14
    s.add(Text(col_x, dy + 16, "column", 2.4, "middle", bold=True))
    s.wire((col_x, dy + 18), (col_x, dy + 22))
    s.dot(col_x, dy + 20)
    s.resistor(col_x, dy + 20, col_x + 26, dy + 20, COLUMN_PULLUP)
    s.net(Anchor(col_x + 26, dy + 20, "right"), "3V3")
    if pico.columns_to_anodes:
        s.diode(col_x, dy + 22, dy + 32, "anode on the column")
    else:
        s.diode(col_x, dy + 32, dy + 22, "cathode on the column")
    s.reed_switch(col_x, dy + 32, dy + 48, "reed switch")
    s.wire((col_x, dy + 48), (col_x, dy + 54))
    s.add(Text(col_x, dy + 57.5, "row", 2.4, "middle", bold=True))
    s.note(dx + 30, dy + 46, ["stripe (cathode)", "towards the row"], 2.2)
    s.note(
        220.0,
        146.0,
        [
            f"Sensor index = row x {cols} + column: the wiring tables name the cell of every "
            "crossing.",
            "ROW and COL flags join the Pico's pins to the matrix wires of the same number.",
            "Hall switches do not belong in a passive matrix: use the 74HC165 variant for them.",
        ],
        2.4,
    )
    _led_section(s, config, 210.0, "LED DATA")
    s.note(
        10.0,
        HEIGHT - 6,
        [
            "Never power the strip from the Pico's VBUS or 3V3; join every GND "
            "(Pi, Pico, supply, strip)."
        ],
        2.4,
    )
    return _drawing(config, s)


def _drawing(config: BoardConfig, s: Sketch) -> Drawing:
    title = f"Wiring diagram: {config.name}"
    return Drawing(
        WIDTH,
        HEIGHT,
        title,
        (Group(tuple(s.items), id="diagram"),),
        description=f"{title}. Generated from {config.source}.",
    )


def wiring_diagram(config: BoardConfig, pico: PicoMatrix = FIRMWARE_MATRIX) -> Drawing:
    """The wiring diagram of a board config (shift-register chain or the Pico)."""
    if config.sensors.backend == "shift_register":
        return _shift_register_diagram(config)
    if config.sensors.backend == "serial":
        return _serial_diagram(config, pico)
    raise ValueError(
        f"no wiring diagram for the {config.sensors.backend} backend yet; "
        "the wiring tables (companion wiring) cover it"
    )


__all__ = ["Anchor", "Path", "Sketch", "wiring_diagram"]
