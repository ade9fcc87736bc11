"""The whole appliance wired together: board config, sensors, LEDs, journal, service.

In mock mode the same code runs on gpiozero's MockFactory with a simulated board
(``MockBoard``) and a PixelBuf stand-in for the strip; on a Pi it runs on the real pins.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.board.config import BoardConfig
from companion.board.controls import Buttons, Buzzer
from companion.board.mock_board import MockBoard, mock_factory
from companion.board.pixels import LedOutput, open_pixels
from companion.board.render import Geometry, render, still
from companion.board.scene import Scene
from companion.board.sensors import Sensors
from companion.board.serial_board import SerialBoard, simulated_board
from companion.closing import Closing
from companion.games.mummy.commands import EndTurn, Roll
from companion.games.mummy.events import GameWon, SeekerCaught
from companion.games.mummy.maze import Maze
from companion.games.mummy.state import Phase
from companion.journal import Journal, JournalWriteError
from companion.pi.pin_factory import open_pin_factory
from companion.table.hub import GameHub, GameService

from .loop import ServiceError
from .mummy_computer import ComputerSeat
from .mummy_service import Service
from .mummy_tracker import BoardMap
from .registry import game_factories

log = logging.getLogger(__name__)


#: While nothing moves the LEDs wait for a change, but look again at least this often.
STILL_RECHECK_S = 1.0


class Lights:
    """Renders the active game's scene to the LEDs in a thread: at a steady frame rate
    while anything moves, and only when the scene changes while nothing does.  A change
    (a game published) wakes the thread at once, between frames too: a mummy step
    reaches the LEDs without waiting for the next frame slot, and the animation goes on
    at its rate from that frame.  ``on_frame`` listeners hear of every new frame (the
    simulated board's stream shows each one)."""

    def __init__(self, service: GameHub, leds: LedOutput, geometry: Geometry, fps: float = 30):
        self.service = service
        self.leds = leds
        self.geometry = geometry
        self.period = 1.0 / fps
        self.frames = 0
        #: The last rendered frame (one colour per position) and when it was shown.
        self.last_frame: tuple[tuple[int, int, int], ...] = ()
        self.last_frame_at = 0.0
        self.last_frame_perf = 0.0
        self.last_scene: Scene | None = None
        #: The last frame stays right until the scene changes (see ``render.still``).
        self.still = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lights", daemon=True)
        self._listeners: list[Callable[[], object]] = []

    def start(self) -> None:
        self._thread.start()

    def on_frame(self, listener: Callable[[], object]) -> None:
        """Call ``listener()`` after every new frame is shown (from the LED thread)."""
        if listener not in self._listeners:
            self._listeners.append(listener)

    def show_once(self, t: float | None = None) -> None:
        """Render the scene and push the frame, unless the strip already shows it."""
        now = time.monotonic() if t is None else t
        scene = self.service.scene()
        frame = render(scene, now, self.geometry)
        fresh = frame != self.last_frame
        if fresh:
            self.leds.show(frame)
            self.last_frame = frame
            self.frames += 1
        self.last_frame_at = time.monotonic()
        self.last_frame_perf = time.perf_counter()
        self.last_scene = scene
        self.still = still(scene, now)
        if fresh:
            for listener in self._listeners:
                listener()

    def _run(self) -> None:
        changed = self.service.changed
        next_at = time.monotonic()
        while not self._stop.is_set():
            changed.clear()  # before reading the scene: a change after this wakes us
            if self._stop.is_set():  # close() may have set both just before the clear
                break
            try:
                self.show_once()
            except Exception:
                log.exception("LED frame failed")
                self.still = False
            if self.still:
                changed.wait(STILL_RECHECK_S)
                next_at = time.monotonic()
                continue
            next_at += self.period
            delay = next_at - time.monotonic()
            if delay < 0:
                next_at = time.monotonic()
                delay = 0
            if changed.wait(delay):  # a change: shown now, the frames go on from it
                next_at = time.monotonic()

    def close(self) -> None:
        self._stop.set()
        self.service.changed.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        self.leds.off()


class Chimes:
    """Plays the buzzer's sounds for what happens in the game: a catch, a win, an error
    on the board (an illegal placement)."""

    def __init__(self, service: Service, buzzer: Buzzer) -> None:
        self.service = service
        self.buzzer = buzzer
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="chimes", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        published = self.service.published
        errors = published.judgement.errors
        while not self._stop.is_set() and not self.service.closing:
            newer = self.service.wait_for_change(published.version, 1.0)
            if newer.version == published.version:
                continue
            published = newer
            sound = sound_for(published.events, errors, published.judgement.errors)
            errors = published.judgement.errors
            if sound is not None:
                self.buzzer.play(sound)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)


def sound_for(events: Any, errors_before: frozenset[int], errors_now: frozenset[int]) -> str | None:
    """The sound for one published change: a win beats a catch beats a new error."""
    if any(isinstance(e, GameWon) for e in events):
        return "win"
    if any(isinstance(e, SeekerCaught) for e in events):
        return "catch"
    if errors_now - errors_before:
        return "error"
    return None


