"""The hub between the games on one board: what another game hears of the maze's figures.

While the crypt (or Loot N Run) holds the board, the maze's figures are the maze's
secret: a figure lifted, put back or slid to another of their cells reaches no other
game at all (no position, no count, no call), and a square they stood on opens only to
a piece the active game itself asks for there.  (The whole table, with its pages and
streams, is checked in ``test_hidden_information.py``.)
"""

from __future__ import annotations

from typing import Any

from companion.board.debounce import OccupancyChange
from companion.table.hub import GameHub


class Game:
    """A game service that records what the hub tells it."""

    def __init__(self, sheet: frozenset[int] | None, *, hides: bool = False) -> None:
        self.sheet = sheet
        self.hides_positions = hides
        self.heard: list[Any] = []
        self.expected: set[int] = set()

    def occupancy(self, change: OccupancyChange) -> None:
        self.heard.append((change.position, change.occupied))

    def set_occupied(self, positions: frozenset[int]) -> None:
        self.heard.append(sorted(positions))

    def expected_positions(self) -> frozenset[int]:
        return frozenset(self.expected)

    def scene(self) -> Any:
        return None

    def start(self) -> None: ...

    def status(self) -> dict[str, Any]:
        return {}

    def close(self) -> None: ...


class Maze(Game):
    """The maze: its positions are secret, and it pauses while another game plays."""

    def __init__(self) -> None:
        super().__init__(None, hides=True)

    def board_taken(self, by: str) -> None:
        self.heard.append(f"paused for {by}")


#: The crypt's sheet: positions 0 to 63; 100 to 103 lie off it (outer cells, pads).
SHEET = frozenset(range(64))
#: Where the maze's figures stand when the host gives the board away: two on the sheet,
#: one off it, one on a pad.
FIGURES = (5, 20, 100, 103)


def table() -> tuple[GameHub, Game, Game, Game]:
    maze, crypt, loot = Maze(), Game(SHEET), Game(frozenset())
    hub = GameHub({"mummy": maze, "crypt": crypt, "lootnrun": loot})
    hub.set_occupied(frozenset(FIGURES))
    return hub, maze, crypt, loot


def put(hub: GameHub, position: int, occupied: bool) -> None:
    hub.occupancy(OccupancyChange(position, occupied, 0.0, 0.0))


def test_a_maze_figure_lifted_put_back_or_moved_reaches_no_other_game():
    hub, maze, crypt, loot = table()
    hub.activate("crypt")
    assert crypt.heard == [[]] and maze.heard[-1] == "paused for crypt"
    assert hub.off_board() == 0 and hub.left_behind() == len(FIGURES)
    for position, occupied in [
        (5, False),  # lifted
        (5, True),  # put back on its cell
        (20, False),
        (5, False),
        (20, True),  # the figure from 5 slid onto 20
        (100, False),
        (103, False),  # every one off the board: the count does not move
        (100, True),
    ]:
        put(hub, position, occupied)
        assert crypt.heard == [[]], (position, occupied)
        assert hub.off_board() == 0 and hub.left_behind() == len(FIGURES)
    hub.set_occupied(frozenset({5, 100}))  # the link came back: only masked cells differ
    assert crypt.heard == [[]]
    hub.activate("lootnrun")
    put(hub, 20, True)
    assert loot.heard == [[]]  # Loot N Run has no sheet: it hears of no figure
    hub.activate("crypt")
    put(hub, 20, False)
    assert crypt.heard == [[], []] and hub.left_behind() == len(FIGURES)
    # A magnet where no maze figure stood is an ordinary magnet for the crypt.
    put(hub, 30, True)
    put(hub, 101, True)
    assert crypt.heard[-2:] == [(30, True), [30]] and hub.off_board() == 1
    hub.activate("mummy")  # the maze sees its whole board again (restore mode)
    assert maze.heard[-1] == [5, 30, 100, 101] and hub.left_behind() == 0


def test_a_square_the_maze_left_opens_only_to_the_piece_the_game_asks_for_there():
    """The computer moved its meeple onto a square a seeker stood on: the magnet standing
    there all along stays unseen (the crypt asks for its meeple, as on any empty
    square); lifted and put down again, it is the meeple, and the square is the
    crypt's from then on.  Squares the crypt does not ask for stay closed."""
    hub, _, crypt, _ = table()
    hub.activate("crypt")
    crypt.expected = {20}
    put(hub, 5, False)
    put(hub, 5, True)  # not asked for there: still nothing
    assert crypt.heard == [[]]
    put(hub, 20, False)
    assert crypt.heard == [[]]
    put(hub, 20, True)
    assert crypt.heard == [[], (20, True)]
    crypt.expected = set()
    put(hub, 20, False)
    assert crypt.heard[-1] == (20, False)
    put(hub, 5, False)
    assert crypt.heard[-1] == (20, False) and hub.off_board() == 0
