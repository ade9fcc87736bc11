"""The firmware's CPython stand-ins have the signatures of CircuitPython's real API.

The firmware's own mypy run checks firmware code against circuitpython-stubs; this checks
the other side: the stand-ins the simulated Pico and the firmware tests use accept the
same arguments, by the same names and kinds, as the stubs say the real classes do.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.board import firmware_sim as sim

ROOT = Path(__file__).resolve().parents[1]
STUBS = sorted(ROOT.glob(".venv/circuitpython/lib/python3*/site-packages"))

Shape = list[tuple[str, str, bool]]

CASES: list[tuple[str, str, str, Callable[..., Any]]] = [
    ("keypad", "KeyMatrix", "__init__", sim.KeyMatrix.__init__),
    ("keypad", "ShiftRegisterKeys", "__init__", sim.ShiftRegisterKeys.__init__),
    ("keypad", "Event", "__init__", sim.Event.__init__),
    ("keypad", "EventQueue", "get", sim.EventQueue.get),
    ("keypad", "EventQueue", "clear", sim.EventQueue.clear),
    ("keypad", "KeyMatrix", "reset", sim.KeyMatrix.reset),
    ("digitalio", "DigitalInOut", "__init__", sim.DigitalInOut.__init__),
    ("digitalio", "DigitalInOut", "switch_to_input", sim.DigitalInOut.switch_to_input),
    ("digitalio", "DigitalInOut", "switch_to_output", sim.DigitalInOut.switch_to_output),
    ("usb_cdc", "Serial", "read", sim.SimSerial.read),
    ("usb_cdc", "Serial", "write", sim.SimSerial.write),
]


def stub_shape(module: str, cls: str, method: str) -> Shape:
    """(name, kind, has a default) of each parameter in the stub, ``self`` left out."""
    tree = ast.parse((STUBS[-1] / f"{module}-stubs" / "__init__.pyi").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    a = item.args
                    positional = [*a.posonlyargs, *a.args][1:]
                    defaults = [False] * (len(positional) - len(a.defaults)) + [True] * len(
                        a.defaults
                    )
                    shape = [
                        (p.arg, "positional", d) for p, d in zip(positional, defaults, strict=True)
                    ]
                    shape += [
                        (p.arg, "keyword", d is not None)
                        for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
                    ]
                    return shape
    raise AssertionError(f"{module}.{cls}.{method} is not in circuitpython-stubs")


def standin_shape(function: Callable[..., Any]) -> Shape:
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
    }
    params = list(inspect.signature(function).parameters.values())[1:]
    return [(p.name, kinds[p.kind], p.default is not p.empty) for p in params]


@pytest.mark.parametrize(("module", "cls", "method", "standin"), CASES)
def test_standin_signature_is_circuitpythons(
    module: str, cls: str, method: str, standin: Callable[..., Any]
) -> None:
    if not STUBS:
        pytest.skip("circuitpython-stubs are not installed: `make typecheck` installs them")
    assert standin_shape(standin) == stub_shape(module, cls, method), (
        f"the stand-in for {module}.{cls}.{method} differs from CircuitPython's"
    )
