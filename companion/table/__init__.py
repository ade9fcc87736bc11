"""The table every game stands on: seats and codes, the board and who holds it, the doors.

``seats``: the host, the seats and their join codes; ``hub``: which game holds the board.
"""
