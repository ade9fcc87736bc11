"""A bench figure and the percentile every section reads its times with.

The bottom of ``companion.bench``: every section imports it, it imports no section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    key: str
    value: float
    unit: str
    reference: float | None = None
    reference_label: str = ""
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.reference in (None, 0):
            return None
        assert self.reference is not None
        return self.value / self.reference

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": round(self.value, 6), "unit": self.unit}
        if self.reference is not None:
            out["reference"] = round(self.reference, 6)
            out["ratio"] = None if self.ratio is None else round(self.ratio, 3)
        if self.reference_label:
            out["reference_label"] = self.reference_label
        if self.note:
            out["note"] = self.note
        return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]
