#!/usr/bin/env bash
# Installs Debian packages for the test servers and tools, one caller at a time.
#
# Usage: scripts/apt_install.sh PACKAGE...     (needs root)
# The test workers (pytest-xdist) start their servers at the same moment on a bare machine;
# apt-get refuses a second caller ("Could not get lock"), so every install here waits on one
# lock file (flock) and installs only what is still missing once it holds it.
set -euo pipefail
exec 9>"${TMPDIR:-/tmp}/agi-core-apt.lock"
flock 9
missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
