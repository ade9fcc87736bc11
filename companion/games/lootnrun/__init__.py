"""Loot N Run: the pure score-track and scoring engine (RULES.md, section 2).

The companion does not deal or hold the physical cards; the players tell it what they
do (Loot, Run, Awaken) and enter what the revealed cards show, and the engine does the
arithmetic, keeps the turn order, the score track, the history and the end of the game.

Modules, one concern each:

- :mod:`.cards`    a revealed room card as the players enter it
- :mod:`.scoring`  what revealed cards are worth (Run arithmetic, Awaken outcome)
- :mod:`.state`    players, setup and the immutable game state
- :mod:`.history`  the record of every action with its points (part of the state)
- :mod:`.commands` what the players ask for
- :mod:`.events`   what happened
- :mod:`.engine`   ``new_game``, ``apply``, ``replay`` and the rule checks
- :mod:`.views`    JSON-safe dicts for the score-track page
- :mod:`.record`   JSON forms of cards, commands and setups; game records
"""
