"""Probing a printed part's mesh as a printer would see it: where a vertical line at
(x, y) enters and leaves the plastic, whether a point is inside it, and whether a lead's
path runs through air from end to end.  Used by the tests (the carrier's depths and lead
paths, traced through the STL) and by the section render (``section``).

Coordinates are the STL's: mm, x east, y north, z up from the print bed.  The board's
(x east, y south, a depth down from the carrier's top) become these with y -> -y and
depth -> thickness - depth.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: A probe never lands exactly on a facet's edge.
EPS = (0.0137, 0.0113)


class Probe:
    """Vertical lines through one mesh (a trimesh.Trimesh, or anything with
    ``triangles``), with the triangles near each line picked out first."""

    def __init__(self, mesh: Any) -> None:
        import numpy as np

        self._np = np
        self.triangles = np.asarray(mesh.triangles, dtype=float)
        self._low = self.triangles[:, :, :2].min(axis=1)
        self._high = self.triangles[:, :, :2].max(axis=1)

    def near(self, x0: float, y0: float, x1: float, y1: float) -> Probe:
        """A probe of only the triangles over the rectangle (x0, y0)-(x1, y1): as good as
        this one for every line inside it, and much faster."""
        keep = (
            (self._high[:, 0] >= x0)
            & (self._low[:, 0] <= x1)
            & (self._high[:, 1] >= y0)
            & (self._low[:, 1] <= y1)
        )
        part = Probe.__new__(Probe)
        part._np = self._np
        part.triangles = self.triangles[keep]
        part._low, part._high = self._low[keep], self._high[keep]
        return part

    def crossings(self, x: float, y: float) -> list[float]:
        """Heights where the vertical line at (x, y) crosses the surface, low to high
        (an even number: the plastic lies between the 1st and 2nd, the 3rd and 4th...)."""
        np = self._np
        x, y = x + EPS[0], y + EPS[1]
        near = (
            (self._low[:, 0] <= x)
            & (x <= self._high[:, 0])
            & (self._low[:, 1] <= y)
            & (y <= self._high[:, 1])
        )
        tri = self.triangles[near]
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        v0, v1 = c[:, :2] - a[:, :2], b[:, :2] - a[:, :2]
        den = v0[:, 0] * v1[:, 1] - v1[:, 0] * v0[:, 1]
        ok = np.abs(den) > 1e-12
        v2x, v2y = x - a[:, 0], y - a[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            u = (v2x * v1[:, 1] - v1[:, 0] * v2y) / den
            v = (v0[:, 0] * v2y - v2x * v0[:, 1]) / den
            inside = ok & (u >= 0) & (v >= 0) & (u + v <= 1)
        z = (
            a[inside, 2]
            + u[inside] * (c[inside, 2] - a[inside, 2])
            + v[inside] * (b[inside, 2] - a[inside, 2])
        )
        hits = sorted({round(float(h), 4) for h in z})
        if len(hits) % 2:
            raise ValueError(f"the line at {x}, {y} enters and leaves the solid: {hits}")
        return hits

    def solid(self, x: float, y: float, z: float) -> bool:
        """Whether (x, y, z) lies in the plastic."""
        hits = self.crossings(x, y)
        return any(hits[i] < z < hits[i + 1] for i in range(0, len(hits), 2))


def blocked(
    probe: Probe, points: Iterable[tuple[float, float, float]], thickness: float, radius: float
) -> list[tuple[float, float, float]]:
    """The points of a path (board mm: x east, y south, depth under the top) where a
    wire of ``radius`` around it would be in the plastic: its centre or any of the six
    points ``radius`` from it east, west, north, south, up and down."""
    bad = []
    points = list(points)
    r = radius
    around = [(0.0, 0.0, 0.0), (r, 0, 0), (-r, 0, 0), (0, r, 0), (0, -r, 0), (0, 0, r), (0, 0, -r)]
    xs, ys = [p[0] for p in points], [-p[1] for p in points]
    probe = probe.near(min(xs) - 2 * r, min(ys) - 2 * r, max(xs) + 2 * r, max(ys) + 2 * r)
    for x, y, depth in points:
        z = thickness - depth
        if any(probe.solid(x + dx, -(y + dy), z + dz) for dx, dy, dz in around):
            bad.append((x, y, depth))
    return bad
