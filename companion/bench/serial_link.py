"""``companion bench --only serial``: an LED frame to the simulated Pico over a pty,
and a press to its event."""

from __future__ import annotations

import time

from companion.bench.figures import Figure, percentile


def bench_serial(quick: bool) -> list[Figure]:
    """An LED frame to the simulated Pico over a pty, and a press to its event."""
    import queue

    from companion.board.firmware_sim import SimulatedPico
    from companion.board.serial_link import SerialLink

    pixels = 152
    pico = SimulatedPico(156, pixels)
    events: queue.Queue[float] = queue.Queue()
    link = SerialLink(pico.url, on_event=lambda index, pressed, at: events.put(time.perf_counter()))
    try:
        deadline = time.monotonic() + 5
        while not link.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        transfers: list[float] = []
        wire: list[int] = []
        for i in range(20 if quick else 100):
            colour = (i % 200 + 1, (7 * i) % 256, (13 * i) % 256)
            frame = bytes(colour) * pixels
            before = link.stats()["bytes_sent"]
            started = time.perf_counter()
            link.send_frame(frame)

            def latched(lit: list[tuple[int, int, int]], c: tuple[int, int, int] = colour) -> bool:
                return lit[0] == c and lit[-1] == c

            if pico.strip.wait_for(latched, 2.0):
                transfers.append(time.perf_counter() - started)
            wire.append(link.stats()["bytes_sent"] - before)
        latencies: list[float] = []
        for i in range(30 if quick else 300):
            while not events.empty():
                events.get_nowait()
            time.sleep(0.002 * (i % 3))
            started = time.perf_counter()
            (pico.press if i % 2 == 0 else pico.release)(10)
            try:
                latencies.append(events.get(timeout=2) - started)
            except queue.Empty:
                continue
    finally:
        link.close()
        pico.close()
    frame_bytes = max(wire) if wire else 0
    usb_full_speed = frame_bytes * 8 / 12e6 * 1000
    return [
        Figure("serial.led_frame_bytes", float(frame_bytes), "bytes", note=f"{pixels} pixels"),
        Figure(
            "serial.led_frame_p50",
            percentile(transfers, 50) * 1000,
            "ms",
            usb_full_speed,
            "the same bytes at USB full speed (12 Mbit/s)",
            "host send to strip latched in the simulated firmware, over a pty",
        ),
        Figure("serial.led_frame_p99", percentile(transfers, 99) * 1000, "ms"),
        Figure(
            "serial.event_latency_p50",
            percentile(latencies, 50) * 1000,
            "ms",
            note="simulated press to the host's event, over a pty",
        ),
        Figure("serial.event_latency_p99", percentile(latencies, 99) * 1000, "ms"),
    ]
