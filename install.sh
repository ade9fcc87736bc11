#!/bin/sh
# The Raspberry Pi's set-up command, from a clone of this repository:
#   sudo ./install.sh [--dry-run] [--port 80] [--no-start]
#   sudo ./install.sh uninstall [--purge]      (--purge also removes the game journal)
#   sudo ./install.sh update                   (git pull, reinstall, restart, /healthz;
#                                               the previous version back if it fails)
#   ./install.sh --print-paths                 (where it puts things, NAME=path)
# Each step is skipped when already done; systemd/README.md says what each does.
set -e
cd "$(dirname "$0")"
if ! command -v python3 >/dev/null; then
    echo "install.sh: python3 is missing: sudo apt-get install python3, then run again" >&2
    exit 1
fi
# Run as root from the user's clone: no root-owned __pycache__ left in it.
export PYTHONDONTWRITEBYTECODE=1
exec python3 -m companion.pi.install "$@"
