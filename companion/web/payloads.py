"""What each seat's API and live stream send: pure functions of a published moment.

Each payload is built from one role's view (``mummy_view``, ``seeker_view``,
``table_view``) and the events that role may see (``visible_events``), plus guidance in
words.  The mummy's payload reads nothing else of the state that could carry a
seeker's position or cards; ``tests/test_hidden_information.py`` checks that.
"""

from __future__ import annotations

from typing import Any

from companion.games.mummy.dice import Face
from companion.games.mummy.engine import playable_card
from companion.games.mummy.events import (
    Announced,
    CardPlayed,
    DiceRolled,
    Event,
    FigureMoved,
    GameWon,
    MummyDieRolled,
    MummyMoved,
    MummyMoveEnded,
    MummyMoveStarted,
    MummyTurnStarted,
    Resolved,
    SeekerCaught,
    SeekerOut,
    SeekerSkipped,
    TurnLost,
    TurnStarted,
)
from companion.games.mummy.maze import Maze
from companion.games.mummy.state import MummyMoveKind, Phase, Setup, State, Winner
from companion.games.mummy.views import (
    maze_view,
    mummy_view,
    seeker_view,
    table_view,
    visible_events,
)
from companion.service.mummy_service import Published
from companion.table.seats import Table

Payload = dict[str, Any]

#: Announcements each page lists (newest last).
LOG_EVENTS = 30


# -- the seats' payloads --------------------------------------------------------------


def mummy_payload(published: Published, table: Table, aid: Payload | None = None) -> Payload:
    """The mummy's page: the mummy's view, public events and its controls; no seeker.
    ``aid``: the deduction aid (sent only when the host turned it on)."""
    state: State = published.state
    if table.dealing:
        return dealing_payload(published, table, "mummy")
    view = mummy_view(state)
    # Board trouble matters to the mummy only on its own turn; during a seeker's move it
    # would flicker as a figure slides over cells and hint at the path.
    trouble = state.is_mummy_turn and not published.judgement.matches
    ok = published.board_connected and not trouble and published.paused is None
    board: Payload = {"connected": published.board_connected, "ok": ok, "message": None}
    if published.paused is not None:
        board["message"] = published.judgement.message
    elif not published.board_connected:
        board["message"] = "The board is disconnected: the game waits until it is back."
    elif not ok:
        board["message"] = "The seekers are putting the board right."
    payload = {
        "role": "mummy",
        "stage": "playing",
        "names": seeker_names(state.setup),
        "view": view,
        "steps": mummy_moves(state.maze, state.mummy, view.get("mummy_steps", [])),
        "board": board,
        "guidance": board["message"] if published.paused else mummy_guidance(state, table, ok),
        "log": _log(published, state.setup, "mummy"),
        "caught": _caught(published, state.setup),
        "options": _options(state, table),
        "takeback": _takeback(published, "mummy"),
        "notice": notice_json(published, "mummy"),
    }
    if aid is not None and table.options.aid:
        payload["aid"] = aid
    return payload


def seeker_payload(published: Published, table: Table, seeker: int) -> Payload:
    """A seeker's page: the board, their own cards, their dice and guidance in words."""
    state: State = published.state
    if table.dealing:
        return dealing_payload(published, table, f"seeker{seeker}")
    view = seeker_view(state, seeker)
    if not table.options.hints:
        view.pop("legal_destinations", None)
    mine = not state.is_over and not state.is_mummy_turn and state.seeker == seeker
    card = playable_card(state) if mine else None
    return {
        "role": "seeker",
        "stage": "playing",
        "seat": f"seeker{seeker}",
        "names": seeker_names(state.setup),
        "view": view,
        "my_turn": mine,
        "playable": None if card is None else {"name": card.title, "cell": _cell(state, card.cell)},
        "stay": _stay(state) if mine else None,
        "board": _board(published),
        "guidance": seeker_guidance(state, seeker, published),
        "log": _log(published, state.setup, "seeker"),
        "caught": _caught(published, state.setup),
        "options": _options(state, table),
        "takeback": _takeback(published, f"seeker{seeker}"),
        "notice": notice_json(published, "seeker"),
    }


