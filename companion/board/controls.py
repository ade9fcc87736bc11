"""Optional push buttons (roll, confirm, undo) and a buzzer (catch, win, error)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from gpiozero import DigitalInputDevice, TonalBuzzer
from gpiozero.tones import Tone

from companion.closing import Closing

#: Short melodies (note, seconds) for what the game wants to say out loud.
SOUNDS: dict[str, tuple[tuple[str, float], ...]] = {
    "catch": (("A4", 0.12), ("E4", 0.12), ("A3", 0.3)),
    "win": (("C5", 0.12), ("E5", 0.12), ("G5", 0.12), ("A5", 0.4)),
    "error": (("A3", 0.15), ("A3", 0.15)),
}


class Buttons(Closing):
    """The configured buttons; ``on_press(role)`` is called from gpiozero's thread.

    A button pulls its pin to ground (internal pull-up).  They are plain
    ``DigitalInputDevice``s: gpiozero's ``Button`` adds a hold-detection thread per
    button that wakes ten times a second, and nothing here needs a long press.
    """

    def __init__(
        self,
        pins: dict[str, int],
        on_press: Callable[[str], None],
        *,
        bounce_time: float = 0.03,
        pin_factory: Any = None,
    ) -> None:
        self.buttons: dict[str, DigitalInputDevice] = {}
        try:
            for role, pin in pins.items():
                button = DigitalInputDevice(
                    pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory
                )
                button.when_activated = _caller(on_press, role)
                self.buttons[role] = button
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()


def _caller(on_press: Callable[[str], None], role: str) -> Callable[[], None]:
    return lambda: on_press(role)


class Buzzer(Closing):
    """A piezo buzzer that plays the named sounds in the background."""

    def __init__(self, pin: int, *, pin_factory: Any = None) -> None:
        self.buzzer = TonalBuzzer(pin, pin_factory=pin_factory)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Names of the sounds played, newest last (for tests and the simulator).
        self.played: list[str] = []

    def play(self, name: str) -> None:
        """Start playing ``name`` (catch, win, error); a sound still playing is cut short."""
        notes = SOUNDS[name]
        self.stop()
        self._stop.clear()
        self.played.append(name)
        self._thread = threading.Thread(target=self._run, args=(notes,), daemon=True)
        self._thread.start()

    def _run(self, notes: tuple[tuple[str, float], ...]) -> None:
        for note, seconds in notes:
            if self._stop.is_set():
                break
            try:
                self.buzzer.play(Tone(note))
            except ValueError:  # a note outside the buzzer's octave range: skip it
                continue
            if self._stop.wait(seconds):
                break
        self.buzzer.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def close(self) -> None:
        self.stop()
        self.buzzer.close()
