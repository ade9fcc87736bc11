"""boot.py and code.py, the files copied to the Pico, run as files on the firmware stand-ins.

boot.py reads the play jumper at a spare matrix crossing and never touches the strip's
data line; code.py recovers from an error on the first run after power-up as on every
later one (``supervisor.reload()``), and leaves Ctrl-C to the REPL.
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from companion.board import firmware_sim as sim
from companion.firmware import firmware as firmware_logic
from companion.firmware import settings as shipped

FIRMWARE = Path(__file__).resolve().parents[1] / "companion" / "firmware"


class Hardware:
    """The Pico's board, its matrix of switches and its strip, wired as ``settings`` says."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.board = sim.board_module()
        self.switches = sim.Switches(len(settings.ROW_PINS) * len(settings.COLUMN_PINS))
        self.strip = sim.Strip(settings.PIXEL_COUNT)
        sim.wire_board(settings, self.board, self.switches, self.strip)
        self.hidden = 0
        self.usb: list[dict[str, bool]] = []
        sim.DigitalInOut.opened.clear()

    def modules(self) -> dict[str, ModuleType]:
        storage = ModuleType("storage")
        storage.disable_usb_drive = self._hide  # type: ignore[attr-defined]
        usb_cdc = ModuleType("usb_cdc")
        usb_cdc.enable = lambda **kinds: self.usb.append(kinds)  # type: ignore[attr-defined]
        settings = ModuleType("settings")
        vars(settings).update(vars(self.settings))
        return {
            "board": self.board,
            "digitalio": sim.digitalio_module(),
            "settings": settings,
            "storage": storage,
            "usb_cdc": usb_cdc,
        }

    def _hide(self) -> None:
        self.hidden += 1


def shipped_settings(**changes: Any) -> SimpleNamespace:
    values = {k: v for k, v in vars(shipped).items() if k.isupper()}
    values.update(changes)
    return SimpleNamespace(**values)


