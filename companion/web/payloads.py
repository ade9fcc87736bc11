"""What each seat's API and live stream send: pure functions of a published moment.

Each payload is built from one role's view (``mummy_view``, ``seeker_view``,
``table_view``) and the events that role may see (``visible_events``), plus guidance in
words.  The mummy's payload reads nothing else of the state that could carry a
seeker's position or cards; ``tests/test_hidden_information.py`` checks that.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.games.mummy.dice import Face
from companion.games.mummy.engine import playable_card
from companion.games.mummy.events import (
    Announced,
    CardPlayed,
    CardsDealtAgain,
    CardsRevealed,
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
from companion.games.mummy.first_game import lessons_for, table_lessons
from companion.games.mummy.maze import Maze, Treasure
from companion.games.mummy.moves import mummy_routes
from companion.games.mummy.state import MummyMoveKind, Phase, Setup, State, Winner
from companion.games.mummy.summary import Summary
from companion.games.mummy.symbols import symbols
from companion.games.mummy.views import (
    maze_view,
    mummy_view,
    seeker_view,
    table_view,
    visible_events,
)
from companion.games.mummy.words import colour_word, face_word, place_word, treasure_word
from companion.i18n import N_, Msg, counted, in_case, joined, msg, word
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
    board = public_board(published)
    # While another game has the board the page offers nothing to tap (all refused).
    paused = published.paused is not None
    payload = {
        "role": "mummy",
        "stage": "playing",
        "names": seeker_names(state.setup),
        "view": view,
        "board_away": paused,
        "steps": []
        if paused
        else mummy_moves(state.maze, state.mummy, view.get("mummy_steps", [])),
        "routes": [] if paused else mummy_route_list(state),
        "board": board,
        "guidance": board["message"]
        if published.paused
        else mummy_guidance(state, table, board["ok"]),
        "log": _log(published, state.setup, "mummy"),
        "caught": _caught(published, state.setup),
        "options": _options(state, table),
        "takeback": _takeback(published, "mummy"),
        "takeback_key": _takeback_key(published, "mummy"),
        "notice": notice_json(published, "mummy"),
        "cards": cards_notice(state),
        "summary": end_summary(published),
        "lessons": lessons_for(published.lessons, "mummy"),
    }
    if aid is not None and table.options.aid:
        payload["aid"] = aid
    return told(payload, table)


#: What the watching seat gets of the mummy's payload (not its controls nor its aid).
WATCHED = (
    *("stage", "names", "view", "board", "log", "caught", "options", "notice", "summary"),
    *("crossings", "cards"),
)


def watch_payload(published: Published, table: Table) -> Payload:
    """The watching seat's page (a spectator, a second screen): the mummy's payload,
    which every player may know (the mummy, the announcements, the cards played and the
    ankhs; never a seeker's cell or cards), without the mummy's controls, and the turn
    in words as every player may know it."""
    if table.dealing:
        return dealing_payload(published, table, "watch")
    mummy = mummy_payload(published, table)
    watched = {key: mummy[key] for key in WATCHED}
    return {**watched, "role": "watch", "guidance": public_guidance(published.state, published)}


def public_board(published: Published) -> Payload:
    """The board's health as every player may know it (the mummy, the host, the
    watching seat): trouble only on the mummy's turn, and never the restore steps,
    which name the seekers' cells."""
    state: State = published.state
    # Board trouble matters to the mummy only on its own turn; during a seeker's move it
    # would flicker as a figure slides over cells and hint at the path.
    trouble = state.is_mummy_turn and not published.judgement.matches
    ok = published.board_connected and not trouble and published.paused is None
    board: Payload = {"connected": published.board_connected, "ok": ok, "message": None}
    if published.paused is not None:
        board["message"] = published.judgement.message
    elif not published.board_connected:
        board["message"] = msg("The board is disconnected: the game waits until it is back.")
    elif not ok:
        board["message"] = msg("The seekers are putting the board right.")
    return board


