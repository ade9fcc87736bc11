"""Into the Crypt: the pure rules engine and computer opponent (RULES.md, section 3).

Start with :func:`.engine.new_game`, feed commands (:mod:`.commands`) to
:func:`.engine.apply`, show :func:`.views.player_view`, and ask
:func:`.moves.legal_moves` for hints or :func:`.ai.choose_command` for the computer's
move.  The board, its square names and the maze overlay are in :mod:`.board`;
docs/crypt.md describes the decisions taken where the rules are silent.
"""
