"""The sensor-and-LED tile, built, routed, checked and plotted by KiCad's own ``pcbnew``.

This file runs under the system Python that Debian's ``kicad`` package gives its
``pcbnew`` module (``/usr/bin/python3``), never in the project's venv: ``pcb.py`` starts
it in a subprocess with a JSON plan of the tile (geometry, which chip input reads which
cell, which LED comes when) and reads back JSON: the netlist KiCad holds, the
placements, the DRC counts and the files written.  So it uses only the standard library,
numpy (Debian's, beside pcbnew) and pcbnew.

Why pcbnew and not a file writer (kiutils, SKiDL): the checks the issue asks for (every
net routed, zones filled, the DRC report, the Gerber and drill plots) are KiCad's own
engine, so the board is made in the same model that checks and plots it, with the
footprints of KiCad's own library (Debian's ``kicad-footprints``).

Routing is by construction: every part's pads get fixed short stubs to a via on a 0.5 mm
grid, ground and the LED supply go straight down to their planes (In1.Cu GND, In2.Cu
+5V), and every other net is routed on F.Cu and B.Cu by a Lee/A* maze router over the
grid, whose blocked nodes are every other net's copper grown by the clearance.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pcbnew

Node = tuple[int, int, int]  # (layer 0 F.Cu / 1 B.Cu, row, column) of the grid
LIB = Path("/usr/share/kicad/footprints")
GRID = 0.5
TRACK = 0.2  # mm, signal tracks
POWER_TRACK = 0.4  # mm, stubs to the planes
VIA = 0.6
VIA_DRILL = 0.3
CLEARANCE = 0.2  # netclass clearance (the fab's minimum is 0.127)
EPS = 0.08  # grid tracks run between nodes: the margin for a node-checked segment
VIA_PITCH = 1.3  # vias of different nets this far apart leave a plane neck between them

FOOTPRINTS = {
    "sensor": ("Package_TO_SOT_SMD", "SOT-23"),
    "c0402": ("Capacitor_SMD", "C_0402_1005Metric"),
    "r0402": ("Resistor_SMD", "R_0402_1005Metric"),
    "c0805": ("Capacitor_SMD", "C_0805_2012Metric"),
    "chip": ("Package_SO", "SOIC-16_3.9x9.9mm_P1.27mm"),
    "led": ("LED_SMD", "LED_WS2812B-2020_PLCC4_2.0x2.0mm"),
    "idc": ("Connector_IDC", "IDC-Header_2x05_P2.54mm_Vertical"),
    "power": ("Connector_JST", "JST_VH_B2P-VH_1x02_P3.96mm_Vertical"),
    "hole": ("MountingHole", "MountingHole_3.2mm_M3"),
}

#: The 74HC165's pins (Nexperia 74HC165 datasheet, pinning).
HC165_INPUT_PINS = {"A": 11, "B": 12, "C": 13, "D": 14, "E": 3, "F": 4, "G": 5, "H": 6}


def mm(value: float) -> int:
    return int(pcbnew.FromMM(value))


def point(x: float, y: float) -> Any:
    return pcbnew.wxPointMM(x, y)


class Tile:
    """One tile: parts placed from the plan, stubs drawn, nets known to the router."""

    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan = plan
        self.size = (plan["tile_columns"] * plan["pitch"], plan["tile_rows"] * plan["pitch"])
        self.board = pcbnew.BOARD()
        self.board.SetCopperLayerCount(4)
        self.nets: dict[str, Any] = {}
        self.fps: dict[str, Any] = {}
        self.bom: list[dict[str, Any]] = []
        #: net -> routing terminals: ("via", x, y) or ("pad", x, y, radius)
        self.terminals: dict[str, list[tuple[Any, ...]]] = {}
        self.obstacles: list[tuple[Any, ...]] = []  # (layers, net, x1, y1, x2, y2, halfwidth)
        self.holes: list[tuple[float, float, float]] = []
        self.drills: list[tuple[float, float, float]] = []  # plated: pads and vias
        self._rules()

    # -- board set-up --------------------------------------------------------------

    def _rules(self) -> None:
        rules = self.plan["rules"]
        ds = self.board.GetDesignSettings()
        ds.m_TrackMinWidth = mm(rules["track_min"])
        ds.m_MinClearance = mm(rules["clearance_min"])
        ds.m_ViasMinSize = mm(rules["via_diameter_min"])
        ds.m_MinThroughDrill = mm(rules["drill_min"])
        ds.m_ViasMinAnnularWidth = mm(rules["annular_ring_min"])
        ds.m_HoleToHoleMin = mm(rules["hole_to_hole_min"])
        ds.m_CopperEdgeClearance = mm(rules["copper_to_edge_min"])
        ds.m_HoleClearance = mm(rules["hole_to_copper_min"])
        ds.m_SilkClearance = mm(rules["silk_clearance_min"])
        netclass = ds.GetNetClasses().GetDefault()
        netclass.SetClearance(mm(CLEARANCE))
        netclass.SetTrackWidth(mm(TRACK))
        netclass.SetViaDiameter(mm(VIA))
        netclass.SetViaDrill(mm(VIA_DRILL))
        width, height = self.size
        corners = [(0, 0), (width, 0), (width, height), (0, height)]
        for (x1, y1), (x2, y2) in zip(corners, corners[1:] + corners[:1], strict=True):
            edge = pcbnew.PCB_SHAPE(self.board)
            edge.SetShape(pcbnew.SHAPE_T_SEGMENT)
            edge.SetStart(point(x1, y1))
            edge.SetEnd(point(x2, y2))
            edge.SetLayer(pcbnew.Edge_Cuts)
            edge.SetWidth(mm(0.1))
            self.board.Add(edge)

    def net(self, name: str) -> Any:
        if name not in self.nets:
            item = pcbnew.NETINFO_ITEM(self.board, name)
            self.board.Add(item)
            self.nets[name] = item
        return self.nets[name]

    def place(
        self,
        ref: str,
        kind: str,
        x: float,
        y: float,
        angle: float = 0.0,
        nets: dict[str, str] | None = None,
        bottom: bool = False,
        part: dict[str, Any] | None = None,
    ) -> Any:
        library, name = FOOTPRINTS[kind]
        fp = pcbnew.FootprintLoad(str(LIB / f"{library}.pretty"), name)
        if fp is None:
            raise SystemExit(f"KiCad footprint {library}:{name} not found (kicad-footprints)")
        fp.SetReference(ref)
        fp.Reference().SetVisible(False)
        fp.Value().SetVisible(False)
        if part:
            fp.SetValue(part["value"])
        self.board.Add(fp)
        fp.SetPosition(point(x, y))
        fp.SetOrientationDegrees(angle)
        if bottom:
            fp.Flip(fp.GetPosition(), False)
        for item in fp.GraphicalItems():  # no silkscreen: the printed spacer covers it
            if item.GetLayer() == pcbnew.F_SilkS:
                item.SetLayer(pcbnew.F_Fab)
            elif item.GetLayer() == pcbnew.B_SilkS:
                item.SetLayer(pcbnew.B_Fab)
        for pad in fp.Pads():
            net = (nets or {}).get(pad.GetName())
            if net:
                pad.SetNet(self.net(net))
            self._pad_obstacle(pad, net or f"~{ref}.{pad.GetName()}")
        self.fps[ref] = fp
        if part:
            self.bom.append(
                {
                    "ref": ref,
                    "x": x,
                    "y": y,
                    "rotation": angle,
                    "layer": "bottom" if bottom else "top",
                    "footprint": name,
                    **part,
                }
            )
        return fp

    def pad(self, ref: str, name: str) -> tuple[float, float]:
        for pad in self.fps[ref].Pads():
            if pad.GetName() == name:
                pos = pad.GetPosition()
                return pcbnew.ToMM(pos.x), pcbnew.ToMM(pos.y)
        raise KeyError(f"{ref}.{name}")

    def _pad_obstacle(self, pad: Any, net: str) -> None:
        box = pad.GetBoundingBox()
        x0, y0 = pcbnew.ToMM(box.GetX()), pcbnew.ToMM(box.GetY())
        w, h = pcbnew.ToMM(box.GetWidth()), pcbnew.ToMM(box.GetHeight())
        if pad.GetAttribute() in (pcbnew.PAD_ATTRIB_PTH, pcbnew.PAD_ATTRIB_NPTH):
            layers = ("F", "B")
        else:
            layers = ("F",) if pad.IsOnLayer(pcbnew.F_Cu) else ("B",)  # type: ignore[assignment]
        if w >= h:
            r = h / 2
            self.obstacles.append((layers, net, x0 + r, y0 + r, x0 + w - r, y0 + r, r))
        else:
            r = w / 2
            self.obstacles.append((layers, net, x0 + r, y0 + r, x0 + r, y0 + h - r, r))
        if pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH:
            cx, cy = x0 + w / 2, y0 + h / 2
            self.holes.append((cx, cy, pcbnew.ToMM(pad.GetDrillSize().x) / 2))
        elif pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH:
            cx, cy = x0 + w / 2, y0 + h / 2
            self.drills.append((cx, cy, pcbnew.ToMM(pad.GetDrillSize().x) / 2))

    def track(self, net: str, layer: str, points: list[tuple[float, float]], width: float) -> None:
        for (x1, y1), (x2, y2) in itertools.pairwise(points):
            if (x1, y1) == (x2, y2):
                continue
            t = pcbnew.PCB_TRACK(self.board)
            t.SetStart(point(x1, y1))
            t.SetEnd(point(x2, y2))
            t.SetWidth(mm(width))
            t.SetLayer(pcbnew.F_Cu if layer == "F" else pcbnew.B_Cu)
            t.SetNet(self.net(net))
            self.board.Add(t)
            self.obstacles.append(((layer,), net, x1, y1, x2, y2, width / 2))

    def via(self, net: str, x: float, y: float) -> None:
        v = pcbnew.PCB_VIA(self.board)
        v.SetPosition(point(x, y))
        v.SetViaType(pcbnew.VIATYPE_THROUGH)
        v.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
        v.SetWidth(mm(VIA))
        v.SetDrill(mm(VIA_DRILL))
        v.SetNet(self.net(net))
        self.board.Add(v)
        self.obstacles.append((("F", "B", "V"), net, x, y, x, y, VIA / 2))
        self.drills.append((x, y, VIA_DRILL / 2))

    def stub(self, net: str, points: list[tuple[float, float]], width: float = TRACK) -> None:
        """Pad to a via: the track's points, the via at the last one (a routing terminal
        for a signal, the way down to its plane for GND and +5V)."""
        x, y = points[-1]
        snapped = (round(x / GRID) * GRID, round(y / GRID) * GRID)
        if snapped != (x, y):
            points = [*points, snapped]
        self.track(net, "F", points, width)
        self.via(net, *points[-1])
        if net not in self.plan["planes"].values():
            self.terminals.setdefault(net, []).append(("via", *points[-1]))

    def zone(self, net: str, layer: int) -> None:
        width, height = self.size
        zone = pcbnew.ZONE(self.board)
        zone.SetLayer(layer)
        zone.SetNet(self.net(net))
        zone.SetLocalClearance(mm(CLEARANCE))
        zone.SetMinThickness(mm(0.2))
        zone.SetPadConnection(pcbnew.ZONE_CONNECTION_FULL)
        outline = zone.Outline()
        outline.NewOutline()
        inset = self.plan["rules"]["copper_to_edge_min"]
        for x, y in (
            (inset, inset),
            (width - inset, inset),
            (width - inset, height - inset),
            (inset, height - inset),
        ):
            outline.Append(mm(x), mm(y))
        self.board.Add(zone)


# -- the parts -------------------------------------------------------------------------


def build(plan: dict[str, Any]) -> Tile:
    tile = Tile(plan)
    parts = plan["parts"]
    gnd, vled = plan["planes"]["In1.Cu"], plan["planes"]["In2.Cu"]
    pitch = plan["pitch"]
    for cell in plan["cells"]:
        k = cell["index"]
        cx = pitch / 2 + pitch * cell["column"]
        cy = pitch / 2 + pitch * cell["row"]
        sense, din, dout = cell["sensor_net"], cell["led_in"], cell["led_out"]
        u, cs, r, d, cl = f"U{k + 1}", f"C{k + 1}", f"R{k + 1}", f"D{k + 1}", f"C{k + 101}"
        tile.place(
            u, "sensor", cx, cy, 0, {"1": "+3V3", "2": sense, "3": gnd}, part=parts["sensor"]
        )
        tile.place(cs, "c0402", cx, cy - 2.7, 0, {"1": "+3V3", "2": gnd}, part=parts["c100n"])
        tile.place(r, "r0402", cx - 3.2, cy, 270, {"1": "+3V3", "2": sense}, part=parts["r10k"])
        led_y = cy + plan["led_offset"]  # the LED beside the sensor, its capacitor below
        tile.place(
            d,
            "led",
            cx,
            led_y,
            180,
            {"1": dout, "2": gnd, "3": din, "4": vled},
            part=parts["led"],
        )
        tile.place(cl, "c0402", cx, led_y + 2.2, 0, {"1": vled, "2": gnd}, part=parts["c100n"])
        # the sensor: VCC to its capacitor and the pull-up, OUT to the pull-up
        vcc, out, ground = tile.pad(u, "1"), tile.pad(u, "2"), tile.pad(u, "3")
        r1, r2 = tile.pad(r, "1"), tile.pad(r, "2")
        if r1[1] > r2[1]:
            raise SystemExit("pull-up pads are not where the stubs expect them")
        tile.track("+3V3", "F", [vcc, (vcc[0], cy - 2.7), tile.pad(cs, "1")], TRACK)
        tile.stub(
            "+3V3",
            [vcc, (r1[0], vcc[1]), r1, (r1[0], vcc[1]), (cx - 4.5, vcc[1]), (cx - 4.5, cy - 1.0)],
        )
        tile.stub(
            sense,
            [out, (r2[0], out[1]), r2, (r2[0], out[1]), (cx - 4.5, out[1]), (cx - 4.5, cy + 1.0)],
        )
        tile.stub(gnd, [ground, (cx + 2.4, ground[1])], POWER_TRACK)
        c2 = tile.pad(cs, "2")
        tile.stub(gnd, [c2, (cx + 1.9, c2[1])], POWER_TRACK)
        # the LED: its supply through its capacitor, data in on the left, out on the right
        p_out, p_gnd, p_in, p_vdd = (tile.pad(d, n) for n in "1234")
        if not (p_in[0] < cx < p_out[0]):
            raise SystemExit("LED pads are not where the stubs expect them")
        tile.track(vled, "F", [p_vdd, (p_vdd[0], led_y + 2.2), tile.pad(cl, "1")], POWER_TRACK)
        tile.stub(vled, [(p_vdd[0], led_y + 2.2), (cx - 2.0, led_y + 2.2)], POWER_TRACK)
        tile.stub(gnd, [tile.pad(cl, "2"), (cx + 2.0, led_y + 2.2)], POWER_TRACK)
        tile.stub(gnd, [p_gnd, (p_gnd[0], led_y - 1.7)], POWER_TRACK)
        tile.stub(din, [p_in, (cx - 2.5, p_in[1]), (cx - 2.5, led_y - 0.5)])
        tile.stub(dout, [p_out, (cx + 2.5, p_out[1]), (cx + 2.5, led_y + 0.5)])
    for chip in plan["chips"]:
        _chip(tile, chip, gnd)
    for extra in plan["extras"]:  # two-pad parts: pad 1 out to the left, pad 2 to the right
        ref, x, y = extra["ref"], extra["x"], extra["y"]
        tile.place(ref, extra["kind"], x, y, 0, extra["nets"], part=parts[extra["part"]])
        for name, dx in (("1", -2.0), ("2", 2.0)):
            net = extra["nets"][name]
            px, py = tile.pad(ref, name)
            width = POWER_TRACK if net in plan["planes"].values() else TRACK
            tile.stub(net, [(px, py), (px + dx, py)], width)
    for conn in plan["connectors"]:
        tile.place(
            conn["ref"],
            conn["kind"],
            conn["x"],
            conn["y"],
            conn["angle"],
            conn["nets"],
            bottom=True,
        )
        pads = {name: tile.pad(conn["ref"], name) for name in conn["nets"]}
        middle = sum(y for _, y in pads.values()) / len(pads)
        for name, net in conn["nets"].items():
            if net in plan["planes"].values():
                continue
            x, y = pads[name]
            # out of the header's rows, away from the other row, to a via
            away = y - 3.0 if y < middle else y + 3.0
            tile.stub(net, [(x, y), (x, away)])
    for n, (x, y) in enumerate(plan["holes"]):
        tile.place(f"H{n + 1}", "hole", x, y)
    for layer, net in plan["planes"].items():
        tile.zone(net, {"In1.Cu": pcbnew.In1_Cu, "In2.Cu": pcbnew.In2_Cu}[layer])
    for text in plan["texts"]:
        item = pcbnew.PCB_TEXT(tile.board)
        item.SetText(text["text"])
        item.SetPosition(point(text["x"], text["y"]))
        item.SetLayer(pcbnew.B_SilkS if text["bottom"] else pcbnew.F_SilkS)
        item.SetTextSize(pcbnew.wxSizeMM(1.2, 1.2))
        item.SetTextThickness(mm(0.18))
        if text["bottom"]:
            item.SetMirrored(True)
        tile.board.Add(item)
    return tile


def _chip(tile: Tile, chip: dict[str, Any], gnd: str) -> None:
    """A 74HC165 at (x, y), pins 1-8 on the left: stubs out to vias, staggered."""
    ref, x, y, nets = chip["ref"], chip["x"], chip["y"], chip["nets"]
    parts = tile.plan["parts"]
    tile.place(ref, "chip", x, y, 0, nets, part=parts["hc165"])
    for name, net in nets.items():
        px, py = tile.pad(ref, name)
        pin = int(name)
        left = px < x
        if net == gnd:
            tile.stub(gnd, [(px, py), (px - 1.7, py)], POWER_TRACK)
            continue
        if pin == 16:  # VCC: to its capacitor on the right, and up to a via
            cap = chip["cap"]
            tile.place(cap, "c0402", px + 3.0, py, 0, {"1": net, "2": gnd}, part=parts["c100n"])
            tile.track(net, "F", [(px, py), tile.pad(cap, "1")], TRACK)
            tile.stub(gnd, [tile.pad(cap, "2"), (px + 4.8, py)], POWER_TRACK)
            tile.stub(net, [(px, py), (px, y - 6.0), (round(px * 2) / 2, y - 6.0)])
            continue
        column = (pin % 2) if left else ((pin + 1) % 2)
        vx = (px - 2.5 - 1.5 * column) if left else (px + 2.5 + 1.5 * column)
        vy = round(py * 2) / 2
        tile.stub(net, [(px, py), (vx, py), (vx, vy)])


# -- the router ------------------------------------------------------------------------


def _gap(terminal: tuple[Any, ...], nodes: set[Node]) -> float:
    """Manhattan distance (mm) from a terminal to the nearest node of a routed tree."""
    return float(
        min(abs(terminal[1] - ix * GRID) + abs(terminal[2] - iy * GRID) for _, iy, ix in nodes)
    )


class Router:
    """A* over a 0.5 mm grid on F.Cu and B.Cu; a node is free for a net when no other
    net's copper comes nearer than its half width + the clearance + a track's half width."""

    LAYERS = ("F", "B")

    def __init__(self, tile: Tile) -> None:
        self.tile = tile
        width, height = tile.size
        self.nx = round(width / GRID) + 1
        self.ny = round(height / GRID) + 1
        self.ids: dict[str, int] = {}
        self.block = {
            layer: np.full((self.ny, self.nx), -1, dtype=np.int32) for layer in self.LAYERS
        }
        self.vblock = np.full((self.ny, self.nx), -1, dtype=np.int32)
        self.xs = np.arange(self.nx) * GRID
        self.ys = np.arange(self.ny) * GRID
        edge = tile.plan["rules"]["copper_to_edge_min"] + VIA / 2 + 0.1
        border = np.ones((self.ny, self.nx), dtype=bool)
        border[:, :] = False
        border[self.ys < edge, :] = True
        border[self.ys > height - edge, :] = True
        border[:, self.xs < edge] = True
        border[:, self.xs > width - edge] = True
        for grid in (*self.block.values(), self.vblock):
            grid[border] = -2
        for x, y, r in tile.holes:
            self._mark_circle(x, y, r + 0.35, -2, self.LAYERS, via=True)
        for obstacle in tile.obstacles:
            self._mark(obstacle)
        self.drills_marked = 0
        self._mark_drills()

    def _mark_drills(self) -> None:
        """No new via's hole nearer any hole than the fab's hole-to-hole minimum, of
        whatever net (a via beside its own net's pad too)."""
        rule = self.tile.plan["rules"]["hole_to_hole_min"]
        for x, y, r in self.tile.drills[self.drills_marked :]:
            dist = self._distance(x, y, x, y)
            self._claim(self.vblock, dist < r + VIA_DRILL / 2 + rule + EPS, -2)
        self.drills_marked = len(self.tile.drills)

    def id(self, net: str) -> int:
        return self.ids.setdefault(net, len(self.ids) + 1)

    def _claim(self, grid: np.ndarray, mask: np.ndarray, owner: int) -> None:
        if owner == -2:
            grid[mask] = -2
            return
        free = mask & (grid == -1)
        other = mask & (grid != -1) & (grid != owner)
        grid[free] = owner
        grid[other] = -2

    def _distance(self, x1: float, y1: float, x2: float, y2: float) -> np.ndarray:
        px, py = np.meshgrid(self.xs, self.ys)
        dx, dy = x2 - x1, y2 - y1
        length2 = dx * dx + dy * dy
        if length2 == 0:
            return np.hypot(px - x1, py - y1)
        t = np.clip(((px - x1) * dx + (py - y1) * dy) / length2, 0.0, 1.0)
        return np.hypot(px - (x1 + t * dx), py - (y1 + t * dy))

    def _mark(self, obstacle: tuple[Any, ...]) -> None:
        layers, net, x1, y1, x2, y2, hw = obstacle
        owner = self.id(net)
        dist = self._distance(x1, y1, x2, y2)
        for layer in self.LAYERS:
            if layer in layers:
                self._claim(self.block[layer], dist < hw + CLEARANCE + TRACK / 2 + EPS, owner)
        reach = hw + CLEARANCE + VIA / 2 + EPS
        if "V" in layers:
            reach = max(reach, VIA_PITCH)
        self._claim(self.vblock, dist < reach, owner)

    def _mark_circle(
        self, x: float, y: float, r: float, owner: int, layers: tuple[str, ...], via: bool
    ) -> None:
        dist = self._distance(x, y, x, y)
        for layer in layers:
            self._claim(self.block[layer], dist < r + TRACK / 2, owner)
        if via:
            self._claim(self.vblock, dist < r + VIA / 2, owner)

    def node(self, x: float, y: float) -> tuple[int, int]:
        return round(y / GRID), round(x / GRID)

    def terminal_nodes(self, terminal: tuple[Any, ...]) -> set[tuple[int, int, int]]:
        if terminal[0] == "via":
            iy, ix = self.node(terminal[1], terminal[2])
            return {(0, iy, ix), (1, iy, ix)}
        _, x, y, r = terminal
        nodes = set()
        for iy in range(int((y - r) / GRID) - 1, int((y + r) / GRID) + 2):
            for ix in range(int((x - r) / GRID) - 1, int((x + r) / GRID) + 2):
                if math.hypot(ix * GRID - x, iy * GRID - y) <= r:
                    nodes |= {(0, iy, ix), (1, iy, ix)}
        return nodes

    def route(self, net: str) -> None:
        terminals = self.tile.terminals[net]
        owner = self.id(net)
        tree = self.terminal_nodes(terminals[0])
        rest = list(terminals[1:])
        while rest:
            # the nearest terminal next: short links first, a tree like a minimum one
            rest.sort(key=functools.partial(_gap, nodes=tree))
            target = rest.pop(0)
            goal = self.terminal_nodes(target)
            path = self._search(owner, tree, goal)
            if path is None:
                raise SystemExit(f"the router found no way for {net} to {target}")
            self.via_nodes: set[Node] = set()
            self._commit(net, path)
            tree |= set(path) | goal | self.via_nodes

    def _passable(self, owner: int, layer: int, iy: int, ix: int) -> bool:
        value = self.block[self.LAYERS[layer]][iy, ix]
        return bool(value == -1 or value == owner)

    def _search(self, owner: int, sources: set[Node], goal: set[Node]) -> list[Node] | None:
        gy = [iy for _, iy, _ in goal]
        gx = [ix for _, _, ix in goal]
        y0, y1, x0, x1 = min(gy), max(gy), min(gx), max(gx)

        def h(iy: int, ix: int) -> int:
            return max(0, y0 - iy, iy - y1) + max(0, x0 - ix, ix - x1)

        best: dict[tuple[int, int, int], float] = {}
        came: dict[tuple[int, int, int], tuple[int, int, int] | None] = {}
        heap: list[tuple[float, float, Node]] = []
        for s in sources:
            best[s] = 0.0
            came[s] = None
            heapq.heappush(heap, (h(s[1], s[2]), 0.0, s))
        while heap:
            _, cost, current = heapq.heappop(heap)
            if cost > best.get(current, math.inf):
                continue
            if current in goal:
                path = []
                node: tuple[int, int, int] | None = current
                while node is not None:
                    path.append(node)
                    node = came[node]
                return path[::-1]
            layer, iy, ix = current
            steps = []
            for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                ny, nx = iy + dy, ix + dx
                if 0 <= ny < self.ny and 0 <= nx < self.nx and self._passable(owner, layer, ny, nx):
                    steps.append(((layer, ny, nx), 1.0))
            other = 1 - layer
            v = self.vblock[iy, ix]
            if (v == -1 or v == owner) and self._passable(owner, other, iy, ix):
                steps.append(((other, iy, ix), 12.0))
            for nxt, step in steps:
                # a bend costs a little: straighter tracks, fewer segments
                prev = came.get(current)
                turned = (nxt[1] - iy, nxt[2] - ix) != (
                    iy - (prev or current)[1],
                    ix - (prev or current)[2],
                )
                if prev is not None and prev[0] == layer == nxt[0] and turned:
                    step += 0.4
                total = cost + step
                if total < best.get(nxt, math.inf):
                    best[nxt] = total
                    came[nxt] = current
                    heapq.heappush(heap, (total + h(nxt[1], nxt[2]), total, nxt))
        return None

    def _commit(self, net: str, path: list[Node]) -> None:
        """The path as tracks (runs merged) and vias where it changes layer."""
        runs: list[list[tuple[int, int, int]]] = [[path[0]]]
        for node in path[1:]:
            last = runs[-1][-1]
            if node[0] != last[0]:
                x, y = last[2] * GRID, last[1] * GRID
                self.tile.via(net, x, y)
                self._mark(self.tile.obstacles[-1])
                self._mark_drills()
                self.via_nodes |= {(0, last[1], last[2]), (1, last[1], last[2])}
                runs.append([node])
            else:
                runs[-1].append(node)
        for run in runs:
            if len(run) < 2:
                continue
            corners = [run[0]]
            for a, b, c in zip(run, run[1:], run[2:], strict=False):
                if (b[1] - a[1], b[2] - a[2]) != (c[1] - b[1], c[2] - b[2]):
                    corners.append(b)
            corners.append(run[-1])
            layer = self.LAYERS[run[0][0]]
            points = [(n[2] * GRID, n[1] * GRID) for n in corners]
            before = len(self.tile.obstacles)
            self.tile.track(net, layer, points, TRACK)
            for obstacle in self.tile.obstacles[before:]:
                self._mark(obstacle)


def drop_dangling_vias(tile: Tile) -> None:
    """A terminal via whose route left on F.Cu joins nothing on B.Cu or a plane: gone."""
    planes = set(tile.plan["planes"].values())
    back = [
        (t.GetStart(), t.GetEnd())
        for t in tile.board.GetTracks()
        if t.GetClass() == "PCB_TRACK" and t.GetLayer() == pcbnew.B_Cu
    ]

    def on_back(p: Any) -> bool:
        for a, b in back:
            inside = min(a.x, b.x) <= p.x <= max(a.x, b.x) and min(a.y, b.y) <= p.y <= max(a.y, b.y)
            if inside and (b.x - a.x) * (p.y - a.y) == (b.y - a.y) * (p.x - a.x):
                return True
        return False

    for item in list(tile.board.GetTracks()):
        signal = item.GetClass() == "PCB_VIA" and item.GetNetname() not in planes
        if signal and not on_back(item.GetPosition()):
            tile.board.Remove(item)


# -- checks and outputs ----------------------------------------------------------------


def netlist(board: Any) -> dict[str, Any]:
    """Every pad's net, by reference and pad name, as KiCad holds it."""
    pads: dict[str, dict[str, str]] = {}
    for fp in board.GetFootprints():
        ref = fp.GetReference()
        for pad in fp.Pads():
            pads.setdefault(ref, {})[pad.GetName()] = pad.GetNetname()
    return pads


def drc(board: Any, report: Path) -> dict[str, Any]:
    pcbnew.WriteDRCReport(board, str(report), pcbnew.EDA_UNITS_MILLIMETRES, True)
    text = report.read_text(encoding="utf-8", errors="replace")
    counts = {}
    for line in text.splitlines():
        line = line.strip()
        for key in ("DRC violations", "unconnected pads", "Footprint errors"):
            if line.startswith("** Found") and key in line:
                counts[key] = int(line.split()[2])
    return counts


def plot(board: Any, out: Path, plan: dict[str, Any]) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    # the files' origin at the board's lower left corner: x right, y up, all positive,
    # the frame the placement file (CPL) uses too
    origin = point(0, plan["tile_rows"] * plan["pitch"])
    board.GetDesignSettings().SetAuxOrigin(origin)
    controller = pcbnew.PLOT_CONTROLLER(board)
    options = controller.GetPlotOptions()
    options.SetOutputDirectory(str(out))
    options.SetUseAuxOrigin(True)
    options.SetPlotFrameRef(False)
    options.SetUseGerberProtelExtensions(True)
    options.SetUseGerberX2format(True)
    options.SetIncludeGerberNetlistInfo(True)
    options.SetCreateGerberJobFile(False)
    options.SetSubtractMaskFromSilk(True)
    options.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.NO_DRILL_SHAPE)
    options.SetSkipPlotNPTH_Pads(False)
    written = []
    layers = [
        ("F_Cu", pcbnew.F_Cu),
        ("In1_Cu", pcbnew.In1_Cu),
        ("In2_Cu", pcbnew.In2_Cu),
        ("B_Cu", pcbnew.B_Cu),
        ("F_Mask", pcbnew.F_Mask),
        ("B_Mask", pcbnew.B_Mask),
        ("F_Paste", pcbnew.F_Paste),
        ("F_Silkscreen", pcbnew.F_SilkS),
        ("B_Silkscreen", pcbnew.B_SilkS),
        ("Edge_Cuts", pcbnew.Edge_Cuts),
    ]
    for name, layer in layers:
        controller.SetLayer(layer)
        controller.OpenPlotfile(name, pcbnew.PLOT_FORMAT_GERBER, name)
        controller.PlotLayer()
        written.append(controller.GetPlotFileName())
    controller.ClosePlot()
    drill = pcbnew.EXCELLON_WRITER(board)
    drill.SetOptions(False, False, origin, False)
    drill.SetFormat(True)
    drill.CreateDrillandMapFilesSet(str(out), True, False)
    written += [str(p) for p in sorted(out.glob("*.drl"))]
    # the copper as SVG, for the render
    svg = out.parent / "svg"
    svg.mkdir(exist_ok=True)
    options.SetOutputDirectory(str(svg))
    options.SetMirror(False)
    for name, layer in (("F_Cu", pcbnew.F_Cu), ("B_Cu", pcbnew.B_Cu), ("In1_Cu", pcbnew.In1_Cu)):
        controller.SetLayer(layer)
        controller.OpenPlotfile(name, pcbnew.PLOT_FORMAT_SVG, name)
        controller.PlotLayer()
    controller.ClosePlot()
    return written


