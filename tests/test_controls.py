"""Buttons and buzzer on gpiozero's mock pins."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.tones import Tone

from companion.board.controls import SOUNDS, Buttons, Buzzer


@pytest.fixture
def factory():
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


def test_a_pressed_button_reports_its_role(factory):
    pressed: list[str] = []
    done = threading.Event()

    def on_press(role: str) -> None:
        pressed.append(role)
        done.set()

    with Buttons({"roll": 5, "confirm": 6, "undo": 13}, on_press, pin_factory=factory):
        factory.pin(13).drive_low()  # pressed: the button pulls the pin to ground
        assert done.wait(1)
        factory.pin(13).drive_high()
    assert pressed == ["undo"]


def test_buttons_release_their_pins_on_close(factory):
    buttons = Buttons({"roll": 5}, lambda role: None, pin_factory=factory)
    buttons.close()
    with Buttons({"roll": 5}, lambda role: None, pin_factory=factory) as again:
        assert "roll" in again.buttons


def test_a_pin_already_in_use_closes_what_was_opened(factory):
    with pytest.raises(Exception, match=r"in use|already"):
        Buttons({"roll": 5, "undo": 5}, lambda role: None, pin_factory=factory)
    Buttons({"roll": 5}, lambda role: None, pin_factory=factory).close()


def test_the_buzzer_plays_the_notes_of_a_sound(factory):
    heard: set[float] = set()
    with Buzzer(12, pin_factory=factory) as buzzer:
        buzzer.play("catch")
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            frequency = factory.pin(12).frequency
            if frequency:
                heard.add(round(frequency))
            time.sleep(0.005)
        assert buzzer.played == ["catch"]
    assert heard >= {440, 330}  # A4 and E4 of the catch sound
    assert not factory.pin(12).frequency  # silent after close


def test_every_note_of_every_sound_is_within_the_buzzer_range(factory):
    with Buzzer(12, pin_factory=factory) as buzzer:
        low, high = buzzer.buzzer.min_tone.frequency, buzzer.buzzer.max_tone.frequency
        for name, notes in SOUNDS.items():
            for note, _ in notes:
                assert low <= Tone(note).frequency <= high, (name, note)


def test_idle_buttons_keep_no_thread_polling(factory):
    """An idle companion must not wake for its buttons (gpiozero's Button polls for holds)."""
    before = threading.active_count()
    with Buttons({"roll": 5, "confirm": 6, "undo": 13}, lambda role: None, pin_factory=factory):
        assert threading.active_count() == before