def seeker_payload(published: Published, table: Table, seeker: int) -> Payload:
    """A seeker's page: the board, their own cards, their dice and guidance in words."""
    state: State = published.state
    if table.dealing:
        return dealing_payload(published, table, f"seeker{seeker}")
    view = seeker_view(state, seeker)
    if not table.options.hints:
        view.pop("legal_destinations", None)
    # Not while another game has the board: the page offers nothing to tap (all refused).
    mine = (
        not state.is_over
        and not state.is_mummy_turn
        and state.seeker == seeker
        and published.paused is None
    )
    card = playable_card(state) if mine else None
    payload: Payload = {
        "role": "seeker",
        "stage": "playing",
        "seat": f"seeker{seeker}",
        "names": seeker_names(state.setup),
        "view": view,
        "my_turn": mine,
        "playable": None
        if card is None
        else {
            "name": treasure_word(card),
            # the name in the case the button's sentence needs ("mit der gelben Totenmaske")
            "with": in_case(treasure_word(card), "dat"),
            "cell": _cell(state, card.cell),
        },
        "stay": _stay(state) if mine else None,
        "board": _board(published),
        "guidance": seeker_guidance(state, seeker, published),
        "log": _log(published, state.setup, "seeker"),
        "caught": _caught(published, state.setup),
        "options": _options(state, table),
        "takeback": _takeback(published, f"seeker{seeker}"),
        "takeback_key": _takeback_key(published, f"seeker{seeker}"),
        "notice": notice_json(published, "seeker"),
        "cards": cards_notice(state),
        "summary": end_summary(published),
        "lessons": lessons_for(published.lessons, f"seeker{seeker}"),
    }
    return told(payload, table)


def private_payload(published: Published, table: Table, seeker: int) -> Payload:
    """One seeker's covered private view on the table screen or the host's device: their
    name and cards, nothing of another seat (none at all while cards are entered)."""
    state: State = published.state

    def cards(treasures: Iterable[Treasure]) -> list[Payload]:
        marks = symbols(state.maze)
        return [
            {
                "colour": t.colour.value,
                "name": t.name,
                "cell": _cell(state, t.cell),
                "symbol": marks[t],
            }
            for t in treasures
        ]

    dealing = table.dealing
    return {
        "seat": f"seeker{seeker}",
        "name": seeker_names(state.setup)[seeker],
        "hand": [] if dealing else cards(state.hands[seeker]),
        "played": [] if dealing else cards(state.played[seeker]),
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
    payload: Payload = {
        "role": "table",
        "stage": "playing",
        "names": seeker_names(state.setup),
        "view": table_view(state),
        "board": _board(published),
        "guidance": table_guidance(state, published),
        "lessons": [
            {"seat": seat, "who": seat_word(state.setup, seat), "text": text}
            for seat, text in table_lessons(published.lessons)
        ],
        "absent": absent_seeker(state, table),
        "log": _log(published, state.setup, "table"),
        "caught": _caught(published, state.setup),
        "options": _options(state, table),
        "notice": notice_json(published, "table"),
        "cards": cards_notice(state),
        "summary": end_summary(published),
    }
    return told(payload, table)


def seat_word(setup: Setup, seat: str) -> Msg:
    """Who a table screen's lesson speaks to: "The mummy", or the seeker's colour."""
    if seat == "mummy":
        return msg("The mummy")
    return seeker_names(setup)[int(seat.removeprefix("seeker"))]


def absent_seeker(state: State, table: Table) -> Msg | None:
    """The seeker whose turn it is has no phone joined: the table says so (the game
    would wait for a page nobody holds)."""
    if state.is_over or state.is_mummy_turn:
        return None
    seat = f"seeker{state.seeker}"
    if seat in table.joined:
        return None
    name = seeker_names(state.setup)[state.seeker]
    return msg(
        "{name} has not joined: it is their turn. Scan their code on the host page with a phone.",
        name=name,
    )


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
        "guidance": msg(
            "The seekers are entering the mission cards they drew: {waiting} still to do.",
            waiting=joined(waiting),
        ),
        "board": {"connected": published.board_connected, "ok": True, "message": None},
    }
    if seat.startswith("seeker"):
        maze = state.maze
        payload["seat"] = seat
        payload["maze"] = maze_view(maze)
        payload["per_colour"] = state.setup.cards_per_colour
        marks = symbols(maze)
        payload["cards"] = [
            {
                "cell": maze.cell_name(t.cell),
                "colour": t.colour.value,
                "name": treasure_name(t),
                "symbol": marks[t],
            }
            for t in maze.treasures
        ]
        payload["entered"] = list(table.hands.get(seat, []))
        if seat in table.hands:
            payload["guidance"] = msg("Your cards are in. {rest}", rest=payload["guidance"])
        elif seat in table.recheck:
            payload["guidance"] = msg(
                "Two seekers entered the same card: everyone checks the cards they "
                "drew and sends them again."
            )
        elif state.setup.cards_per_colour == 1:
            payload["guidance"] = msg("Tap the one card of each colour you drew, then send them.")
        else:
            payload["guidance"] = msg("Tap the two cards of each colour you drew, then send them.")
    return told(payload, table)


