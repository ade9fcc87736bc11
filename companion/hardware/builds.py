"""The sensor builds the guide recommends: one source of truth for the BOM, the wiring
sheets, hardware/README.md and the printed parts (sensor carrier, figure base).

Each build is what ``companion hardware magnets`` passes with both margins (the tests run
the tool on every build here, and on a millimetre either side).  Depths are from the
magnet's underside to the sensing element (the top of a reed's glass, a Hall switch's
element, which lies below its package face); the stack above the carrier says where
each layer is, so a printed carrier that holds the sensor ``below_carrier_top_mm``
under its top and a figure base with the magnet ``STACK.figure_floor_mm`` above its
underside give the verified depth.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.hardware import magnets


@dataclass(frozen=True)
class Stack:
    """The layers between a figure's magnet and the top of the sensor carrier, mm."""

    figure_floor_mm: float = 1.0  # the figure base's floor under its magnet pocket
    cover_mm: float = 1.0  # the cover: 1 mm acrylic (or card of the same thickness)
    print_mm: float = 0.1  # the printed maze sheet under the cover

    @property
    def total_mm(self) -> float:
        return round(self.figure_floor_mm + self.cover_mm + self.print_mm, 2)


STACK = Stack()

#: The figures' magnet: 8 x 3 mm N35, axially magnetised, the same pole down in every figure.
MAGNET_DIAMETER_MM = 8.0
MAGNET_HEIGHT_MM = 3.0
MAGNET_GRADE = "N35"


@dataclass(frozen=True)
class Recommended:
    """A sensor build the tool passes: the part to order and where it sits."""

    key: str  # "reed" or "hall"
    designs: tuple[int, ...]  # the reference designs it fits (1: Pi only, 2: Pi + Pico)
    sensor: magnets.Sensor  # with its ordered band or variant
    part: str  # what to buy, in words
    order_code: str  # the manufacturer's code, with the AT band or the variant suffix
    depth_mm: float  # magnet underside to the sensing element (glass top for a reed)
    package: str = "sot23"  # a Hall switch's package (ELEMENT_BELOW_FACE)
    body_mm: tuple[float, float, float] = (0.0, 0.0, 0.0)  # length, width, height
    per_sensor: str = ""  # what else each sensor needs

    @property
    def element_below_face_mm(self) -> float:
        """How far the sensing element lies below the package face (0 for a reed)."""
        return 0.0 if self.sensor.is_reed else magnets.ELEMENT_BELOW_FACE[self.package]

    @property
    def face_depth_mm(self) -> float:
        """Magnet underside to the package face (a reed: the top of its glass)."""
        return round(self.depth_mm - self.element_below_face_mm, 2)

    @property
    def below_carrier_top_mm(self) -> float:
        """Carrier top to the package face (a reed: the top of its glass)."""
        return round(self.face_depth_mm - STACK.total_mm, 2)

    def build(self, pitch_mm: float = 25.0, depth_mm: float | None = None) -> magnets.Build:
        """This build as the magnet tool checks it."""
        return magnets.Build(
            MAGNET_DIAMETER_MM,
            MAGNET_HEIGHT_MM,
            MAGNET_GRADE,
            self.depth_mm if depth_mm is None else depth_mm,
            pitch_mm,
            magnets.mounted(self.sensor, None),
            package=self.package,
        )

    def command(self) -> str:
        """The ``companion hardware magnets`` line that checks it."""
        band = ""
        if self.sensor.is_reed:
            low = self.sensor.operate_min
            band = f" --at {low:g}-{self.sensor.operate_max:g}"
            sensor = f"reed-{self.sensor.length_mm:g}mm"
        else:
            sensor = self.sensor.key
        return (
            f"companion hardware magnets --magnet {MAGNET_DIAMETER_MM:g}x{MAGNET_HEIGHT_MM:g} "
            f"--grade {MAGNET_GRADE} --sensor {sensor}{band} --depth {self.depth_mm:g}"
        )


REED = Recommended(
    key="reed",
    designs=(1, 2),
    sensor=magnets.reed(12.7, (20.0, 25.0)),
    part="Littelfuse (Hamlin) MDSR-7 reed switch, 12.7 mm glass, pull-in band 20-25 AT, upright",
    order_code="MDSR-7-20-25",
    depth_mm=8.5,
    body_mm=(12.7, 1.8, 1.8),
    per_sensor=(
        "the leads bent as little as you can, well away from the glass: cutting or "
        "bending them raises the AT (Standex); check a batch on the 3 x 3 jig"
    ),
)

HALL = Recommended(
    key="hall",
    designs=(1,),
    sensor=magnets.SENSORS["drv5032aj"],
    part="TI DRV5032AJ Hall switch (omnipolar, open drain, 9.5 mT), SOT-23, face up",
    order_code="DRV5032AJDBZR",
    depth_mm=8.5,
    package="sot23",
    body_mm=(2.92, 1.30, 1.12),
    per_sensor="a 100 nF ceramic capacitor from VCC to GND at the sensor (TI asks for 0.1 uF)",
)

#: The recommended builds, reed first (it fits both designs).
RECOMMENDED = (REED, HALL)

#: A figure slid across the maze at hand speed spends 30 to 80 ms over a 25 mm cell
#: (docs/board-config.md, "Settle time").
SLIDE_OVER_CELL_MS = 80
#: The DRV5032's 20 Hz versions sample every 27 to 75 ms (13.3 to 37 Hz, TI SLVSDC7).
HALL_PERIOD_MAX_MS = 75


def settle_needed_ms(recommended: Recommended) -> int:
    """The settle time that keeps a slid figure from reporting the cells it passes: a reed
    is closed only while the figure is over it; a sampled Hall switch holds its output
    until the next sample, up to one whole period longer."""
    hold = 0 if recommended.sensor.is_reed else HALL_PERIOD_MAX_MS
    return SLIDE_OVER_CELL_MS + hold


def verdict_table(recommended: Recommended) -> str:
    """The tool's verdicts around the recommended depth, as hardware/README.md quotes them."""
    d = recommended.depth_mm
    build = recommended.build()
    lines = magnets.table(build, [d - 1, d - 0.5, d, d + 0.5, d + 1])
    lines.append("")
    lines += ["- " + line for line in magnets.explain(build, magnets.analyse(build))[:2]]
    return "\n".join(lines)


def hall_variants() -> str:
    """The DRV5032 variants the tool knows, with their limits and verdict windows, as
    hardware/README.md quotes them (a '-' is a limit the worst case never uses)."""
    lines = [
        "| variant | operate mT | release mT | output | sampling "
        "| depths that pass (8 x 3 mm N35) |",
        "|---|---|---|---|---|---|",
    ]
    for sensor in magnets.SENSORS.values():
        if sensor.is_reed:
            continue
        window = magnets.window(replace(HALL.build(), sensor=sensor))
        spans = ", ".join(f"{a:g} to {b:g} mm" for a, b in window) or "none"
        lines.append(
            f"| {sensor.key.upper()} | {_span(sensor.operate_min, sensor.operate_max)} | "
            f"{_span(sensor.release_min, sensor.release_max)} | {sensor.output} | "
            f"{sensor.sampling.split(':')[0]} | {spans} |"
        )
    return "\n".join(lines)


def _span(low: float | None, high: float | None) -> str:
    return f"{'-' if low is None else f'{low:g}'} to {'-' if high is None else f'{high:g}'}"
