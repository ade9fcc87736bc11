"""The maze game's words for the catalogs: colours, die faces, the default maze's
treasures.  Each is a message, so a German table reads "Rot" and "roter Skarabäus"."""

from __future__ import annotations

from companion.i18n import N_, Msg, word

from .dice import Face
from .maze import Colour, Maze, Treasure
from .state import FigureColour

COLOURS = {
    "red": N_("Red"),
    "turquoise": N_("Turquoise"),
    "blue": N_("Blue"),
    "violet": N_("Violet"),
    "white": N_("White"),
    "green": N_("Green"),
    "yellow": N_("Yellow"),
}
#: The default maze's treasures (a custom maze's names are shown as they are written).
TREASURES = (
    N_("red scarab"),
    N_("red carnelian amulet"),
    N_("red sun disk"),
    N_("red granite obelisk"),
    N_("red crown"),
    N_("white papyrus scroll"),
    N_("white alabaster vase"),
    N_("white ibis statue"),
    N_("white linen shroud"),
    N_("white ostrich feather"),
    N_("blue canopic jar"),
    N_("blue faience hippo"),
    N_("blue lotus flower"),
    N_("blue lapis necklace"),
    N_("blue glass flask"),
    N_("green eye of Horus"),
    N_("green malachite palette"),
    N_("green cobra diadem"),
    N_("green papyrus sceptre"),
    N_("yellow death mask"),
    N_("yellow sun barque"),
    N_("yellow falcon pendant"),
    N_("yellow crook and flail"),
)


def colour_word(colour: Colour | FigureColour | str) -> Msg:
    """ "Red", "Turquoise": a figure's or a treasure's colour as a name."""
    key = colour if isinstance(colour, str) else colour.value
    return word(COLOURS.get(key, key.capitalize()))


def treasure_word(treasure: Treasure) -> Msg:
    """A treasure by its title ("red scarab")."""
    return word(treasure.title)


def face_word(face: Face) -> Msg:
    """A die face as announced: "3", or "the arrow"."""
    return word(N_("the arrow")) if face is Face.ARROW else word(face.label)


def die_word(face: Face) -> Msg:
    """A die face at the start of a sentence: "3", or "Arrow"."""
    return word(N_("Arrow")) if face is Face.ARROW else word(face.label)


#: The computer mummy's levels, as the host page names them.
LEVELS = (N_("easy"), N_("normal"), N_("hard"))

#: The directions of the mummy's step buttons.
DIRECTIONS = (N_("north"), N_("east"), N_("south"), N_("west"))


def place_word(maze: Maze, node: int) -> Msg:
    """Where a figure or the mummy stands: "D4", "the start field", "the sarcophagus"."""
    if node == maze.start_node:
        return word(N_("the start field"))
    if node == maze.sarcophagus_node:
        return word(N_("the sarcophagus"))
    return word(maze.cell_name(node))
