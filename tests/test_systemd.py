"""The systemd unit and its installer."""

from __future__ import annotations

from pathlib import Path

from companion.service.install import install, unit_text

ROOT = Path(__file__).resolve().parent.parent


def test_the_packaged_unit_is_the_one_in_systemd():
    packaged = ROOT / "companion" / "service" / "data" / "pyramid-companion.service"
    assert packaged.read_bytes() == (ROOT / "systemd" / "pyramid-companion.service").read_bytes()


def test_the_unit_runs_unprivileged_restarts_and_keeps_state():
    text = unit_text("/opt/venv/bin/companion")
    lines = set(text.splitlines())
    config = "/etc/pyramid-companion/board.toml"
    assert f"ExecStart=/opt/venv/bin/companion run --config {config} --port 8080" in lines
    assert "User=companion" in lines
    assert "SupplementaryGroups=gpio spi dialout" in lines
    assert "Restart=on-failure" in lines
    assert "StateDirectory=pyramid-companion" in lines
    assert "NoNewPrivileges=yes" in lines
    assert "DeviceAllow=/dev/spidev0.1 rw" in lines
    assert "@COMPANION@" not in text


def test_install_dry_run_names_every_step(tmp_path):
    steps = install(unit_dir=tmp_path, dry_run=True)
    assert steps[0] == f"write {tmp_path / 'pyramid-companion.service'}"
    assert "systemctl enable --now pyramid-companion.service" in steps
    assert not (tmp_path / "pyramid-companion.service").exists()
