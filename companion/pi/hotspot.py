"""``companion hotspot``: the Pi as the players' Wi-Fi access point, for a table with no router.

Creates (or updates) a NetworkManager connection ``pyramid-hotspot`` with ``nmcli``: an
access point with WPA2, the network name and password the host chooses, and the Pi
sharing its address (``ipv4.method shared``: phones get addresses from the Pi, which is
``10.42.0.1``).  Its autoconnect priority is below every known Wi-Fi network (NetworkManager's
default is 0), so at home the Pi joins the home network and at a table out of its reach it
opens the hotspot.  The name and password are kept in ``wifi.toml`` beside the board config
(readable by the service's group) for the Wi-Fi QR code on the host page.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.inputs import read_text

CONNECTION = "pyramid-hotspot"
#: Below NetworkManager's default of 0: every known network is tried first.
PRIORITY = -10
WIFI_FILE = "wifi.toml"


class HotspotError(ValueError):
    """A name, password or nmcli failure, said in words."""


@dataclass(frozen=True)
class WifiJoin:
    """What a phone needs to join the table's Wi-Fi."""

    ssid: str
    password: str


def check(ssid: str, password: str) -> None:
    if not 1 <= len(ssid.encode()) <= 32:
        raise HotspotError("the network name must be 1 to 32 bytes long")
    if not 8 <= len(password) <= 63 or not password.isascii():
        raise HotspotError("the password must be 8 to 63 plain characters (WPA2)")


def settings(ssid: str, password: str) -> list[str]:
    """nmcli's property list for the access point."""
    return [
        "802-11-wireless.ssid", ssid,
        "802-11-wireless.mode", "ap",
        "802-11-wireless.band", "bg",
        "ipv4.method", "shared",
        "ipv6.method", "ignore",
        "wifi-sec.key-mgmt", "wpa-psk",
        "wifi-sec.psk", password,
        "connection.autoconnect", "yes",
        "connection.autoconnect-priority", str(PRIORITY),
    ]  # fmt: skip


def nmcli(args: Sequence[str]) -> str:
    if shutil.which("nmcli") is None:
        raise HotspotError(
            "nmcli is missing: the hotspot needs NetworkManager (Raspberry Pi OS Bookworm "
            "has it; else sudo apt-get install network-manager)"
        )
    done = subprocess.run(["nmcli", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip()
        raise HotspotError(f"nmcli {args[0]} {args[1]} failed: {detail}")
    return done.stdout


def create(
    ssid: str, password: str, *, ifname: str = "wlan0", config_dir: Path, now: bool = False
) -> list[str]:
    """Create or update the hotspot connection; with ``now`` also bring it up."""
    check(ssid, password)
    names = nmcli(["-t", "-f", "NAME", "connection", "show"]).splitlines()
    if CONNECTION in names:
        nmcli(["connection", "modify", CONNECTION, *settings(ssid, password)])
        done = [f"updated the NetworkManager connection {CONNECTION}"]
    else:
        nmcli(
            ["connection", "add", "type", "wifi", "ifname", ifname, "con-name", CONNECTION,
             *settings(ssid, password)]
        )  # fmt: skip
        done = [f"created the NetworkManager connection {CONNECTION} on {ifname}"]
    save(config_dir, WifiJoin(ssid, password))
    done.append(f"wrote {config_dir / WIFI_FILE} (for the Wi-Fi QR code on the host page)")
    if now:
        nmcli(["connection", "up", CONNECTION])
        done.append("the hotspot is up: phones join it, then open http://10.42.0.1/")
    else:
        done.append(
            "it comes up by itself when no known Wi-Fi is in reach (or now: "
            f"sudo nmcli connection up {CONNECTION})"
        )
    return done


def remove(config_dir: Path) -> list[str]:
    nmcli(["connection", "delete", CONNECTION])
    (config_dir / WIFI_FILE).unlink(missing_ok=True)
    return [f"deleted the NetworkManager connection {CONNECTION}"]


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def save(config_dir: Path, join: WifiJoin) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    path = config_dir / WIFI_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f"ssid = {_quoted(join.ssid)}\npassword = {_quoted(join.password)}\n")
    with contextlib.suppress(LookupError, PermissionError):
        shutil.chown(path, group="companion")  # the service user reads it


def load(config_dir: Path) -> WifiJoin | None:
    """The saved hotspot, or None (no hotspot, or not readable here)."""
    try:
        data = tomllib.loads(read_text(config_dir / WIFI_FILE))
        return WifiJoin(str(data["ssid"]), str(data["password"]))
    except (OSError, KeyError, ValueError):  # TOMLDecodeError, UnicodeDecodeError
        return None
