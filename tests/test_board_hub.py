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


def test_a_maze_figure_standing_or_lifted_reaches_no_other_game():
    hub, maze, crypt, _ = table()
    hub.activate("crypt")
    assert crypt.heard == [[]] and maze.heard[-1] == "paused for crypt"
    assert hub.off_board() == 0 and hub.left_behind() == len(FIGURES)
    for position in FIGURES[:2]:  # figures lifted: nothing heard, the count stays
        put(hub, position, False)
        assert crypt.heard == [[]], position
        assert hub.off_board() == 0 and hub.left_behind() == len(FIGURES)
    hub.set_occupied(frozenset({100}))  # the link came back: 103 was lifted meanwhile
    assert crypt.heard == [[]]
    assert hub.off_board() == 0 and hub.left_behind() == len(FIGURES)


def test_the_maze_figures_still_standing_count_down_to_nothing():
    """The crypt's "take them off" clears when they are off: the hub counts the figures
    the maze left that still stand (a number, no position), and nothing else changes."""
    hub, _maze, crypt, _ = table()
    hub.activate("crypt")
    assert hub.maze_standing() == len(FIGURES)
    for lifted, position in enumerate(FIGURES, 1):
        put(hub, position, False)
        assert hub.maze_standing() == len(FIGURES) - lifted
        assert crypt.heard == [[]] and hub.off_board() == 0
    put(hub, FIGURES[0], True)  # a magnet put back there later is the crypt's, not the maze's
    assert hub.maze_standing() == 0
    hub.activate("mummy")
    assert hub.maze_standing() == 0


def test_a_square_a_maze_figure_left_is_free_like_any_other_once_lifted():
    """Issue 34: a touch where a seeker stood was silently ignored, so the crypt named
    the cell by its silence.  Once the figure is lifted its square is free: a magnet
    put down there (the figure put back, a touch) is heard as anywhere else."""
    hub, maze, crypt, loot = table()
    hub.activate("crypt")
    put(hub, 5, False)  # lifted: unheard
    put(hub, 5, True)  # put back on its cell: a touch like any other
    assert crypt.heard == [[], (5, True)]
    put(hub, 30, True)  # where no figure stood: the same kind of answer
    assert crypt.heard[-1] == (30, True)
    put(hub, 100, False)  # off the sheet: lifted unheard, put back counted as any magnet
    assert crypt.heard[-1] == (30, True) and hub.off_board() == 0
    put(hub, 100, True)
    assert crypt.heard[-1] == [5, 30] and hub.off_board() == 1
    hub.activate("lootnrun")
    put(hub, 20, False)
    put(hub, 20, True)
    assert loot.heard[-1] == [] or loot.heard[-1] == [[]]  # no sheet: it hears no figure
    hub.activate("mummy")  # the maze sees its whole board again (restore mode)
    assert maze.heard[-1] == [5, 20, 30, 100, 103] and hub.left_behind() == 0


def test_a_magnet_standing_where_the_maze_left_it_stays_unseen_until_lifted():
    """The computer moved its meeple onto a square a seeker stood on: the magnet standing
    there all along stays unseen (the crypt asks for its meeple, as on any empty
    square); lifted and put down again, it is the meeple."""
    hub, _, crypt, _ = table()
    hub.activate("crypt")
    crypt.expected = {20}
    assert crypt.heard == [[]]
    put(hub, 20, False)
    assert crypt.heard == [[]]
    put(hub, 20, True)
    assert crypt.heard == [[], (20, True)]
    crypt.expected = set()
    put(hub, 20, False)
    assert crypt.heard[-1] == (20, False)
