"""The installer's address before it moved to ``companion/pi/install.py``.

Kept for one reason: ``sudo ./install.sh update`` on a table installed before the move
fetches the new version, then runs ``python3 -m companion.service.install update --from
<commit>`` in it (the old installer knows no other address).  This passes that on to the
installer; nothing imports it.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from companion.pi.install import main

    sys.exit(main())
