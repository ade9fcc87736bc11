"""Printable sheets, wiring tables and the wiring diagram, generated from the same maze
file and board config that the software reads, so the printout, the wiring and the
software cannot disagree (hardware/README.md is the build guide).

Everything here is pure: functions from a maze and a config to drawings, text and
bytes, with no clock and no randomness, so the committed files in hardware/ can be
compared byte for byte with what the generators produce now.

- ``drawing``: the vector model (lines, rectangles, circles, paths, text in mm) and SVG.
- ``pdf``: the same drawings as a vector PDF, on one page or tiled.
- ``tiling``: page sizes, and tiles with alignment marks for sheets larger than a page.
- ``sheets``, ``crypt_overlay``, ``track_legend``: the three printable sheets.
- ``icons``: the 23 treasure icons, a shape family per colour and a glyph per treasure.
- ``seekers``: each seeker's letter, shape and notches (the maze's legend, the bases).
- ``wiring``: wiring tables and the power budget; ``diagram``: the wiring diagram.
- ``placement``: where each position's sensor and pixel lie (the sheets and the parts).
- ``parts``: the printable 3D parts (STL), made on demand, not committed.
- ``build``: writes (or checks) everything committed in hardware/.
"""
