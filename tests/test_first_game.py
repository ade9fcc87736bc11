"""A first game that teaches itself (``games/mummy/first_game.py``): over whole bot
games, each situation is explained once to the seat it belongs to, the first time that
seat meets it; the journal's replay shows the same lessons; the mummy never gets a
seeker's lesson; a game without the option shows none."""

from __future__ import annotations

import pytest

from companion.games.mummy.commands import Command
from companion.games.mummy.dice import Face
from companion.games.mummy.engine import make_setup, playable_card
from companion.games.mummy.events import DiceRolled, SeekerCaught
from companion.games.mummy.first_game import (
    TEXTS,
    Lesson,
    basics,
    lessons_for,
    table_lessons,
    waits_for,
)
from companion.games.mummy.maze import Maze
from companion.games.mummy.players import MummyBot, SeekerBot
from companion.games.mummy.record import setup_from_json
from companion.games.mummy.state import MummyMoveKind, Options, Phase, State
from companion.games.mummy.views import visible_events
from companion.i18n.catalog import render
from companion.service.mummy_game import RunningGame

SEEKER_KEYS = {"roll", "mummy_face", "reroll", "announce", "move", "resolve", "card"}
MUMMY_KEYS = {"mummy_roll", "mummy_move", "mummy_intermediate", "catch"}


def bot_game(maze: Maze, maze_text: str, seed: int, colours: tuple[str, ...], first: bool):
    """A whole game played by the bots, kept as the service keeps it (RunningGame)."""
    setup = make_setup(maze, colours, seed=seed, options=Options(first_game=first))
    game = RunningGame(1, setup, maze_text)
    seekers, mummy = SeekerBot(maze), MummyBot(setup)
    mummy.observe(visible_events(game.last_events, "mummy"))
    for _ in range(5000):
        state = game.current
        if state.is_over:
            return game
        command: Command
        if state.is_mummy_turn:
            command = mummy.choose(state.phase, state.mummy, state.steps_left, False)
        else:
            command = seekers.choose(state)
        after, events = game.try_apply(command)
        game.accept(command, after, events)
        mummy.observe(visible_events(events, "mummy"))
    raise AssertionError("the game did not end")


def states(game: RunningGame) -> list[tuple[State | None, State, list]]:
    """Each step of a game: the state before (None at the start), after, its events."""
    replayed = RunningGame(game.id, game.setup, game.maze_text)
    steps: list[tuple[State | None, State, list]] = [(None, replayed.current, replayed.last_events)]
    for command in game.commands:
        before = replayed.current
        after, events = replayed.try_apply(command)
        replayed.accept(command, after, events)
        steps.append((before, after, events))
    return steps


GAMES = [(seed, colours) for seed in (1, 2, 3) for colours in (("red", "blue"), ("red",))]


@pytest.mark.parametrize(("seed", "colours"), GAMES)
def test_each_situation_is_explained_once_to_its_seat_when_it_first_comes(
    default_maze: Maze, default_maze_text: str, seed: int, colours: tuple[str, ...]
) -> None:
    game = bot_game(default_maze, default_maze_text, seed, colours, first=True)
    steps = states(game)
    assert len(game.lessons) == len(steps)
    shown = [lesson for step in game.lessons for lesson in step]
    assert len(shown) == len(set(shown)), "a lesson was shown twice"
    seats = {"mummy"} | {f"seeker{i}" for i in range(len(game.setup.seekers))}
    for lesson in shown:
        assert lesson.seat in seats
        assert lesson.key in (MUMMY_KEYS if lesson.seat == "mummy" else SEEKER_KEYS)

    def first(seat: str, key: str, holds, after: int = -1) -> int | None:
        """The first step (past ``after``) at which a situation holds (read from the
        states and events)."""
        return next((i for i, step in enumerate(steps) if i > after and holds(*step)), None)

    def taught_at(seat: str, key: str) -> int | None:
        return next((i for i, step in enumerate(game.lessons) if Lesson(seat, key) in step), None)

    for s in range(len(game.setup.seekers)):
        seat = f"seeker{s}"

        def mine(after: State) -> bool:
            return not after.is_over and not after.is_mummy_turn and after.seeker == s  # noqa: B023

        # The basic turn before any special case: the first turn teaches the roll, even
        # with mummy faces lying out; resolving comes on a turn after it.
        checks = {
            "roll": lambda b, a, e: mine(a) and a.phase is Phase.SEEKER_TURN,
            "resolve": lambda b, a, e: (
                mine(a) and a.phase is Phase.SEEKER_TURN and a.may_resolve and a.dice_out > 0
            ),
            "announce": lambda b, a, e: mine(a) and a.phase is Phase.SEEKER_ROLLED,
            "move": lambda b, a, e: mine(a) and a.phase is Phase.SEEKER_MOVING,
            "card": lambda b, a, e: mine(a) and playable_card(a) is not None,
            "mummy_face": lambda b, a, e: any(
                isinstance(x, DiceRolled)
                and Face.MUMMY in x.faces
                and a.setup.figure_owner[x.figure] == s  # noqa: B023
                for x in e
            ),
            "reroll": lambda b, a, e: (
                b is not None
                and b.phase is Phase.SEEKER_ROLLED
                and b.seeker == s  # noqa: B023
                and any(isinstance(x, DiceRolled) for x in e)
            ),
        }
        for key, holds in checks.items():
            after = -1
            if key == "resolve":
                after = first(seat, "roll", checks["roll"]) or 0
            assert taught_at(seat, key) == first(seat, key, holds, after), (seat, key)
        rolled, resolved = taught_at(seat, "roll"), taught_at(seat, "resolve")
        assert rolled is not None and (resolved is None or resolved > rolled)
    mummy_checks = {
        "mummy_roll": lambda b, a, e: a.phase is Phase.MUMMY_ROLL,
        "mummy_move": lambda b, a, e: a.phase is Phase.MUMMY_MOVING,
        "mummy_intermediate": lambda b, a, e: (
            a.phase is Phase.MUMMY_MOVING and a.mummy_move is not MummyMoveKind.NORMAL
        ),
        "catch": lambda b, a, e: any(isinstance(x, SeekerCaught) for x in e),
    }
    for key, holds in mummy_checks.items():
        assert taught_at("mummy", key) == first("mummy", key, holds), key