# -- guidance in words ---------------------------------------------------------------


def seeker_names(setup: Setup) -> list[Msg]:
    """Each seeker by their figure colours: "Red", or "Red and Turquoise" (two figures)."""
    return [joined([colour_word(c) for c in figs]) for figs in setup.seekers]


# -- what the host allowed (one device, both sides of the board) ----------------------

#: What every page is told of each crossing (``Seats.cross``): no cell, no device named.
CROSSING_WORDS = {
    "to_mummy": N_(
        "The host let a phone that had seen where the seekers stand take the mummy's seat."
    ),
    "from_mummy": N_(
        "The host let a phone that had held the mummy's seat see where the seekers stand."
    ),
    "code": N_("The host showed the mummy's code again."),
}


def crossing_texts(table: Table) -> list[Msg]:
    """What the host allowed in this game, in words, oldest first."""
    return [word(CROSSING_WORDS[c]) for c in table.crossings if c in CROSSING_WORDS]


def summary_with_crossings(summary: Payload | None, table: Table | None) -> Payload | None:
    """The end's summary records what the host allowed in this game (both ways)."""
    if summary is None or table is None or not table.crossings:
        return summary
    return {**summary, "crossings": crossing_texts(table)}


def told(payload: Payload, table: Table) -> Payload:
    """Every seat's page hears of the last crossing (as a notice, which the page shows
    and the narrator says) unless a take-back notice is showing, and its summary
    records them all."""
    texts = crossing_texts(table)
    out = {**payload, "crossings": texts}
    if not texts:
        return out
    if payload.get("notice") is None:
        out["notice"] = {"id": f"crossing-{len(texts)}", "text": texts[-1]}
    if isinstance(payload.get("summary"), dict):
        out["summary"] = summary_with_crossings(payload["summary"], table)
    return out


# -- the cards after an undo of the end ---------------------------------------------------


def cards_notice(state: State) -> Msg | None:
    """Every page's lasting word on the mission cards once the host has undone an end
    (which had shown every seeker's unplayed cards): known to the whole table, or dealt
    again and secret once more; None in every other game, and at an end."""
    if state.is_over:
        return None
    if state.cards_known:
        return msg(
            "The end showed every seeker's unplayed mission cards, and the host undid it: "
            "those cards are known to the whole table. The host may deal them again."
        )
    if state.redeals:
        return msg(
            "After the end had shown them, the unplayed mission cards were dealt again: "
            "each seeker's cards are secret once more."
        )
    return None


def undo_warning(state: State) -> Msg | None:
    """What the host's undo of an end leaves, said before it is confirmed."""
    if not state.is_over:
        return None
    return msg(
        "The end has shown every seeker's unplayed mission cards: after this undo they stay "
        "known to the whole table, and every page says so. You may then deal them again."
    )


# -- the end of a game ----------------------------------------------------------------


def end_summary(published: Published) -> Payload | None:
    """The end screen's summary, for every page alike, only once the game is over (it
    reveals every seeker's cards and the mummy's whole path)."""
    summary = published.summary
    if summary is None or not published.state.is_over:
        return None
    return {
        **summary_json(published.state.setup, summary),
        "replay": f"/replay/{published.game_id}",
    }


