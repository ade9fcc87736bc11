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

#: The figures' magnet: 6 x 3 mm N35, axially magnetised, the same pole down in every figure.
#: (It was 8 x 3 mm: with it no orderable reed band passes both field models, the
#: datasheet's drop-out and five magnets; 6 x 3 mm gives the reed a 2.5 mm window of
#: depths and the DRV5032AJ one of 1.75 mm: "Substitutions" in hardware/README.md.)
MAGNET_DIAMETER_MM = 6.0
MAGNET_HEIGHT_MM = 3.0
MAGNET_GRADE = "N35"


@dataclass(frozen=True)
class ReedPackage:
    """An axial reed switch as its datasheet draws it (mm): the glass at its largest, and
    each lead from the glass's end at its shortest."""

    glass_length_max: float
    glass_diameter_max: float
    lead_diameter: float
    lead_length_min: float
    source: str


@dataclass(frozen=True)
class Sot23:
    """A SOT-23 (TI's DBZ) as its datasheet draws it (mm, largest values): the body, the
    span over the leads, a lead's width and its foot's length, the lead pitch (pins 1
    and 2 on one long side, pin 3 opposite, in the middle)."""

    body_length_max: float
    body_width_max: float
    height_max: float
    span_max: float
    lead_width_max: float
    foot_length_max: float
    pitch: float
    source: str


#: Littelfuse MDSR-10 ("Dimensions"): glass 10.16 mm MAX x 1.80 mm MAX, leads 0.43 mm,
#: 14.39 mm MIN from each end of the glass (40.38 mm overall, nominal).
MDSR_10 = ReedPackage(10.16, 1.80, 0.43, 14.39, "Littelfuse MDSR-10 datasheet, Dimensions")
#: TI DBZ (SOT-23-3), the DRV5032's package (SLVSDC7, "Mechanical, Packaging").
DBZ = Sot23(3.04, 1.40, 1.12, 2.64, 0.50, 0.60, 0.95, "TI SLVSDC7, DBZ package outline")


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
    reed_package: ReedPackage | None = None  # a reed's glass and leads (datasheet)
    sot23: Sot23 | None = None  # a SOT-23 Hall switch's outline (datasheet)
    sources: str = ""  # where the order code was found in catalogue text

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
    sensor=magnets.reed(10.16, (20.0, 25.0)),
    part=(
        "Littelfuse (Hamlin) MDSR-10 reed switch, 10.16 mm glass, pull-in band 20-25 AT, "
        "upright, held by the top of its glass"
    ),
    order_code="MDSR-10-20-25",
    depth_mm=9.25,
    body_mm=(MDSR_10.glass_length_max, MDSR_10.glass_diameter_max, MDSR_10.glass_diameter_max),
    per_sensor=(
        "every bend of a lead at least 3 mm from the glass, where the carrier's channels "
        "put it; never cut a lead (cutting or bending raises the AT, Standex); check a "
        "batch on the 3 x 3 jig"
    ),
    reed_package=MDSR_10,
    sources=(
        "Littelfuse's MDSR-10 datasheet, stored as MDSR-10-20-25 (datasheet.live) and "
        "listed as mdsr102025 (xonelec)"
    ),
)

