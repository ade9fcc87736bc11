"""The SQLite journal: commits, resume, undo, export."""

from __future__ import annotations

import sqlite3

from companion.journal import Journal


def test_a_game_is_stored_as_setup_and_commands(tmp_path):
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        game = journal.new_game("mummy", {"seed": 1})
        assert journal.append(game, {"cmd": "roll"}) == 1
        assert journal.append(game, {"cmd": "announce", "face": "4"}) == 2
    with Journal(path) as journal:  # a new process after a restart
        stored = journal.unfinished("mummy")
        assert stored is not None and stored.id == game
        assert stored.setup == {"seed": 1}
        assert stored.commands == [{"cmd": "roll"}, {"cmd": "announce", "face": "4"}]


def test_the_journal_is_set_up_for_power_loss(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_commit_is_visible_to_another_connection_at_once(tmp_path):
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        game = journal.new_game("mummy", {})
        journal.append(game, {"cmd": "roll"})
        other = sqlite3.connect(path)
        assert other.execute("SELECT COUNT(*) FROM commands").fetchone()[0] == 1
        other.close()


def test_undo_removes_the_last_command_only(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        game = journal.new_game("mummy", {})
        journal.append(game, {"n": 1})
        journal.append(game, {"n": 2})
        assert journal.undo(game) == {"n": 2}
        assert journal.load(game).commands == [{"n": 1}]
        assert journal.append(game, {"n": 3}) == 2
        assert journal.undo(game) == {"n": 3}
        assert journal.undo(game) == {"n": 1}
        assert journal.undo(game) is None


def test_undo_of_several_commands_is_one_step_and_names_the_earliest(tmp_path):
    """The host's undo with the computer's commands after a person's action."""
    with Journal(tmp_path / "j.sqlite3") as journal:
        game, other = journal.new_game("mummy", {}), journal.new_game("mummy", {})
        for n in range(1, 6):
            journal.append(game, {"n": n})
        journal.append(other, {"n": 9})
        assert journal.undo(game, 3) == {"n": 3}
        assert journal.load(game).commands == [{"n": 1}, {"n": 2}]
        assert journal.load(other).commands == [{"n": 9}]
        assert journal.undo(game, 5) == {"n": 1}  # no more than there are
        assert journal.load(game).commands == [] and journal.undo(game, 2) is None


def test_a_new_game_ends_the_unfinished_one(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        first = journal.new_game("mummy", {"g": 1})
        second = journal.new_game("mummy", {"g": 2})
        assert journal.load(first).ended
        assert journal.unfinished("mummy").id == second
        journal.end_game(second)
        assert journal.unfinished("mummy") is None
        assert journal.latest("mummy").id == second


def test_games_of_other_kinds_are_kept_apart(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        mummy = journal.new_game("mummy", {})
        journal.new_game("lootnrun", {})
        assert journal.unfinished("mummy").id == mummy


def test_export_is_the_record_format(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        game = journal.new_game("mummy", {"record": "x"})
        journal.append(game, {"cmd": "roll"})
        assert journal.export(game) == '{"record": "x"}\n{"cmd": "roll"}\n'
