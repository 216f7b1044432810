#!/usr/bin/env bash
# Headless Chromium and its WebDriver for the inspector's browser tests (agi-plugin-inspector).
#
# Usage: scripts/install_chromium.sh
#   Installs the Debian packages `chromium` and `chromium-driver` when a binary is missing
#   (quietly; needs root), then prints two lines:
#     CHROMIUM=/usr/bin/chromium
#     CHROMEDRIVER=/usr/bin/chromedriver
set -euo pipefail

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" != 0 ]; then
        echo "install_chromium.sh: chromium is not installed; run as root or: sudo apt-get install -y chromium chromium-driver" >&2
        exit 1
    fi
    "$(dirname "${BASH_SOURCE[0]}")/apt_install.sh" chromium chromium-driver  # one install at a time (test workers)
fi
echo "CHROMIUM=$(command -v chromium)"
echo "CHROMEDRIVER=$(command -v chromedriver)"
