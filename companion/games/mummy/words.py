"""The maze game's words for the catalogs: colours, die faces, the default maze's
treasures.  Each is a message, so a German table reads "Rot" and "roter Skarabäus"; the
names that go into sentences are ``noun``s, with their forms by case in the catalogs
("auf dem roten Skarabäus", ``companion/i18n/grammar.py``)."""

from __future__ import annotations

from companion.i18n import N_, Msg, noun, word

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
    noun("red scarab"),
    noun("red carnelian amulet"),
    noun("red sun disk"),
    noun("red granite obelisk"),
    noun("red crown"),
    noun("white papyrus scroll"),
    noun("white alabaster vase"),
    noun("white ibis statue"),
    noun("white linen shroud"),
    noun("white ostrich feather"),
    noun("blue canopic jar"),
    noun("blue faience hippo"),
    noun("blue lotus flower"),
    noun("blue lapis necklace"),
    noun("blue glass flask"),
    noun("green eye of Horus"),
    noun("green malachite palette"),
    noun("green cobra diadem"),
    noun("green papyrus sceptre"),
    noun("yellow death mask"),
    noun("yellow sun barque"),
    noun("yellow falcon pendant"),
    noun("yellow crook and flail"),
)


def colour_word(colour: Colour | FigureColour | str) -> Msg:
    """ "Red", "Turquoise": a figure's or a treasure's colour as a name."""
    key = colour if isinstance(colour, str) else colour.value
    return word(COLOURS.get(key, key.capitalize()))


def treasure_word(treasure: Treasure) -> Msg:
    """A treasure by its title ("red scarab")."""
    return word(treasure.title)


#: The faces with a name (the numbers are said as they are): in a sentence "the arrow",
#: and the mummy face by its label, as the dice buttons name both ("add arrow").
FACES = {Face.ARROW: noun("the arrow"), Face.MUMMY: noun("mummy")}
#: The arrow as the seeker page's dice buttons name it ("announce arrow").
BUTTON_FACES = (noun("arrow"),)


def face_word(face: Face) -> Msg:
    """A die face as announced: "3", "the arrow", "mummy" (names with their forms by
    case: "den Pfeil", "die Mumienseite")."""
    return word(FACES.get(face, face.label))


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
        return word(noun("the start field"))
    if node == maze.sarcophagus_node:
        return word(noun("the sarcophagus"))
    return word(maze.cell_name(node))
