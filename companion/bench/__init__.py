"""``companion bench``: the figures that decide whether the board feels instant.

Every figure is measured on the machine it runs on (a laptop in mock mode, or a Pi)
and printed beside what it is compared with, measured in the same run.  One module a
section (``companion bench --only NAME``):

- ``engine``: legal-destination queries against a plain breadth-first reference,
  complete self-play games, the computer mummy's think time;
- ``sensors``: a pin change to its occupancy event (settle excluded), the full-board
  scan against a bare loop reading the same pins;
- ``end_to_end``: a settled pin change to the LED frame and to the SSE event an HTTP
  client receives from the real server, against the floor of settle + one scan period
  + one LED frame at 800 kHz;
- ``serial_link`` (section ``serial``): an LED frame to the simulated Pico over a pty,
  and a press to its event;
- ``service``: idle CPU, RSS after a complete game, start-up to the first page;
- ``web``: bytes of each page with everything it loads;
- ``streams``: RSS over a soak of 12 phones on their live streams, and the slowest page
  while 40 phones drop off at once;
- ``pages``: a phone's bytes over a game;
- ``attacks``: the slowest page of another phone while one device holds 150 half-sent
  requests, asks for 1,100 streams, or uploads 300 MB, and what that upload wrote;
- ``player`` (sections ``player`` and ``player_pi``): a figure's move to every seat's
  screen in chromium, with the companion's own timestamps (``trace``) beside it.

The imports flow one way, so no module needs another half-built: ``figures`` (a figure,
percentiles) at the bottom, then ``clients`` (a companion process and the phones that
talk to it), then the sections, and ``run`` (the section list, the targets, the report)
on top, which ``companion bench`` calls.  ``trace`` stands apart: ``companion run``
installs it when ``COMPANION_TRACE`` is set.  tests/test_layers.py keeps it so.  This
file imports nothing.
"""