def test_the_bot_games_meet_every_situation(default_maze: Maze, default_maze_text: str) -> None:
    """The games above are no empty check: together they teach every lesson there is,
    and meet a seeker's first turn with mummy faces lying out (taught the roll)."""
    keys, faces_out_first = set(), 0
    for seed, colours in GAMES:
        game = bot_game(default_maze, default_maze_text, seed, colours, first=True)
        keys |= {lesson.key for step in game.lessons for lesson in step}
        for (_, after, _), step in zip(states(game), game.lessons, strict=True):
            if (
                any(lesson.key == "roll" for lesson in step)
                and after.dice_out
                and after.may_resolve
            ):
                faces_out_first += 1
    assert keys == set(TEXTS) == SEEKER_KEYS | MUMMY_KEYS
    assert faces_out_first


def test_the_table_screen_shows_every_lesson_but_a_cards(
    default_maze: Maze, default_maze_text: str
) -> None:
    """The table screen teaches the whole table: each seat's lessons as they come, named
    by seat, except the card's (it would tell everyone a seeker holds that card)."""
    game = bot_game(default_maze, default_maze_text, 1, ("red", "blue"), first=True)
    shown = [table_lessons(step) for step in game.showing]
    seats = {seat for step in shown for seat, _ in step}
    assert seats == {"mummy", "seeker0", "seeker1"}
    texts = {str(text) for step in shown for _, text in step}
    assert TEXTS["card"] not in texts
    assert {TEXTS["roll"], TEXTS["mummy_move"]} <= texts
    assert any(lesson.key == "card" for step in game.lessons for lesson in step)


def test_the_journal_replays_the_same_lessons_and_keeps_the_option(
    default_maze: Maze, default_maze_text: str
) -> None:
    """A restart (or a take-back) rebuilds the game from the journal: the same lessons,
    step by step, so none is shown again and none is lost."""
    game = bot_game(default_maze, default_maze_text, 4, ("red", "blue"), first=True)
    data = game.setup_json()
    assert data["options"]["first_game"] is True
    assert setup_from_json(data).options.first_game
    commands = [game.command_json(c) for c in game.commands]
    again = RunningGame.replayed(7, data, commands)
    assert again.lessons == game.lessons
    # Cut short (a take-back of the last command): the lessons before it stay as they were.
    shorter = RunningGame.replayed(7, data, commands[:-1])
    assert shorter.lessons == game.lessons[:-1]
    # A record of a game without the option (every record before it) has no key for it.
    plain = bot_game(default_maze, default_maze_text, 4, ("red", "blue"), first=False)
    assert "first_game" not in plain.setup_json()["options"]
    assert not setup_from_json(plain.setup_json()).options.first_game


def test_a_normal_game_shows_no_lesson(default_maze: Maze, default_maze_text: str) -> None:
    game = bot_game(default_maze, default_maze_text, 1, ("red", "blue"), first=False)
    assert all(step == () for step in game.lessons)
    assert game.lessons_now == ()


def test_a_replaced_move_is_taught_like_the_move_it_replaces(
    default_maze: Maze, default_maze_text: str
) -> None:
    """The figure carried on to another cell replaces the move: its lessons are those
    the new cell brings, measured from the lessons before it."""
    game = bot_game(default_maze, default_maze_text, 5, ("red", "blue"), first=True)
    replayed = RunningGame(1, game.setup, game.maze_text)
    for command in game.commands:
        after, events = replayed.try_apply(command)
        replayed.accept(command, after, events)
        if command.kind == "move":
            before = replayed.lessons[:-1]
            assert replayed.previous is not None
            replayed.replace_last(command, after, events)
            assert replayed.lessons[:-1] == before
    assert replayed.lessons == game.lessons


