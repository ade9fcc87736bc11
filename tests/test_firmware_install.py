"""companion firmware install (to a mounted CIRCUITPY) and check (over the link)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.board.firmware_sim import SimulatedPico
from companion.cli import main
from companion.firmware import protocol
from companion.firmware.firmware import VERSION
from companion.pi.firmware_install import (
    FirmwareInstallError,
    find_circuitpy,
    install,
)

FIRMWARE = Path(__file__).resolve().parents[1] / "companion" / "firmware"


def circuitpy(tmp_path: Path) -> Path:
    drive = tmp_path / "CIRCUITPY"
    drive.mkdir()
    (drive / "boot_out.txt").write_text(
        "Adafruit CircuitPython 9.2.1 on 2024-11-20; Raspberry Pi Pico"
    )
    (drive / "code.py").write_text('print("Hello World!")\n')
    return drive


def test_install_copies_the_firmware_and_neopixel_and_keeps_the_boards_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drive = circuitpy(tmp_path)
    (drive / "settings.py").write_text("PIXEL_COUNT = 99  # this board's own\n")
    assert main(["firmware", "install", "--to", str(drive)]) == 0
    for name in ("boot.py", "code.py", "firmware.py", "protocol.py"):
        assert (drive / name).read_bytes() == (FIRMWARE / name).read_bytes()
    assert (drive / "settings.py").read_text() == "PIXEL_COUNT = 99  # this board's own\n"
    neopixel = (drive / "lib" / "neopixel.py").read_text()
    assert "class NeoPixel" in neopixel
    out = capsys.readouterr().out
    assert f"firmware {VERSION}" in out and "kept" in out and "RESET" in out
    install(drive, replace_settings=True)
    assert (drive / "settings.py").read_bytes() == (FIRMWARE / "settings.py").read_bytes()


def test_the_drive_is_found_in_the_mount_table_or_the_message_says_how_to_mount_it(
    tmp_path: Path,
) -> None:
    drive = circuitpy(tmp_path)
    mounts = tmp_path / "mounts"
    mounts.write_text(f"/dev/sda1 {drive} vfat rw,relatime 0 0\nproc /proc proc rw 0 0\n")
    assert find_circuitpy(mounts) == drive
    mounts.write_text("proc /proc proc rw 0 0\n")
    with pytest.raises(FirmwareInstallError) as caught:
        find_circuitpy(mounts)
    assert "/dev/disk/by-label/CIRCUITPY" in str(caught.value)
    assert "sudo mount" in str(caught.value)


def test_check_reports_the_boards_firmware_and_protocol_over_the_link(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with SimulatedPico(heartbeat_ms=100, poll_s=0.002) as pico:
        assert main(["firmware", "check", "--port", pico.url, "--timeout", "3"]) == 0
        out = capsys.readouterr().out
        assert f"firmware {VERSION}, protocol {protocol.PROTOCOL_VERSION}" in out
        assert "156 sensors, 152 pixels (GRB)" in out and "up to date" in out
        pico.firmware.version = "0.9.0"
        assert main(["firmware", "check", "--port", pico.url, "--timeout", "3"]) == 1
        assert "companion firmware install" in capsys.readouterr().out
