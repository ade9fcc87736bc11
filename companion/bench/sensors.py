"""``companion bench --only sensors``: a pin change to its occupancy event (settle
excluded), and the full-board scan against a bare loop reading the same pins.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from companion.bench.figures import Figure, percentile


def bench_sensors(quick: bool) -> list[Figure]:
    from companion.board.config import default_config
    from companion.board.mock_board import MockBoard, mock_factory
    from companion.board.sensors import Sensors, open_backend

    config = default_config()
    factory = mock_factory(config)
    figures = []
    with MockBoard(config, factory) as board:
        backend = open_backend(config.sensors, pin_factory=factory)
        reads = []
        for _ in range(50 if quick else 300):
            started = time.perf_counter()
            backend.read()
            reads.append(time.perf_counter() - started)
        backend.close()
        with Sensors(config.sensors, pin_factory=factory) as sensors:
            scans = []
            for _ in range(50 if quick else 300):
                started = time.perf_counter()
                sensors.scan_once()
                scans.append(time.perf_counter() - started)
        figures.append(
            Figure(
                "sensors.scan_p50",
                percentile(scans, 50) * 1000,
                "ms",
                percentile(reads, 50) * 1000,
                "bare read of the same pins",
                f"{config.sensors.backend}, {config.sensors.count} inputs, mock pins",
            )
        )
        figures.append(Figure("sensors.scan_p99", percentile(scans, 99) * 1000, "ms"))
        latencies: list[float] = []
        arrived = threading.Event()
        stamp: list[float] = []

        def on_change(change: Any) -> None:
            stamp.append(time.perf_counter())
            arrived.set()

        settle = config.sensors.settle_ms / 1000
        with Sensors(config.sensors, pin_factory=factory, on_change=on_change) as sensors:
            sensors.prime()
            sensors.start()
            target = board.position("F6")
            for i in range(15 if quick else 100):
                arrived.clear()
                stamp.clear()
                time.sleep(0.003 * (i % 5))  # not in step with the scans
                started = time.perf_counter()
                if i % 2 == 0:
                    board.place(target)
                else:
                    board.lift(target)
                if arrived.wait(2):
                    latencies.append(stamp[0] - started - settle)
            stats = sensors.stats()
    figures.append(
        Figure(
            "sensors.event_latency_p50",
            percentile(latencies, 50) * 1000,
            "ms",
            note=f"settle ({config.sensors.settle_ms:g} ms) excluded",
        )
    )
    figures.append(Figure("sensors.event_latency_p99", percentile(latencies, 99) * 1000, "ms"))
    figures.append(Figure("sensors.settle", config.sensors.settle_ms, "ms"))
    figures.append(
        Figure(
            "sensors.scan_rate",
            float(stats.get("scan_hz") or 0.0),
            "Hz",
            float(config.sensors.scan_hz),
            "configured rate",
        )
    )
    return figures
