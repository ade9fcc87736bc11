"""Pure rules engines, one package per game: no I/O, no clock, no threads."""