def main() -> int:
    plan = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    out = Path(plan["out"])
    out.mkdir(parents=True, exist_ok=True)
    tile = build(plan)
    router = Router(tile)
    for net in plan["route_order"]:
        if net in tile.terminals and len(tile.terminals[net]) > 1:
            router.route(net)
    drop_dangling_vias(tile)
    name = plan["name"]
    pcb = out / f"{name}.kicad_pcb"
    pcbnew.SaveBoard(str(pcb), tile.board)
    # the checks run on the board as KiCad reads it back from the file
    board = pcbnew.LoadBoard(str(pcb))
    filler = pcbnew.ZONE_FILLER(board)
    filler.Fill(board.Zones())
    board.BuildConnectivity()
    unconnected = board.GetConnectivity().GetUnconnectedCount()
    pcbnew.SaveBoard(str(pcb), board)
    board = pcbnew.LoadBoard(str(pcb))
    board.BuildConnectivity()
    counts = drc(board, out / f"{name}-drc.rpt")
    files = plot(board, out / "gerbers", plan)
    zones = [
        {
            "layer": z.GetLayerName(),
            "net": z.GetNetname(),
            "filled": bool(z.IsFilled()),
            "area_mm2": pcbnew.ToMM(pcbnew.ToMM(z.GetFilledArea())),
        }
        for z in board.Zones()
    ]
    result = {
        "pcb": str(pcb),
        "unconnected": unconnected,
        "drc": counts,
        "zones": zones,
        "netlist": netlist(board),
        "placements": tile.bom,
        "tracks": sum(1 for t in board.GetTracks() if t.GetClass() == "PCB_TRACK"),
        "vias": sum(1 for t in board.GetTracks() if t.GetClass() == "PCB_VIA"),
        "files": files,
        "pads": sum(len(list(fp.Pads())) for fp in board.GetFootprints()),
    }
    Path(sys.argv[2]).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