def power_up(hardware: Hardware, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run boot.py once, as CircuitPython does at power-up."""
    for name, module in hardware.modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    runpy.run_path(str(FIRMWARE / "boot.py"), run_name="__main__")


def test_the_shipped_jumper_is_a_crossing_the_example_config_leaves_spare() -> None:
    from companion.board.config import example_config_text, parse_config

    config = parse_config(example_config_text("reference-2-pico"))
    assert shipped.PLAY_JUMPER not in config.sensors.indices
    assert config.sensors.count > shipped.PLAY_JUMPER
    assert not hasattr(shipped, "HIDE_DRIVE_PIN"), "the jumper left the strip's data pin"
    row, column = divmod(shipped.PLAY_JUMPER, len(shipped.COLUMN_PINS))
    assert (shipped.ROW_PINS[row], shipped.COLUMN_PINS[column]) == ("GP11", "GP27")


@pytest.mark.parametrize("anodes", [True, False], ids=["anodes-on-columns", "anodes-on-rows"])
def test_boot_reads_the_play_jumper_at_its_crossing(
    anodes: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    hardware = Hardware(shipped_settings(COLUMNS_TO_ANODES=anodes))
    hardware.switches.set(shipped.PLAY_JUMPER, True)
    power_up(hardware, monkeypatch)
    assert hardware.hidden == 1, "a closed jumper hides CIRCUITPY"
    assert hardware.usb == [{"console": True, "data": True}]
    # Both pins are free again for keypad (code.py), nothing left driven.
    assert all(
        pin.driven is None for pin in vars(hardware.board).values() if hasattr(pin, "driven")
    )


def test_an_open_jumper_keeps_the_drive_whatever_else_is_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Figures on the jumper's own row and column (the pads, the last maze row) do not
    read as the jumper: the crossings' diodes keep them apart."""
    hardware = Hardware(shipped_settings())
    columns = len(shipped.COLUMN_PINS)
    row, column = divmod(shipped.PLAY_JUMPER, columns)
    for index in (row * columns, row * columns + column - 1, (row - 1) * columns + column, 0):
        hardware.switches.set(index, True)
    power_up(hardware, monkeypatch)
    assert hardware.hidden == 0


def test_boot_never_touches_the_strips_data_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The strip got garbage at every reset when boot.py pulled GP28 up to read the old
    jumper there; now only the jumper's row and column are opened."""
    for closed in (False, True):
        hardware = Hardware(shipped_settings())
        hardware.switches.set(shipped.PLAY_JUMPER, closed)
        power_up(hardware, monkeypatch)
        assert shipped.PIXEL_PIN not in sim.DigitalInOut.opened
        assert sorted(sim.DigitalInOut.opened) == ["GP11", "GP27"]
        assert hardware.strip.shows == 0


def test_no_jumper_configured_opens_no_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    hardware = Hardware(shipped_settings(PLAY_JUMPER=None))
    hardware.switches.set(shipped.PLAY_JUMPER, True)
    power_up(hardware, monkeypatch)
    assert hardware.hidden == 0 and sim.DigitalInOut.opened == []


# -- code.py: an error restarts the firmware on the first run too ---------------------------


class Reloaded(BaseException):
    """What ``supervisor.reload()`` raises: the run ends and code.py starts again."""


class BrokenUSB:
    """usb_cdc.data whose port fails once the loop runs (a cable pulled mid-write)."""

    connected = True
    timeout = 0.0
    write_timeout = 0.0

    @property
    def in_waiting(self) -> int:
        raise OSError(5, "Input/output error")

    def write(self, data: bytes) -> int:
        return len(data)


@pytest.fixture
def first_run(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The stand-ins for code.py's modules on a freshly powered Pico (no earlier run)."""
    calls = SimpleNamespace(next_code=[], reloads=0, sleeps=[], fed=0, keypad=None)
    supervisor = ModuleType("supervisor")

    def set_next_code_file(filename: str | None, **options: bool) -> None:
        calls.next_code.append((filename, options))

    def reload() -> None:
        calls.reloads += 1
        raise Reloaded

    vars(supervisor).update(
        set_next_code_file=set_next_code_file,
        reload=reload,
        runtime=SimpleNamespace(autoreload=True),
    )
    hardware = Hardware(shipped_settings())
    watchdog = ModuleType("watchdog")
    watchdog.WatchDogMode = SimpleNamespace(RESET="RESET")  # type: ignore[attr-defined]
    dog = SimpleNamespace(timeout=0.0, mode=None, feed=lambda: None)
    microcontroller = ModuleType("microcontroller")
    microcontroller.watchdog = dog  # type: ignore[attr-defined]
    usb_cdc = ModuleType("usb_cdc")
    usb_cdc.data = BrokenUSB()  # type: ignore[attr-defined]
    keypad = sim.keypad_module()
    modules = hardware.modules()
    modules.update(
        supervisor=supervisor,
        watchdog=watchdog,
        microcontroller=microcontroller,
        usb_cdc=usb_cdc,
        keypad=keypad,
        neopixel=sim.neopixel_module(),
        firmware=firmware_logic,  # code.py's ``import firmware``: the one copy
    )
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr("time.sleep", lambda seconds: calls.sleeps.append(seconds))
    calls.keypad, calls.dog = keypad, dog
    yield calls


def run_code_py() -> None:
    runpy.run_path(str(FIRMWARE / "code.py"), run_name="__main__")


def test_an_error_in_the_first_runs_set_up_reloads_the_board(
    first_run: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pin keypad refuses at the very first start, before the watchdog is armed: with
    only reload_on_error (effective from the next run) the board would sit at the REPL."""

    def refuse(**options: Any) -> None:
        raise ValueError("GP11 in use")

    first_run.keypad.KeyMatrix = refuse
    with pytest.raises(Reloaded):
        run_code_py()
    assert first_run.reloads == 1
    assert first_run.sleeps == [1.0]
    assert first_run.next_code == [(None, {"reload_on_error": True})]
    assert first_run.dog.timeout == 0.0, "the error came before the watchdog was armed"
    out = capsys.readouterr().out
    assert "firmware error, restarting in 1.0 s: ValueError('GP11 in use')" in out


def test_an_error_in_the_first_runs_loop_reloads_the_board(
    first_run: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(Reloaded):
        run_code_py()
    assert first_run.reloads == 1 and first_run.dog.timeout == 5.0
    assert "OSError(5, 'Input/output error')" in capsys.readouterr().out


def test_ctrl_c_on_the_console_still_stops_at_the_repl(first_run: SimpleNamespace) -> None:
    def interrupted(**options: Any) -> None:
        raise KeyboardInterrupt

    first_run.keypad.KeyMatrix = interrupted
    with pytest.raises(KeyboardInterrupt):
        run_code_py()
    assert first_run.reloads == 0