def _stay(state: State) -> str | None:
    """The figure's own cell when the announced number may end there (out and back):
    the sensors cannot see that move, so the page offers it as a button."""
    if state.phase is not Phase.SEEKER_MOVING:
        return None
    here = state.positions[state.figure]
    if state.maze.is_cell(here) and (state.targets >> here) & 1:
        return state.maze.cell_name(here)
    return None


def table_payload(published: Published, table: Table) -> Payload:
    """The shared screen: the board as the seekers see it, nobody's cards."""
    state: State = published.state
    if table.dealing:
        return dealing_payload(published, table, "table")
    return {
        "role": "table",
        "stage": "playing",
        "names": seeker_names(state.setup),
        "view": table_view(state),
        "board": _board(published),
        "guidance": table_guidance(state, published),
        "log": _log(published, state.setup, "table"),
        "caught": _caught(published, state.setup),
        "options": _options(state, table),
        "notice": notice_json(published, "table"),
    }


def dealing_payload(published: Published, table: Table, seat: str) -> Payload:
    """Physical cards: who has entered their cards; a seeker also gets the card list."""
    state: State = published.state
    names = seeker_names(state.setup)
    waiting = [names[i] for i in range(len(names)) if f"seeker{i}" not in table.hands]
    payload: Payload = {
        "role": "seeker" if seat.startswith("seeker") else seat,
        "stage": "dealing",
        "names": names,
        "ready": [f"seeker{i}" in table.hands for i in range(len(names))],
        "guidance": "The seekers are entering the mission cards they drew: "
        + ", ".join(waiting)
        + " still to do.",
        "board": {"connected": published.board_connected, "ok": True, "message": None},
    }
    if seat.startswith("seeker"):
        maze = state.maze
        payload["seat"] = seat
        payload["maze"] = maze_view(maze)
        payload["per_colour"] = state.setup.cards_per_colour
        payload["cards"] = [
            {"cell": maze.cell_name(t.cell), "colour": t.colour.value, "name": t.name}
            for t in maze.treasures
        ]
        payload["entered"] = list(table.hands.get(seat, []))
        if seat in table.hands:
            payload["guidance"] = "Your cards are in. " + payload["guidance"]
        elif seat in table.recheck:
            payload["guidance"] = (
                "Two seekers entered the same card: everyone checks the cards they "
                "drew and sends them again."
            )
        else:
            one = "one card" if state.setup.cards_per_colour == 1 else "two cards"
            payload["guidance"] = f"Tap the {one} of each colour you drew, then send them."
    return payload


# -- guidance in words ---------------------------------------------------------------


def seeker_names(setup: Setup) -> list[str]:
    """Each seeker by their figure colours: "Red", or "Red and Turquoise" (two figures)."""
    return [" and ".join(c.value.capitalize() for c in figs) for figs in setup.seekers]


def winner_text(setup: Setup, winner: Winner) -> str:
    if winner.seeker is None:
        return f"The mummy wins: it {winner.reason}."
    return f"{seeker_names(setup)[winner.seeker]} wins: {winner.reason}."


def move_words(colour: str, face: Face) -> str:
    """ "move blue 4 cells" / "move blue with the arrow ..." (without the capital)."""
    if face is Face.ARROW:
        return f"move {colour} with the arrow: straight on to the last free cell"
    n = int(face)
    return f"move {colour} {n} cell" + ("" if n == 1 else "s")


def seeker_guidance(state: State, seeker: int, published: Published) -> str:
    """What this seeker should do now, in words."""
    setup = state.setup
    if state.winner is not None:
        return winner_text(setup, state.winner)
    judgement = published.judgement
    if not published.board_connected:
        return "The board is disconnected: the game waits until it is back."
    if not judgement.matches and judgement.message:
        return _restore_words(judgement.message)
    if state.is_out(seeker):
        return "You are out of the game: your ankhs are gone."
    if state.is_mummy_turn:
        return _mummy_turn_words(state)
    colour = setup.figures[state.figure].value
    if state.seeker != seeker:
        return f"{colour.capitalize()}'s turn."
    with_figure = f" with {colour}" if len(setup.seekers[seeker]) > 1 else ""
    if state.phase is Phase.SEEKER_TURN:
        if state.may_resolve and state.dice_out:
            n = state.dice_out
            return (
                f"Your turn{with_figure}: roll, or resolve the {n} mummy "
                f"{'die' if n == 1 else 'dice'} (the mummy moves {n} first)."
            )
        return f"Your turn{with_figure}: roll the dice."
    if state.phase is Phase.SEEKER_ROLLED:
        return "Tap a die to announce it, or roll again."
    if state.phase is Phase.SEEKER_MOVING and state.announced is not None:
        words = move_words(colour, state.announced)
        return words[0].upper() + words[1:] + " on the board."
    if state.phase is Phase.SEEKER_CARD:
        card = playable_card(state)
        if card is not None:
            return (
                f"{colour.capitalize()} stands on the {card.title}: play the card, or end the turn."
            )
        return "End your turn."
    return ""


