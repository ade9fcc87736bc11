"""What revealed cards are worth: the arithmetic of a Run and of an Awaken.

Pure functions of the entered cards, so a page can show a live preview while the
players enter cards, and the engine scores with exactly the same code.

Run (RULES.md, section 2): one point per treasure symbol; a treasure type that appears
on two or more of the revealed cards scores double; never more than double, however
many cards show it; several types can be doubled in one Run.  Guardians and amulets
score nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import TREASURE_TYPES, Card, Guardian

#: The order in which the benefits of a catch are resolved.
BENEFIT_ORDER = (Guardian.MUMMY, Guardian.WEREWOLF, Guardian.FRANK)


@dataclass(frozen=True)
class TypeScore:
    """One treasure type in a Run: its symbols, on how many cards, and its points."""

    treasure_type: int  # 1 to 6
    symbols: int
    cards: int

    @property
    def doubled(self) -> bool:
        """On two or more cards: the type scores double (never more)."""
        return self.cards >= 2

    @property
    def points(self) -> int:
        return self.symbols * 2 if self.doubled else self.symbols


@dataclass(frozen=True)
class RunScore:
    """The score of a set of revealed cards, with the breakdown per treasure type.

    ``types`` holds only the types shown on at least one card, in type order.
    """

    cards: int
    types: tuple[TypeScore, ...] = ()

    @property
    def symbols(self) -> int:
        return sum(t.symbols for t in self.types)

    @property
    def points(self) -> int:
        return sum(t.points for t in self.types)

    @property
    def doubled_types(self) -> tuple[int, ...]:
        """The treasure types that scored double."""
        return tuple(t.treasure_type for t in self.types if t.doubled)


def run_score(cards: Iterable[Card]) -> RunScore:
    """Score ``cards`` as a Run: per type, its symbols, doubled if on two or more cards."""
    cards = tuple(cards)
    types = []
    for i in range(TREASURE_TYPES):
        symbols = sum(c.treasures[i] for c in cards)
        if symbols:
            on_cards = sum(1 for c in cards if c.treasures[i])
            types.append(TypeScore(i + 1, symbols, on_cards))
    return RunScore(len(cards), tuple(types))


@dataclass(frozen=True)
class AwakenOutcome:
    """What revealing a player's cards in an Awaken leads to.

    ``guardian_types`` are the guardian types shown, in benefit order (Mummy, Werewolf,
    Frank), each once however many cards show it.
    """

    amulets: int
    guardians: int
    guardian_types: tuple[Guardian, ...]
    run: RunScore

    @property
    def escaped(self) -> bool:
        """Amulets at least as many as guardians: the target escapes (scores as a Run)."""
        return self.amulets >= self.guardians

    @property
    def benefits(self) -> tuple[Guardian, ...]:
        """The awakener's benefits when the target is caught (none when it escapes)."""
        return () if self.escaped else self.guardian_types


def awaken_outcome(cards: Iterable[Card]) -> AwakenOutcome:
    """Count amulets and guardians on the target's revealed cards and score them."""
    cards = tuple(cards)
    shown = {c.guardian for c in cards if c.guardian is not None}
    return AwakenOutcome(
        amulets=sum(c.amulets for c in cards),
        guardians=sum(1 for c in cards if c.guardian is not None),
        guardian_types=tuple(g for g in BENEFIT_ORDER if g in shown),
        run=run_score(cards),
    )