def test_each_seat_gets_only_its_own_lessons_in_both_languages() -> None:
    lessons = (Lesson("seeker0", "move"), Lesson("seeker1", "roll"), Lesson("mummy", "catch"))
    assert [m.id for m in lessons_for(lessons, "mummy")] == [TEXTS["catch"]]
    assert [m.id for m in lessons_for(lessons, "seeker0")] == [TEXTS["move"]]
    assert lessons_for(lessons, "table") == []
    for key, text in TEXTS.items():
        german = render(Lesson("mummy", key).text, "de")
        assert german and german != text, key
    assert "Sarkophag" in render(Lesson("mummy", "catch").text, "de")
    assert "Mumienseite" in render(Lesson("seeker0", "mummy_face").text, "de")


def test_a_restart_shows_the_lessons_it_showed(tmp_path) -> None:
    """The service journals the option with the game: after a restart the same lessons
    are on the pages (none repeated, none lost), and the payloads give each seat its own."""
    from companion.games.mummy.commands import Roll
    from companion.service.autoplay import put_board_right
    from companion.table.seats import Table, TableOptions
    from companion.web.payloads import mummy_payload, seeker_payload
    from tests.test_service import start

    app = start(tmp_path)
    try:
        app.service.new_game(["red", "blue"], first_game=True)
        assert app.service.published.lessons == (Lesson("seeker0", "roll"),)
        put_board_right(app)
        app.service.submit("seeker0", Roll())
        shown = app.service.published.lessons
        assert Lesson("seeker0", "announce") in shown
    finally:
        app.close()
    app = start(tmp_path)
    try:
        published = app.service.published
        assert published.state.setup.options.first_game
        assert published.lessons == shown
        table = Table.new(["red", "blue"], TableOptions(first_game=True))
        texts = [render(m, "en") for m in seeker_payload(published, table, 0)["lessons"]]
        assert TEXTS["announce"] in texts
        assert seeker_payload(published, table, 1)["lessons"] == []
        assert mummy_payload(published, table)["lessons"] == []
    finally:
        app.close()


@pytest.mark.parametrize(("seed", "colours"), GAMES)
def test_an_explanation_stays_while_its_situation_lasts(
    default_maze: Maze, default_maze_text: str, seed: int, colours: tuple[str, ...]
) -> None:
    """The mummy's walk is explained when its first move begins and stays on its page for
    every step of that move (it went after the first step); an explanation of what the
    game waits for stays until the game waits for something else, and nothing else stays."""
    game = bot_game(default_maze, default_maze_text, seed, colours, first=True)
    steps = states(game)
    assert len(game.showing) == len(steps) == len(game.lessons)
    for i, (_, after, _) in enumerate(steps):
        new, shown = game.lessons[i], game.showing[i]
        assert shown[: len(new)] == new  # the moment's own lessons first, as before
        for kept in shown[len(new) :]:  # then one still about what the game waits for
            waiting = waits_for(after)
            assert waiting is not None and kept in {waiting, *basics(waiting)}, (i, kept)
            assert kept in game.showing[i - 1], (i, kept)
    # The mummy's first move: taught as it begins, shown at each of its steps, gone after.
    walk = Lesson("mummy", "mummy_move")
    begun = next(i for i, step in enumerate(game.lessons) if walk in step)
    ended = next(i for i in range(begun, len(steps)) if steps[i][1].phase is not Phase.MUMMY_MOVING)
    assert ended - begun >= 2, "the first move took a single step: no check of the steps after"
    assert all(walk in game.showing[i] for i in range(begun, ended))
    assert walk not in game.showing[ended]
    assert all(walk not in shown for shown in game.showing[ended:])
    # A restart shows the same.
    again = RunningGame.replayed(
        3, game.setup_json(), [game.command_json(c) for c in game.commands]
    )
    assert again.showing == game.showing


def test_after_a_reroll_the_announcement_is_still_explained(
    default_maze: Maze, default_maze_text: str
) -> None:
    from companion.games.mummy.commands import Roll

    setup = make_setup(default_maze, ("red", "blue"), seed=11, options=Options(first_game=True))
    game = RunningGame(1, setup, default_maze_text)
    for _ in range(2):  # Red rolls, then rolls again
        after, events = game.try_apply(Roll())
        game.accept(Roll(), after, events)
    assert game.current.phase is Phase.SEEKER_ROLLED
    keys = [lesson.key for lesson in game.lessons_now]
    assert "reroll" in keys and keys[-1] == "announce", keys
    assert [m.id for m in lessons_for(game.lessons_now, "seeker0")][-1] == TEXTS["announce"]
    assert lessons_for(game.lessons_now, "mummy") == []