def summary_json(setup: Setup, summary: Summary) -> Payload:
    """A finished game in words: the winner, the rounds, the catches, the cards played,
    the mummy's path, and each seeker's cards (played, and left in hand)."""
    maze = setup.maze
    names = seeker_names(setup)
    catches = [
        msg(
            "{colour} on {cell}",
            colour=colour_word(setup.figures[c.figure]),
            cell=place_word(maze, c.at),
        )
        for c in summary.catches
    ]
    played = sum(len(p) for p in summary.played)
    lines = [
        # The round the game ended in, as every page's header counts it ("Round 8"): a
        # game that ends in a seeker's turn has not completed that round.
        msg("Played to round {n}.", n=summary.rounds + 1),
        counted(
            len(catches),
            "The mummy caught {n} figure: {where}.",
            "The mummy caught {n} figures: {where}.",
            where=joined(catches),
        )
        if catches
        else msg("The mummy caught nobody."),
        counted(played, "{n} mission card played.", "{n} mission cards played."),
    ]
    steps = len(summary.path) - 1
    return {
        "winner": winner_text(setup, summary.winner),
        "mummy_won": summary.winner.is_mummy,
        "lines": lines,
        "path_title": counted(
            steps, "The mummy's path ({n} step):", "The mummy's path ({n} steps):"
        ),
        "path": [place_word(maze, node) for node in summary.path],
        "seekers": [
            {
                "name": names[i],
                "colours": [c.value for c in setup.seekers[i]],
                "winner": summary.winner.seeker == i,
                "played": [treasure_word(t) for t in summary.played[i]],
                "left": [treasure_word(t) for t in summary.hands[i]],
            }
            for i in range(len(setup.seekers))
        ],
    }


#: The engine's reasons for a win (state data, in English) as catalog ids.
WIN_REASONS = {
    "played their last card": N_("played their last card"),
    "every seeker is out": N_("every seeker is out"),
}


def winner_text(setup: Setup, winner: Winner) -> Msg:
    if winner.seeker is None:
        if winner.reason.startswith("holds "):
            ankhs = int(winner.reason.split()[1])
            return msg("The mummy wins: it holds {n} ankhs.", n=ankhs)
        return msg(
            "The mummy wins: {reason}.", reason=word(WIN_REASONS.get(winner.reason, winner.reason))
        )
    return msg(
        "{name} wins: {reason}.",
        name=seeker_names(setup)[winner.seeker],
        reason=word(WIN_REASONS.get(winner.reason, winner.reason)),
    )


def move_words(colour: Msg, face: Face) -> Msg:
    """ "move Blue 4 cells" / "move Blue with the arrow ..."."""
    if face is Face.ARROW:
        return msg("move {colour} with the arrow: straight on to the last free cell", colour=colour)
    return counted(int(face), "move {colour} {n} cell", "move {colour} {n} cells", colour=colour)


def seeker_guidance(state: State, seeker: int, published: Published) -> Msg:
    """What this seeker should do now, in words."""
    setup = state.setup
    if state.winner is not None:
        return winner_text(setup, state.winner)
    judgement = published.judgement
    if not published.board_connected:
        return msg("The board is disconnected: the game waits until it is back.")
    if not judgement.matches and judgement.message:
        return judgement.message
    if state.is_out(seeker):
        return msg("You are out of the game: your ankhs are gone.")
    if state.is_mummy_turn:
        return _mummy_turn_words(state)
    colour = colour_word(setup.figures[state.figure])
    if state.seeker != seeker:
        return msg("{colour}'s turn.", colour=colour)
    two = len(setup.seekers[seeker]) > 1
    if state.phase is Phase.SEEKER_TURN:
        if state.may_resolve and state.dice_out:
            n = state.dice_out
            if two:
                return counted(
                    n,
                    "Your turn with {colour}: roll, or resolve the {n} mummy face "
                    "(the mummy moves {n} first).",
                    "Your turn with {colour}: roll, or resolve the {n} mummy faces "
                    "(the mummy moves {n} first).",
                    colour=colour,
                )
            return counted(
                n,
                "Your turn: roll, or resolve the {n} mummy face (the mummy moves {n} first).",
                "Your turn: roll, or resolve the {n} mummy faces (the mummy moves {n} first).",
            )
        if two:
            return msg("Your turn with {colour}: roll the dice.", colour=colour)
        return msg("Your turn: roll the dice.")
    if state.phase is Phase.SEEKER_ROLLED:
        return msg("Tap a die to announce it, or roll again.")
    if state.phase is Phase.SEEKER_MOVING and state.announced is not None:
        if state.announced is Face.ARROW:
            return msg(
                "Move {colour} with the arrow on the board: straight on to the last free cell.",
                colour=colour,
            )
        return counted(
            int(state.announced),
            "Move {colour} {n} cell on the board.",
            "Move {colour} {n} cells on the board.",
            colour=colour,
        )
    if state.phase is Phase.SEEKER_CARD:
        card = playable_card(state)
        if card is not None:
            return msg(
                "{colour} stands on the {treasure}: play the card, or end the turn.",
                colour=colour,
                treasure=treasure_word(card),
            )
        return msg("End your turn.")
    return Msg("")


