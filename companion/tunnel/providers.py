"""The tunnel providers: each one's own client, started when it is installed (never
downloaded here), and the public address it prints.

- **Cloudflare quick tunnel**: ``cloudflared tunnel --url http://127.0.0.1:PORT``, no
  account; it prints a ``https://….trycloudflare.com`` address. Cloudflare's edge
  terminates TLS: Cloudflare can read the remote seat's traffic.
- **Tailscale Funnel**: ``tailscale funnel PORT`` for an owner whose Pi is in a tailnet
  with Funnel allowed; it prints the ``https://….ts.net`` address. TLS ends on the Pi.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)


class NotInstalled(RuntimeError):
    """The provider's client is not on this machine; the message says how to install it."""


@dataclass(frozen=True)
class Provider:
    """One tunnel provider: its client program, how to start it, where its address shows."""

    name: str
    label: str
    program: str
    address: re.Pattern[str]
    install: str
    #: Who can read the remote seat's traffic, in a sentence for the host page and docs.
    sees: str

    def command(self, program: str, port: int) -> list[str]:
        if self.name == "cloudflare":
            return [program, "tunnel", "--no-autoupdate", "--url", f"http://127.0.0.1:{port}"]
        return [program, "funnel", str(port)]

    def find(self, which: Callable[[str], str | None] = shutil.which) -> str:
        """The client's path; NotInstalled with the words to install it otherwise."""
        found = which(self.program)
        if found is None:
            raise NotInstalled(self.install)
        return found


CLOUDFLARE = Provider(
    "cloudflare",
    "Cloudflare quick tunnel",
    "cloudflared",
    re.compile(r"https://[-a-z0-9]+\.trycloudflare\.com"),
    "cloudflared is not installed. Install it from Cloudflare's own Debian repository "
    "(see https://pkg.cloudflare.com: add the repository, then sudo apt install "
    "cloudflared) and try again. The companion never downloads it itself.",
    "Cloudflare terminates TLS: it can read the remote seat's traffic.",
)
TAILSCALE = Provider(
    "tailscale",
    "Tailscale Funnel",
    "tailscale",
    re.compile(r"https://[-a-z0-9.]+\.ts\.net\S*"),
    "tailscale is not installed. Install it from Tailscale's own repository (see "
    "https://tailscale.com/download/linux), run sudo tailscale up, allow Funnel for this "
    "device in the tailnet's settings, and try again. The companion never downloads it "
    "itself.",
    "TLS ends on the Pi: Tailscale carries the traffic but cannot read it.",
)
PROVIDERS = {p.name: p for p in (CLOUDFLARE, TAILSCALE)}


class TunnelClient:
    """The provider's client as a child process, and the public address it printed."""

    def __init__(
        self,
        provider: Provider,
        port: int,
        *,
        which: Callable[[str], str | None] = shutil.which,
        on_address: Callable[[str], object] = lambda url: None,
        on_exit: Callable[[int], object] = lambda code: None,
    ) -> None:
        self.provider = provider
        self.command = provider.command(provider.find(which), port)
        self.on_address, self.on_exit = on_address, on_exit
        self.address = ""
        self.output: list[str] = []
        self.stopping = False
        self.proc = subprocess.Popen(
            self.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        self._thread = threading.Thread(target=self._read, name="tunnel-client", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output = [*self.output[-40:], line.rstrip()]
            found = self.provider.address.search(line)
            if found and not self.address:
                self.address = found.group(0).rstrip("/")
                log.info("%s open: %s", self.provider.label, self.address)
                self.on_address(self.address)
        code = self.proc.wait()
        if not self.stopping:
            log.warning(
                "%s ended (exit %d): %s", self.provider.label, code, " | ".join(self.output[-3:])
            )
            self.on_exit(code)

    def stop(self, timeout: float = 5.0) -> None:
        """End the client (the tunnel closes with it)."""
        self.stopping = True
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
