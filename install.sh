#!/bin/sh
# The Raspberry Pi's set-up command, from a clone of this repository:
#   sudo ./install.sh [--dry-run] [--port 80] [--no-start]
#                                              (--port is remembered: a plain re-run keeps it)
#   sudo ./install.sh uninstall [--purge]      (--purge also removes the game journal)
#   sudo ./install.sh update                   (git pull, a new venv beside the running one,
#                                               restart, /healthz; the previous version back
#                                               if it fails; run it again after an
#                                               interruption and it finishes the job)
#   ./install.sh --print-paths                 (where it puts things, NAME=path)
# Each step is skipped when already done; systemd/README.md says what each does.
# Raspberry Pi OS Bookworm (Python 3.11) and Trixie (Python 3.13), 64- and 32-bit.
set -e
cd "$(dirname "$0")"
if ! command -v python3 >/dev/null; then
    echo "install.sh: python3 is missing: sudo apt-get install python3, then run again" >&2
    exit 1
fi
# Run as root from the user's clone: no root-owned __pycache__ left in it.
export PYTHONDONTWRITEBYTECODE=1
# Every line reaches a log or a pipe at once (a run cut off by a hang-up shows its last step).
export PYTHONUNBUFFERED=1
exec python3 -u -m companion.pi.install "$@"
