#!/usr/bin/env bash
# Installs bubblewrap (the Debian package `bubblewrap`) when `bwrap` is missing, for the
# self_improver's sandboxed shadow replay, and checks it can create its sandbox here.
#
# Usage: scripts/install_bubblewrap.sh
#   Prints `BWRAP=/path/to/bwrap` and exits 0 when bwrap runs a read-only root with no network;
#   exits 1 with one line on stderr when it is missing and cannot be installed (not root), or
#   when it cannot create namespaces in this container.
set -euo pipefail

if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        echo "install_bubblewrap.sh: bubblewrap is not installed; run as root or: sudo apt-get install -y bubblewrap" >&2
        exit 1
    fi
    "$(dirname "${BASH_SOURCE[0]}")/apt_install.sh" bubblewrap  # one install at a time (test workers)
fi
bwrap="$(command -v bwrap)"
if ! err="$("$bwrap" --ro-bind / / --unshare-net --tmpfs /tmp true 2>&1)"; then
    echo "install_bubblewrap.sh: bwrap cannot create its sandbox here: ${err##*$'\n'}" >&2
    exit 1
fi
echo "BWRAP=$bwrap"
