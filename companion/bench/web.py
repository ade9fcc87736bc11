"""``companion bench --only web``: the bytes of each page with everything it loads."""

from __future__ import annotations

import re
import tempfile
import urllib.request

from companion.bench.clients import host_session, run_companion
from companion.bench.figures import Figure


def bench_web(quick: bool) -> list[Figure]:
    figures = []
    with tempfile.TemporaryDirectory() as directory:
        proc, port, _ = run_companion(directory)
        try:
            opener, _ = host_session(f"http://127.0.0.1:{port}")
            for path in _page_paths():
                total = _page_bytes(opener, f"http://127.0.0.1:{port}", path)
                if total is not None:
                    key = "web.bytes" + (path.rstrip("/").replace("/", ".") or ".root")
                    figures.append(Figure(key, total, "bytes", note=f"{path} with its assets"))
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    return figures


def _page_paths() -> list[str]:
    paths = ["/sim", "/lootnrun", "/crypt", "/"]
    return paths


def _page_bytes(opener: urllib.request.OpenerDirector, base: str, path: str) -> int | None:
    try:
        with opener.open(base + path, timeout=5) as res:
            if res.status != 200:
                return None
            html = res.read()
    except OSError:
        return None
    total = len(html)
    for asset in sorted(set(re.findall(rb'(?:src|href)="(/[^"#?]+)"', html))):
        try:
            with opener.open(base + asset.decode(), timeout=5) as res:
                total += len(res.read())
        except OSError:
            continue
    return total
