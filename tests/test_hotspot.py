"""``companion hotspot`` against a fake ``nmcli`` on PATH (the machine's edge: it records
its argv), and the Wi-Fi QR code on the host page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import segno

from companion.cli import main
from companion.pi import hotspot
from companion.web.pages import wifi_data

FAKE_NMCLI = """#!/usr/bin/env python3
import json, os, sys
log = os.environ["NMCLI_LOG"]
with open(log, "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
if sys.argv[1:] == ["-t", "-f", "NAME", "connection", "show"]:
    print(os.environ.get("NMCLI_KNOWN", "Home WiFi"))
"""


@pytest.fixture
def nmcli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nmcli").write_text(FAKE_NMCLI)
    (bin_dir / "nmcli").chmod(0o755)
    log = tmp_path / "nmcli.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("NMCLI_LOG", str(log))
    return log


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_the_hotspot_is_an_access_point_ranked_below_known_wifi(
    nmcli: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["hotspot", "--name", "Pyramid", "--password", "mummy-1234"]
    assert main([*args, "--config-dir", str(tmp_path / "etc")]) == 0
    add = calls(nmcli)[-1]
    assert add[:8] == ["connection", "add", "type", "wifi", "ifname", "wlan0", "con-name",
                       "pyramid-hotspot"]  # fmt: skip
    props = dict(zip(add[8::2], add[9::2], strict=True))
    assert props["802-11-wireless.ssid"] == "Pyramid"
    assert props["802-11-wireless.mode"] == "ap"
    assert props["ipv4.method"] == "shared"
    assert props["wifi-sec.key-mgmt"] == "wpa-psk" and props["wifi-sec.psk"] == "mummy-1234"
    assert int(props["connection.autoconnect-priority"]) < 0  # NetworkManager's default is 0
    assert hotspot.load(tmp_path / "etc") == hotspot.WifiJoin("Pyramid", "mummy-1234")
    assert (tmp_path / "etc" / "wifi.toml").stat().st_mode & 0o777 == 0o640
    assert "comes up by itself" in capsys.readouterr().out


def test_a_second_run_modifies_the_connection_instead_of_adding_one(
    nmcli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NMCLI_KNOWN", "Home WiFi\npyramid-hotspot")
    hotspot.create("Table 2", "another-pass", config_dir=tmp_path, now=True)
    made = calls(nmcli)
    assert made[1][:3] == ["connection", "modify", "pyramid-hotspot"]
    assert made[2] == ["connection", "up", "pyramid-hotspot"]


def test_bad_names_and_passwords_are_refused_before_nmcli_runs(
    nmcli: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["hotspot", "--config-dir", str(tmp_path), "--name", "Pyramid", "--password"]
    assert main([*args, "short"]) == 1
    assert "8 to 63" in capsys.readouterr().err
    assert main(["hotspot", "--config-dir", str(tmp_path), "--name", "x" * 33,
                 "--password", "long-enough"]) == 1  # fmt: skip
    assert not nmcli.exists()


def test_without_networkmanager_it_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(hotspot.HotspotError, match="network-manager"):
        hotspot.create("Pyramid", "mummy-1234", config_dir=tmp_path)


def test_the_host_page_shows_the_wifi_join_code(tmp_path: Path) -> None:
    from tests.test_pages import Table, start

    appliance = start(tmp_path)
    try:
        table = Table(appliance)
        page = table.host.get("/host").get_data(as_text=True)
        assert "join the Wi-Fi" not in page  # no hotspot made: no Wi-Fi code
        table.app.config["WIFI_JOIN"] = hotspot.WifiJoin('Pyr;amid "1"', "mummy-1234")
        page = table.host.get("/host").get_data(as_text=True)
        assert 'aria-label="QR code to join the Wi-Fi Pyr;amid &#34;1&#34;"' in page
        data = wifi_data('Pyr;amid "1"', "mummy-1234")
        assert data == 'WIFI:T:WPA;S:Pyr\\;amid \\"1\\";P:mummy-1234;;'  # escaped for phones
        expected = segno.make(data, error="m")
        svg = expected.svg_inline(scale=4, border=2, dark="#000", light="#fff", omitsize=True)
        assert page.split('class="qr wifi"')[1].find(svg) > 0
    finally:
        appliance.close()