HALL = Recommended(
    key="hall",
    designs=(1,),
    sensor=magnets.SENSORS["drv5032aj"],
    part="TI DRV5032AJ Hall switch (omnipolar, open drain, 9.5 mT), SOT-23, face up",
    order_code="DRV5032AJDBZR",
    depth_mm=5.5,
    package="sot23",
    body_mm=(2.92, 1.30, 1.12),
    per_sensor="a 100 nF ceramic capacitor from VCC to GND at the sensor (TI asks for 0.1 uF)",
    sot23=DBZ,
    sources="TI SLVSDC7, Device Comparison and Package Option Addendum",
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
        f"| depths that pass ({MAGNET_DIAMETER_MM:g} x {MAGNET_HEIGHT_MM:g} mm "
        f"{MAGNET_GRADE}, {magnets.FIGURES} magnets) |",
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


@dataclass(frozen=True)
class Substitute:
    """Another part in place of one the guide names, checked at the guide's depth for the
    build it would go into."""

    kind: str  # "reed band", "magnet" or "Hall variant"
    name: str
    into: Recommended  # the build it would go into, at that build's depth
    build: magnets.Build
    command: str  # the `companion hardware magnets` line that checks it

    def verdict(self) -> magnets.Verdict:
        return magnets.analyse(self.build)


def _reed_substitute(name: str, length: float, band: tuple[float, float]) -> Substitute:
    sensor = magnets.mounted(magnets.reed(length, band), None)
    return Substitute(
        "reed band",
        name,
        REED,
        replace(REED.build(), sensor=sensor),
        _command(f"reed-{length:g}mm", REED.depth_mm, band=band),
    )


def _magnet_substitute(into: Recommended, diameter: float, height: float, grade: str) -> Substitute:
    build = replace(into.build(), magnet_diameter_mm=diameter, magnet_height_mm=height, grade=grade)
    sensor = f"reed-{into.sensor.length_mm:g}mm" if into.sensor.is_reed else into.sensor.key
    band = (
        (into.sensor.operate_min or 0.0, into.sensor.operate_max) if into.sensor.is_reed else None
    )
    return Substitute(
        "magnet",
        f"{diameter:g} x {height:g} mm {grade}",
        into,
        build,
        _command(sensor, into.depth_mm, band=band, magnet=(diameter, height), grade=grade),
    )


def _hall_substitute(key: str) -> Substitute:
    sensor = magnets.SENSORS[key]
    return Substitute(
        "Hall variant",
        key.upper(),
        HALL,
        replace(HALL.build(), sensor=sensor),
        _command(key, HALL.depth_mm),
    )


def _command(
    sensor: str,
    depth: float,
    band: tuple[float, float] | None = None,
    magnet: tuple[float, float] = (MAGNET_DIAMETER_MM, MAGNET_HEIGHT_MM),
    grade: str = MAGNET_GRADE,
) -> str:
    at = f" --at {band[0]:g}-{band[1]:g}" if band else ""
    return (
        f"companion hardware magnets --magnet {magnet[0]:g}x{magnet[1]:g} --grade {grade} "
        f"--sensor {sensor}{at} --depth {depth:g}"
    )


def substitutes() -> list[Substitute]:
    """The substitution table's rows: reed bands and families, magnets, Hall variants."""
    return [
        _reed_substitute("MDSR-10-15-20", 10.16, (15.0, 20.0)),
        _reed_substitute("MDSR-10-10-15", 10.16, (10.0, 15.0)),
        _reed_substitute("MDSR-7-20-25", 12.7, (20.0, 25.0)),
        _reed_substitute("MDSR-7-15-20", 12.7, (15.0, 20.0)),
        _reed_substitute("a 14 mm reed of no stated band (10-30 AT)", 14.0, (10.0, 30.0)),
        *(
            _magnet_substitute(into, d, h, grade)
            for into in RECOMMENDED
            for d, h, grade in ((6.0, 3.0, "N42"), (6.0, 2.0, "N35"), (8.0, 3.0, "N35"))
        ),
        *(_hall_substitute(k) for k in ("drv5032fa", "drv5032fc")),
    ]


def nearby_window(build: magnets.Build, step: float = 0.25) -> tuple[float, float] | None:
    """The run of depths around ``build``'s own that pass (in ``step`` mm), or None
    when its own depth fails."""
    if not magnets.analyse(build).passed:
        return None
    ends = []
    for sign in (-1, 1):
        depth = build.depth_mm
        while magnets.analyse(build, round(depth + sign * step, 2)).passed:
            depth = round(depth + sign * step, 2)
        ends.append(depth)
    return (ends[0], ends[1])


def substitution_table() -> str:
    """The substitution table as hardware/README.md quotes it: each substitute at the
    guide's depth of the build it goes into, with the command that confirms it."""
    lines = [
        "| instead of the guide's | use | in the | at the guide's depth | operate margin "
        "| release margin | depths that pass | confirmed by |",
        "|---|---|---|---|---|---|---|---|",
    ]
    guide = {
        "reed band": REED.order_code,
        "magnet": f"{MAGNET_DIAMETER_MM:g} x {MAGNET_HEIGHT_MM:g} mm {MAGNET_GRADE}",
        "Hall variant": "DRV5032AJ",
    }
    for sub in substitutes():
        v = sub.verdict()
        unit = sub.build.sensor.catalogue_unit
        window = nearby_window(sub.build)
        spans = f"{window[0]:g} to {window[1]:g} mm" if window else "-"
        lines.append(
            f"| {guide[sub.kind]} | {sub.name} | {sub.into.key} build | "
            f"{sub.into.depth_mm:g} mm: {'pass' if v.passed else 'FAIL'} | "
            f"{v.operate_margin:+.2f} {unit} | {v.release_margin:+.2f} {unit} | {spans} | "
            f"`{sub.command}` |"
        )
    return "\n".join(lines)