def table_guidance(state: State, published: Published) -> str:
    """Whose turn it is and what happens, for the shared screen."""
    setup = state.setup
    if state.winner is not None:
        return winner_text(setup, state.winner)
    judgement = published.judgement
    if not published.board_connected:
        return "The board is disconnected: the game waits until it is back."
    if not judgement.matches and judgement.message:
        return _restore_words(judgement.message)
    if state.is_mummy_turn:
        return _mummy_turn_words(state)
    colour = setup.figures[state.figure].value
    name = colour.capitalize()
    if state.phase is Phase.SEEKER_TURN:
        return f"{name}'s turn: roll the dice."
    if state.phase is Phase.SEEKER_ROLLED:
        return f"{name}'s turn: announce a die or roll again."
    if state.phase is Phase.SEEKER_MOVING and state.announced is not None:
        return f"{name}'s turn: {move_words(colour, state.announced)}."
    return f"{name}'s turn: play a card or end the turn."


def mummy_guidance(state: State, table: Table, board_ok: bool) -> str:
    setup = state.setup
    if state.winner is not None:
        return winner_text(setup, state.winner)
    if not board_ok:
        return "The seekers are putting the board right: wait a moment."
    if state.phase is Phase.MUMMY_ROLL:
        if table.options.dice == "physical":
            return "Your turn: throw the mummy die and enter what it shows."
        return "Your turn: roll the mummy die."
    if state.phase is Phase.MUMMY_MOVING:
        n = state.steps_left
        left = f"{n} step" + ("" if n == 1 else "s")
        how = "" if setup.options.mummy_moves_exactly else "up to "
        why = "" if state.mummy_move is MummyMoveKind.NORMAL else "Intermediate move: "
        return f"{why}move {how}{left}: tap a lit cell or an arrow.".capitalize()
    colour = setup.figures[state.figure].value.capitalize()
    return f"{colour}'s turn."


def _mummy_turn_words(state: State) -> str:
    if state.phase is Phase.MUMMY_ROLL:
        return "The mummy's turn: it rolls its die."
    n = state.steps_left
    return f"The mummy is moving: {n} step{'' if n == 1 else 's'} left. Watch the lights."


def _restore_words(message: str) -> str:
    """The tracker's restore message, with the caught case said first and plainly."""
    return message.replace(" into the sarcophagus", " in the sarcophagus")


# -- the mummy's step controls -------------------------------------------------------------


def mummy_moves(maze: Maze, mummy: int, steps: list[int]) -> list[Payload]:
    """The mummy's next steps with the direction of each (for the arrow buttons)."""
    moves = []
    for cell in steps:
        if maze.is_cell(mummy):
            (r0, c0), (r1, c1) = divmod(mummy, maze.width), divmod(cell, maze.width)
            direction = {(-1, 0): "north", (1, 0): "south", (0, 1): "east", (0, -1): "west"}[
                (r1 - r0, c1 - c0)
            ]
        else:
            opening = next(o for o in maze.openings(mummy) if o.cell == cell)
            direction = opening.side.opposite.value
        moves.append({"cell": cell, "name": maze.cell_name(cell), "dir": direction})
    return moves


# -- events in words ---------------------------------------------------------------------


