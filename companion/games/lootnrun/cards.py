"""A revealed room card, as the players enter it.

The companion does not know the deck (RULES.md: card contents are not modelled card
by card).  When cards are revealed in a Run, an Awaken or the final reveal, the players
enter what each card shows: its treasure symbols by type, its amulets, its guardian
(if any) and, optionally, the colour of its back.  Entering card by card, not just a
total, is needed because the Run bonus depends on how many *cards* show a type.

Treasure types: the game has six (rule sheet: "1 to 3 treasures per card in six
types"), but the sources name only two of them in passing ("cups and chests"), and
not which is which on the cards.  The companion therefore numbers them 1 to 6
(:data:`TREASURE_TYPE_NAMES`); a page may let the players pick a picture for each.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from companion.i18n import N_, Msg, msg

from .errors import RuleError

#: Number of treasure types in the game.
TREASURE_TYPES = 6
#: Display names of the treasure types 1 to 6 (the sources do not name all six).
TREASURE_TYPE_NAMES = (
    N_("type 1"),
    N_("type 2"),
    N_("type 3"),
    N_("type 4"),
    N_("type 5"),
    N_("type 6"),
)
#: Treasure symbols on one room card (rule sheet, card anatomy: "between 1 and 3").
MIN_TREASURES_PER_CARD = 1
MAX_TREASURES_PER_CARD = 3
#: Not from the sources: a guard against typing mistakes (a card shows few symbols).
MAX_AMULETS_PER_CARD = 3


class Guardian(enum.Enum):
    """The three guardian types; a room card shows at most one guardian."""

    MUMMY = "mummy"
    WEREWOLF = "werewolf"
    FRANK = "frank"


class RoomColour(enum.Enum):
    """The colour of a card's back (12 red, 18 yellow, 24 green rooms)."""

    GREEN = "green"
    YELLOW = "yellow"
    RED = "red"


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True)
class Card:
    """One revealed room card.

    ``treasures[i]`` is the number of symbols of treasure type ``i + 1`` on the card.
    Only the shape is checked here (six counts, none negative), so that any entry can
    be held and shown; whether a card is plausible is :func:`card_problem`'s job, which
    the engine asks with the context needed for a good message.
    """

    treasures: tuple[int, ...] = (0,) * TREASURE_TYPES
    amulets: int = 0
    guardian: Guardian | None = None
    colour: RoomColour | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.treasures, tuple) or len(self.treasures) != TREASURE_TYPES:
            raise RuleError(
                "A card lists its treasures for each of the {types} types.", types=TREASURE_TYPES
            )
        if not all(_is_count(n) for n in self.treasures):
            raise RuleError("A card's treasure counts are whole numbers, none negative.")
        if not _is_count(self.amulets):
            raise RuleError("A card's amulets are a whole number, not negative.")
        if self.guardian is not None and not isinstance(self.guardian, Guardian):
            raise RuleError("A card's guardian is a Mummy, a Werewolf, a Frank or none.")
        if self.colour is not None and not isinstance(self.colour, RoomColour):
            raise RuleError("A card's back is green, yellow or red.")

    @classmethod
    def of(
        cls,
        *symbols: int,
        amulets: int = 0,
        guardian: Guardian | None = None,
        colour: RoomColour | None = None,
    ) -> Card:
        """A card from its treasure symbols by type number: ``Card.of(2, 2, 5)``.

        That card shows two symbols of type 2 and one of type 5.
        """
        counts = [0] * TREASURE_TYPES
        for t in symbols:
            if not (isinstance(t, int) and 1 <= t <= TREASURE_TYPES):
                raise RuleError(
                    "Treasure types are numbered 1 to {types}, not {t}.", types=TREASURE_TYPES, t=t
                )
            counts[t - 1] += 1
        return cls(tuple(counts), amulets, guardian, colour)

    @property
    def symbols(self) -> int:
        """All treasure symbols on the card."""
        return sum(self.treasures)

    def count(self, treasure_type: int) -> int:
        """Symbols of ``treasure_type`` (1 to 6) on the card."""
        return self.treasures[treasure_type - 1]


def card_problem(card: Card) -> Msg | None:
    """Why ``card`` cannot be a room card of the game, or None when it can.

    The phrase completes a sentence such as "Ben's card 2 ...".
    """
    if not MIN_TREASURES_PER_CARD <= card.symbols <= MAX_TREASURES_PER_CARD:
        return msg(
            "shows {n} treasure symbols, but every room card shows {least} to {most}",
            n=card.symbols,
            least=MIN_TREASURES_PER_CARD,
            most=MAX_TREASURES_PER_CARD,
        )
    if card.amulets > MAX_AMULETS_PER_CARD:
        return msg(
            "shows {n} amulets; no card shows more than {most}",
            n=card.amulets,
            most=MAX_AMULETS_PER_CARD,
        )
    return None
