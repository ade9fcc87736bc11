"""Statistics across finished games (functional core): pure functions of each game's
facts, which the service derives from the journal's records.

Players name themselves per game (``names``: a seat's name in one game); a name may be
merged into another (the same person spelled twice) or removed (left out of the
figures by name, while the game still counts everywhere else).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: The computer levels in the order the statistics show them.
LEVELS = ("person", "easy", "normal", "hard", "unknown")


@dataclass(frozen=True)
class GameFacts:
    """One finished game in the few facts the statistics need."""

    id: int
    kind: str
    #: The maze: "mummy" or "seekers"; the side games: "players".
    winner: str
    seekers: int = 0
    maze: str = ""
    computer: str = "unknown"
    rounds: int = 0
    commands: int = 0
    #: The nodes where the mummy caught a figure (maze cells and rooms alike).
    catches: tuple[int, ...] = ()
    #: Seat -> the name its player gave in this game ("mummy", "seeker0", "player1").
    names: Mapping[str, str] = field(default_factory=dict)
    #: The seats that won.
    winning_seats: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tally:
    """Games in one group and who won them."""

    group: str
    games: int
    mummy: int
    seekers: int

    @property
    def mummy_share(self) -> float:
        return self.mummy / self.games if self.games else 0.0


@dataclass(frozen=True)
class NameTally:
    name: str
    games: int
    wins: int


@dataclass(frozen=True)
class Statistics:
    games: int
    by_role: Tally
    by_seekers: tuple[Tally, ...]
    by_maze: tuple[Tally, ...]
    by_level: tuple[Tally, ...]
    mean_rounds: float
    mean_commands: float
    catches: Mapping[int, int]
    by_name: tuple[NameTally, ...]
    side_games: int


def canonical(name: str, merged: Mapping[str, str]) -> str:
    """A name after its merges (followed to the end; a loop stops where it started)."""
    seen = {name}
    while name in merged and merged[name] not in seen:
        name = merged[name]
        seen.add(name)
    return name


def _tally(group: str, games: Sequence[GameFacts]) -> Tally:
    mummy = sum(g.winner == "mummy" for g in games)
    return Tally(group, len(games), mummy, len(games) - mummy)


def _grouped(games: Sequence[GameFacts], key: str, order: Sequence[str] = ()) -> tuple[Tally, ...]:
    groups: dict[str, list[GameFacts]] = {}
    for g in games:
        groups.setdefault(str(getattr(g, key)), []).append(g)
    ranked = sorted(groups, key=lambda k: (order.index(k) if k in order else len(order), k))
    return tuple(_tally(k, groups[k]) for k in ranked)


def by_name(
    games: Iterable[GameFacts], merged: Mapping[str, str], removed: Iterable[str]
) -> tuple[NameTally, ...]:
    """Each name's games and wins (merged names counted as one, removed names left
    out), most wins first."""
    gone = {canonical(n, merged) for n in removed}
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for g in games:
        names = {seat: canonical(n.strip(), merged) for seat, n in g.names.items() if n.strip()}
        for seat, name in names.items():
            if name in gone:
                continue
            played[name] += 1
            if seat in g.winning_seats:
                won[name] += 1
    return tuple(
        NameTally(n, played[n], won[n]) for n in sorted(played, key=lambda n: (-won[n], n))
    )


def statistics(
    games: Iterable[GameFacts],
    merged: Mapping[str, str] | None = None,
    removed: Iterable[str] = (),
) -> Statistics:
    """Every figure of the statistics page from the games' facts."""
    every = list(games)
    maze = [g for g in every if g.kind == "mummy"]
    catches: Counter[int] = Counter(node for g in maze for node in g.catches)
    return Statistics(
        games=len(every),
        by_role=_tally("all", maze),
        by_seekers=_grouped(maze, "seekers"),
        by_maze=_grouped(maze, "maze"),
        by_level=_grouped(maze, "computer", LEVELS),
        mean_rounds=sum(g.rounds for g in maze) / len(maze) if maze else 0.0,
        mean_commands=sum(g.commands for g in maze) / len(maze) if maze else 0.0,
        catches=dict(catches),
        by_name=by_name(every, merged or {}, removed),
        side_games=len(every) - len(maze),
    )


def catches_on(games: Iterable[GameFacts], maze: str) -> dict[int, int]:
    """How often the mummy caught a figure on each node, in the games on ``maze``."""
    return dict(
        Counter(n for g in games if g.kind == "mummy" and g.maze == maze for n in g.catches)
    )