def table_guidance(state: State, published: Published) -> Msg:
    """Whose turn it is and what happens, for the shared screen."""
    setup = state.setup
    if state.winner is not None:
        return winner_text(setup, state.winner)
    judgement = published.judgement
    if not published.board_connected:
        return msg("The board is disconnected: the game waits until it is back.")
    if not judgement.matches and judgement.message:
        return judgement.message
    if state.is_mummy_turn:
        return _mummy_turn_words(state)
    return _turn_words(state)


def _turn_words(state: State) -> Msg:
    """A seeker's turn for the shared screen: no cell, nothing that is not announced."""
    name = colour_word(state.setup.figures[state.figure])
    if state.phase is Phase.SEEKER_TURN:
        return msg("{colour}'s turn: roll the dice.", colour=name)
    if state.phase is Phase.SEEKER_ROLLED:
        return msg("{colour}'s turn: announce a die or roll again.", colour=name)
    if state.phase is Phase.SEEKER_MOVING and state.announced is not None:
        return msg("{colour}'s turn: {move}.", colour=name, move=move_words(name, state.announced))
    return msg("{colour}'s turn: play a card or end the turn.", colour=name)


def public_guidance(state: State, published: Published) -> Msg:
    """Whose turn it is and what happens, as every player may know it (the host's page,
    the watching seat): where the table's guidance would name cells to put right, it
    says where the steps are instead."""
    if state.winner is not None:
        return winner_text(state.setup, state.winner)
    board = public_board(published)
    if published.paused is None and published.board_connected and not board["ok"]:
        return msg(
            "The seekers are putting the board right: the table screen and the seekers' "
            "pages say what goes where."
        )
    said: Msg | None = board["message"]
    if said is not None:  # paused, or the board disconnected
        return said
    if state.is_mummy_turn:
        return _mummy_turn_words(state)
    return _turn_words(state)


def mummy_guidance(state: State, table: Table, board_ok: bool) -> Msg:
    setup = state.setup
    if state.winner is not None:
        return winner_text(setup, state.winner)
    if not board_ok:
        return msg("The seekers are putting the board right: wait a moment.")
    if state.phase is Phase.MUMMY_ROLL:
        if table.options.dice == "physical":
            return msg("Your turn: throw the mummy die and enter what it shows.")
        return msg("Your turn: roll the mummy die.")
    if state.phase is Phase.MUMMY_MOVING:
        n = state.steps_left
        exact = setup.options.mummy_moves_exactly
        if state.mummy_move is MummyMoveKind.NORMAL:
            if exact:
                return counted(
                    n,
                    "Move {n} step: tap a lit cell or an arrow.",
                    "Move {n} steps: tap a lit cell or an arrow.",
                )
            return counted(
                n,
                "Move up to {n} step: tap a lit cell or an arrow.",
                "Move up to {n} steps: tap a lit cell or an arrow.",
            )
        if exact:
            return counted(
                n,
                "Intermediate move: move {n} step: tap a lit cell or an arrow.",
                "Intermediate move: move {n} steps: tap a lit cell or an arrow.",
            )
        return counted(
            n,
            "Intermediate move: move up to {n} step: tap a lit cell or an arrow.",
            "Intermediate move: move up to {n} steps: tap a lit cell or an arrow.",
        )
    return msg("{colour}'s turn.", colour=colour_word(setup.figures[state.figure]))


def _mummy_turn_words(state: State) -> Msg:
    if state.phase is Phase.MUMMY_ROLL:
        return msg("The mummy's turn: it rolls its die.")
    return counted(
        state.steps_left,
        "The mummy is moving: {n} step left. Watch the lights.",
        "The mummy is moving: {n} steps left. Watch the lights.",
    )


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


def mummy_route_list(state: State) -> list[Payload]:
    """While the mummy moves: each cell it may go to in one gesture, with its steps
    (from the maze and the mummy alone: nothing of the seekers)."""
    if state.phase is not Phase.MUMMY_MOVING:
        return []
    maze = state.maze
    return [
        {"cell": cell, "name": maze.cell_name(cell), "path": route}
        for cell, route in mummy_routes(state).items()
    ]


# -- events in words ---------------------------------------------------------------------


