"""The Raspberry Pi platform: everything that ties the companion to a Pi and its OS.

Here, and nowhere else, the companion meets Raspberry Pi OS and the Pi's hardware
access: the installer and its systemd unit (``install.py``, ``data/``), the Wi-Fi
hotspot (``hotspot.py``), systemd's notify protocol and watchdog (``notify.py``), the
lgpio pin factory (``pin_factory.py``), finding the Pico's USB data port
(``usb_ports.py``) and copying the Pico's firmware (``firmware_install.py``).  The
installer's parts: the release check (``release.py``), the venv built beside and
switched in (``venvs.py``), the locks (``locks.py``), failures in words
(``failures.py``) and atomic writes (``atomic.py``).

Why a package of its own: a change for a new Pi, a new OS release or a new service
manager lands here, and a change to a game never has to read it.  So the layering runs
one way: the game services (``companion.service``, ``companion.web``, ``companion.table``,
``companion.games``) may import this package, and it imports none of them
(tests/test_layers.py checks it).  It may use the board's drivers (``companion.board``)
and the shared helpers (``companion.inputs``, ``companion.errors``).  ``install.py``
runs with the system's python3 before any venv exists: it imports the standard library
and ``companion.inputs`` only.
"""