def event_json(event: Event, setup: Setup, role: str) -> Payload:
    """An event as JSON: its kind, a sentence and only its public fields."""
    if role == "mummy" and event.secret_from_mummy:
        raise ValueError(f"{event.kind} is secret from the mummy")
    maze = setup.maze
    names = seeker_names(setup)
    data: Payload = {"kind": event.kind}

    def figure(f: int) -> str:
        colour = setup.figures[f].value
        data["colour"] = colour
        return colour.capitalize()

    text = ""
    if isinstance(event, TurnStarted):
        text = f"{figure(event.figure)}'s turn."
    elif isinstance(event, MummyTurnStarted):
        text = "The mummy's turn."
    elif isinstance(event, Resolved):
        if event.forced:
            text = f"Five mummies: the mummy moves {event.steps} steps."
        else:
            text = f"{figure(event.figure)} resolves: the mummy moves {event.steps} steps."
    elif isinstance(event, DiceRolled):
        text = f"{figure(event.figure)} rolls {', '.join(f.label for f in event.faces)}."
    elif isinstance(event, TurnLost):
        text = f"{figure(event.figure)} rolled five mummies and loses the turn."
    elif isinstance(event, SeekerSkipped):
        text = f"{figure(event.figure)} cannot move and is skipped."
    elif isinstance(event, Announced):
        data["face"] = event.face.label
        text = f"{figure(event.figure)}: {event.face.label}"
    elif isinstance(event, FigureMoved):
        data["to"] = maze.cell_name(event.to)
        text = f"{figure(event.figure)} moved to {data['to']}."
    elif isinstance(event, CardPlayed):
        data["treasure"] = event.treasure.title
        left = f"{event.cards_left} card" + ("" if event.cards_left == 1 else "s")
        text = f"{figure(event.figure)} plays the {event.treasure.title} ({left} left)."
    elif isinstance(event, MummyDieRolled):
        text = f"The mummy die shows {event.value}: {event.steps} steps."
    elif isinstance(event, MummyMoveStarted):
        how = "exactly" if setup.options.mummy_moves_exactly else "up to"
        kind = "" if event.move is MummyMoveKind.NORMAL else "Intermediate move: "
        text = f"{kind}the mummy moves {how} {event.steps} steps.".capitalize()
    elif isinstance(event, MummyMoved):
        data["to"] = maze.cell_name(event.to)
        text = f"The mummy steps to {data['to']} ({event.steps_left} left)."
    elif isinstance(event, MummyMoveEnded):
        text = f"The mummy stops on {maze.cell_name(event.at)}."
    elif isinstance(event, SeekerCaught):
        name = figure(event.figure)
        data["at"] = maze.cell_name(event.at)
        ankhs = f"{event.ankhs_left} ankh" + ("" if event.ankhs_left == 1 else "s")
        text = f"The mummy caught {name} on {data['at']}! {names[event.seeker]}: {ankhs} left."
    elif isinstance(event, SeekerOut):
        text = f"{names[event.seeker]} is out of the game."
    elif isinstance(event, GameWon):
        text = winner_text(setup, event.winner)
    data["text"] = text
    return data


def _log(published: Published, setup: Setup, role: str) -> list[Payload]:
    events = [e for group in published.log for e in visible_events(list(group), role)]
    return [event_json(e, setup, role) for e in events[-LOG_EVENTS:]]


def _caught(published: Published, setup: Setup) -> list[str]:
    """Catches made by the last command (the mummy learns of a catch as it happens)."""
    if not published.log:
        return []
    return [
        event_json(e, setup, "mummy")["text"]
        for e in published.log[-1]
        if isinstance(e, SeekerCaught)
    ]


def _takeback(published: Published, seat: str) -> str | None:
    """What this seat may take back now, in words (None: nothing)."""
    action = published.action
    if action is None or action.seat != seat or not published.may_take_back:
        return None
    return action.said_to_mummy if seat == "mummy" else action.said


def notice_json(published: Published, role: str) -> Payload | None:
    """The last take-back ("Blue took back: moved to D11"), until the next command."""
    if published.notice is None:
        return None
    serial, action = published.notice
    return {"id": serial, "text": action.notice(role)}


def _board(published: Published) -> Payload:
    judgement = published.judgement
    return {
        "connected": published.board_connected,
        "ok": judgement.matches and published.board_connected,
        "message": judgement.message,
    }


def _options(state: State, table: Table) -> Payload:
    return {
        "dice": table.options.dice,
        "hints": table.options.hints,
        "computer": table.options.computer or None,
        "exact": state.setup.options.mummy_moves_exactly,
        "mummy_die_faces": sorted(set(state.setup.options.mummy_die_faces)),
    }


def _cell(state: State, node: int) -> str:
    return state.maze.cell_name(node)