@dataclass
class Appliance(Closing):
    """Everything ``companion run`` starts, closed in reverse order."""

    config: BoardConfig
    service: Service
    hub: GameHub
    sensors: Sensors
    lights: Lights
    journal: Journal
    mock_board: MockBoard | None = None
    pixels: Any = None
    buttons: Buttons | None = None
    buzzer: Buzzer | None = None
    factory: Any = None
    serial_board: SerialBoard | None = None
    chimes: Chimes | None = None
    computer: ComputerSeat | None = None

    def close(self) -> None:
        for step in (
            self._close_computer,
            self.sensors.close,
            self.hub.close,
            self.lights.close,
            self._close_controls,
            self.journal.close,
            self._close_mock,
            self._close_factory,
        ):
            try:
                step()
            except Exception:
                log.exception("while shutting down")

    def _close_computer(self) -> None:
        if self.computer is not None:
            self.computer.close()

    def _close_controls(self) -> None:
        if self.chimes is not None:
            self.chimes.close()
        if self.buttons is not None:
            self.buttons.close()
        if self.buzzer is not None:
            self.buzzer.close()

    def _close_factory(self) -> None:
        if self.factory is not None:
            self.factory.close()

    def _close_mock(self) -> None:
        if self.pixels is not None:
            self.pixels.close()
        if self.serial_board is not None:
            self.serial_board.close()
        if self.mock_board is not None:
            self.mock_board.close()


def needs_pins(config: BoardConfig) -> bool:
    """Whether the Pi's own GPIO is used (not when a microcontroller does it all)."""
    return (
        config.sensors.backend != "serial" or bool(config.buttons) or config.buzzer_pin is not None
    )


def build(
    config: BoardConfig,
    maze: Maze,
    maze_text: str,
    *,
    state_dir: Path,
    mock: bool,
    quiet_s: float = 0.25,
    move_quiet_s: float = 0.0,
    fps: float = 30,
    start: bool = True,
) -> Appliance:
    """Open the hardware (or its simulation), resume the journal and start the threads.

    ``move_quiet_s``: how long the maze waits after a figure settled before judging it
    (0: a move is shown the moment it settles, and replaced if the hand carries on
    within the turn); ``quiet_s``: how long the crypt waits after a magnet lifted off a
    touched square before it places the cube there (its meeples, like the maze's
    figures, count when they settle and are replaced if the hand carries on)."""
    if (config.columns, config.rows) != (maze.width, maze.height):
        raise ValueError(
            f"the board is {config.columns}x{config.rows} but the maze is "
            f"{maze.width}x{maze.height}"
        )
    if config.leds.driver == "serial" and config.sensors.backend != "serial":
        raise ValueError("leds.driver = serial needs sensors.backend = serial (one firmware link)")
    factory: Any = None
    mock_board: Any = None
    serial_board: SerialBoard | None = None
    status_to: list[Callable[[bool], None]] = []
    if mock:
        factory = mock_factory(config)
    elif needs_pins(config):
        factory = open_pin_factory()  # lgpio, named in the log; never gpiozero's guess
    if config.sensors.backend == "serial":
        url = config.sensors.port
        if mock:
            mock_board = simulated_board(config, factory)
            url = mock_board.url

        def on_status(up: bool) -> None:
            for tell in status_to:
                tell(up)

        serial_board = SerialBoard(config, url, on_status=on_status)
    elif mock:
        mock_board = MockBoard(config, factory)  # before Sensors: it wires the mock pins
    journal = Journal(state_dir / "journal.sqlite3")
    board = BoardMap.for_board(config.cells, config.camp_slots, config.sarcophagus_slots)
    try:  # each game resumes from the journal
        service = Service(
            maze=maze,
            maze_text=maze_text,
            journal=journal,
            board=board,
            quiet_s=move_quiet_s,
        )
        services: dict[str, GameService] = {"mummy": service}
        for kind, make in game_factories().items():
            services[kind] = make(journal=journal, config=config, quiet_s=quiet_s)
    except JournalWriteError as exc:  # a page damaged, the storage full: say so, no game
        journal.close()
        raise journal.start_up_error(exc) from exc
    hub = GameHub(services)
    if serial_board is not None:
        status_to.append(hub.set_board_connected)
        hub.set_board_connected(serial_board.connected)
    pixels: Any = (
        serial_board.pixels
        if serial_board is not None and config.leds.driver == "serial"
        else open_pixels(config.leds, mock)
    )
    leds = LedOutput(config.leds, pixels)
    lights = Lights(hub, leds, Geometry.of(config), fps)
    sensors = Sensors(
        config.sensors,
        pin_factory=factory,
        on_changes=hub.occupancies,
        backend=serial_board.backend if serial_board is not None else None,
    )
    buttons = buzzer = None
    if config.buttons:
        buttons = Buttons(config.buttons, _button_handler(service), pin_factory=factory)
    if config.buzzer_pin is not None:
        buzzer = Buzzer(config.buzzer_pin, pin_factory=factory)
    appliance = Appliance(
        config, service, hub, sensors, lights, journal, mock_board, pixels, buttons, buzzer, factory
    )
    appliance.serial_board = serial_board
    appliance.computer = ComputerSeat(service)
    if buzzer is not None:
        appliance.chimes = Chimes(service, buzzer)
    if mock_board is not None:
        # The simulated table starts the way the resumed game left it.
        mock_board.set_occupied(board.expected(service.game.current).values())
    if serial_board is not None:
        serial_board.wait_connected(3.0 if mock else 1.0)
    # The board as it stands now, so the game is judged against it from the start.
    hub.set_occupied(sensors.prime())
    if start:
        for game in services.values():
            game.start()
        if appliance.chimes is not None:
            appliance.chimes.start()
        appliance.computer.start()
        sensors.start()
        lights.start()
    return appliance


def _button_handler(service: Service) -> Any:
    def on_press(role: str) -> None:
        try:
            if role == "undo":
                service.undo()
            elif role == "confirm":
                state = service.game.current
                if state.phase is Phase.SEEKER_CARD:
                    service.submit(f"seeker{state.seeker}", EndTurn())
            elif role == "roll":
                if service.physical_dice:
                    log.info("roll button: this table throws real dice; enter them on the phone")
                    return
                state = service.game.current
                service.submit(f"seeker{state.seeker}", Roll())
        except (ServiceError, ValueError) as exc:
            log.info("button %s: %s", role, exc)

    return on_press