def event_json(event: Event, setup: Setup, role: str) -> Payload:
    """An event as JSON: its kind, a sentence and only its public fields."""
    if role == "mummy" and event.secret_from_mummy:
        raise ValueError(f"{event.kind} is secret from the mummy")
    maze = setup.maze
    names = seeker_names(setup)
    data: Payload = {"kind": event.kind}

    def figure(f: int) -> Msg:
        colour = setup.figures[f]
        data["colour"] = colour.value
        return colour_word(colour)

    text = Msg("")
    if isinstance(event, TurnStarted):
        text = msg("{colour}'s turn.", colour=figure(event.figure))
    elif isinstance(event, MummyTurnStarted):
        text = msg("The mummy's turn.")
    elif isinstance(event, Resolved):
        if event.forced:
            text = msg("Five mummies: the mummy moves {n} steps.", n=event.steps)
        else:
            text = msg(
                "{colour} resolves: the mummy moves {n} steps.",
                colour=figure(event.figure),
                n=event.steps,
            )
    elif isinstance(event, DiceRolled):
        text = msg(
            "{colour} rolls {faces}.", colour=figure(event.figure), faces=roll_words(event.faces)
        )
    elif isinstance(event, TurnLost):
        text = msg("{colour} rolled five mummies and loses the turn.", colour=figure(event.figure))
    elif isinstance(event, SeekerSkipped):
        text = msg("{colour} cannot move and is skipped.", colour=figure(event.figure))
    elif isinstance(event, Announced):
        data["face"] = event.face.label
        text = msg(
            "{colour} announces {face}.", colour=figure(event.figure), face=face_word(event.face)
        )
    elif isinstance(event, FigureMoved):
        data["to"] = maze.cell_name(event.to)
        text = msg("{colour} moved to {cell}.", colour=figure(event.figure), cell=data["to"])
    elif isinstance(event, CardPlayed):
        data["treasure"] = treasure_word(event.treasure)
        text = (
            msg(
                "{colour} plays the {treasure} (no card left).",
                colour=figure(event.figure),
                treasure=data["treasure"],
            )
            if event.cards_left == 0
            else counted(
                event.cards_left,
                "{colour} plays the {treasure} ({n} card left).",
                "{colour} plays the {treasure} ({n} cards left).",
                colour=figure(event.figure),
                treasure=data["treasure"],
            )
        )
    elif isinstance(event, MummyDieRolled):
        text = mummy_die_words(event.value, event.steps)
    elif isinstance(event, MummyMoveStarted):
        text = _mummy_move_words(event, setup.options.mummy_moves_exactly)
    elif isinstance(event, MummyMoved):
        data["to"] = maze.cell_name(event.to)
        text = msg("The mummy steps to {cell} ({n} left).", cell=data["to"], n=event.steps_left)
    elif isinstance(event, MummyMoveEnded):
        if event.at == maze.sarcophagus_node:
            text = msg("The mummy stays in the sarcophagus.")
        else:
            text = msg("The mummy stops on {cell}.", cell=place_word(maze, event.at))
    elif isinstance(event, SeekerCaught):
        name = figure(event.figure)
        data["at"] = maze.cell_name(event.at)
        text = (
            msg(
                "The mummy caught {colour} on {cell}! {seeker} has no ankh left and is out.",
                colour=name,
                cell=data["at"],
                seeker=names[event.seeker],
            )
            if event.ankhs_left == 0
            else counted(
                event.ankhs_left,
                "The mummy caught {colour} on {cell}! {seeker}: {n} ankh left.",
                "The mummy caught {colour} on {cell}! {seeker}: {n} ankhs left.",
                colour=name,
                cell=data["at"],
                seeker=names[event.seeker],
            )
        )
    elif isinstance(event, SeekerOut):
        text = msg("{seeker} is out of the game.", seeker=names[event.seeker])
    elif isinstance(event, GameWon):
        text = winner_text(setup, event.winner)
    elif isinstance(event, CardsRevealed):
        text = msg(
            "The host undid the end: every seeker's unplayed mission cards, which it showed, "
            "are known to the whole table."
        )
    elif isinstance(event, CardsDealtAgain):
        text = msg(
            "The host dealt the unplayed mission cards again: each seeker holds as many as "
            "before, secret once more."
        )
    data["text"] = text
    return data


#: How many mummy faces a roll shows, in words ("two mummy faces").
MUMMY_FACES = (
    N_("a mummy face"),
    N_("two mummy faces"),
    N_("three mummy faces"),
    N_("four mummy faces"),
    N_("five mummy faces"),
)
#: Two or more arrows in one roll, counted as a player says it ("zweimal den Pfeil").
ARROWS = (
    N_("{face} twice"),
    N_("{face} three times"),
    N_("{face} four times"),
    N_("{face} five times"),
)


def roll_words(faces: tuple[Face, ...]) -> Msg:
    """A roll as a player reads it out: the numbers from low to high, the arrows, then
    the mummy faces counted ("1, 3, the arrow and two mummy faces"; "the arrow twice")."""
    said: list[Msg] = [face_word(f) for f in sorted(f for f in faces if f < Face.ARROW)]
    arrows = sum(f is Face.ARROW for f in faces)
    if arrows == 1:
        said.append(face_word(Face.ARROW))
    elif arrows:
        said.append(msg(ARROWS[min(arrows, len(ARROWS) + 1) - 2], face=face_word(Face.ARROW)))
    mummies = sum(f is Face.MUMMY for f in faces)
    if mummies:
        said.append(word(MUMMY_FACES[min(mummies, len(MUMMY_FACES)) - 1]))
    return joined(said)


def mummy_die_words(value: int, steps: int) -> Msg:
    """The mummy die's roll and where every step comes from: the die, and the mummy
    faces lying out ("The mummy die shows 1, and 3 mummy faces lie out: 4 steps.")."""
    out = steps - value
    if out <= 0:
        return counted(
            steps, "The mummy die shows {n}: {n} step.", "The mummy die shows {n}: {n} steps."
        )
    return counted(
        out,
        "The mummy die shows {value}, and {n} mummy face lies out: {steps} steps.",
        "The mummy die shows {value}, and {n} mummy faces lie out: {steps} steps.",
        value=value,
        steps=steps,
    )


def _log(published: Published, setup: Setup, role: str) -> list[Payload]:
    events = [e for group in published.log for e in visible_events(list(group), role)]
    return [event_json(e, setup, role) for e in said_events(events)[-LOG_EVENTS:]]


def said_events(events: list[Event]) -> list[Event]:
    """The events a log says, one line each: a seeker out right after the catch that
    took their last ankh is said by the catch's line ("... has no ankh left and is out")."""
    said: list[Event] = []
    for event in events:
        before = said[-1] if said else None
        if (
            isinstance(event, SeekerOut)
            and isinstance(before, SeekerCaught)
            and before.ankhs_left == 0
            and before.seeker == event.seeker
        ):
            continue
        said.append(event)
    return said


def _caught(published: Published, setup: Setup) -> list[Msg]:
    """Catches made by the last command (the mummy learns of a catch as it happens)."""
    if not published.log:
        return []
    return [
        event_json(e, setup, "mummy")["text"]
        for e in published.log[-1]
        if isinstance(e, SeekerCaught)
    ]


def _takeback(published: Published, seat: str) -> Msg | None:
    """What this seat may take back now, in words (None: nothing)."""
    action = published.action
    if action is None or action.seat != seat or not published.may_take_back:
        return None
    if published.paused is not None:  # refused while another game has the board
        return None
    return action.said_to_mummy if seat == "mummy" else action.said


def _takeback_key(published: Published, seat: str) -> str | None:
    """The key of the action this seat may take back, which the take-back sends back (only
    then: the key changes with every command, which the mummy's page must not see)."""
    return published.action_key if _takeback(published, seat) is not None else None


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
        "computer": table.mummy_computer or None,
        "standin": bool(table.standin),
        "exact": state.setup.options.mummy_moves_exactly,
        "mummy_die_faces": sorted(set(state.setup.options.mummy_die_faces)),
    }


def _cell(state: State, node: int) -> str:
    return state.maze.cell_name(node)


def treasure_name(treasure: Treasure) -> Msg:
    """A treasure's name without its colour, for the card list ("scarab")."""
    return word(treasure.title)


def _mummy_move_words(event: MummyMoveStarted, exactly: bool) -> Msg:
    n = event.steps
    if event.move is MummyMoveKind.NORMAL:
        if exactly:
            return msg("The mummy moves exactly {n} steps.", n=n)
        return msg("The mummy moves up to {n} steps.", n=n)
    if exactly:
        return msg("Intermediate move: the mummy moves exactly {n} steps.", n=n)
    return msg("Intermediate move: the mummy moves up to {n} steps.", n=n)
