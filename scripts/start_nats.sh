#!/usr/bin/env bash
# A throwaway NATS server with JetStream for tests and benchmarks, in a temporary data folder.
#
# Usage: scripts/start_nats.sh [FOLDER]
#   Installs the Debian `nats-server` package when the binary is missing (quietly; needs root),
#   starts `nats-server -js` on a free loopback port with its JetStream store in FOLDER/data
#   (default FOLDER: a new folder under /tmp), waits until it accepts connections, and prints:
#     URL=nats://127.0.0.1:PORT
#     STOP=FOLDER/stop.sh
# Idempotent: run it again on the same FOLDER while the server lives and it prints the same lines.
# Run it again after a stop.sh --keep (which keeps the data) to restart the server on the same port.
set -euo pipefail

folder="${1:-$(mktemp -d /tmp/agi-nats.XXXXXX)}"
mkdir -p "$folder"
folder="$(cd "$folder" && pwd)"

bin="$(command -v nats-server || true)"
if [ -z "$bin" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "start_nats.sh: nats-server is not installed; run as root or: sudo apt-get install -y nats-server" >&2
        exit 1
    fi
    "$(dirname "${BASH_SOURCE[0]}")/apt_install.sh" nats-server  # one install at a time (test workers)
    bin="$(command -v nats-server)"
fi

running() { [ -f "$folder/pid" ] && kill -0 "$(cat "$folder/pid")" 2>/dev/null; }

if ! running; then
    if [ ! -f "$folder/port" ]; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$folder/port"
    fi
    port="$(cat "$folder/port")"
    mkdir -p "$folder/data"
    setsid "$bin" -js -a 127.0.0.1 -p "$port" -sd "$folder/data" -l "$folder/server.log" -P "$folder/pid" \
        </dev/null >/dev/null 2>&1 &
fi
port="$(cat "$folder/port")"

cat >"$folder/stop.sh" <<STOP
#!/usr/bin/env bash
# Stops the server started by start_nats.sh in $folder (SIGKILL) and removes the folder; --keep keeps it.
# Waits until the process has exited. An exited one that its parent (PID 1 here) has not reaped yet is a
# zombie: its port and files are already released, so it counts as gone (some inits reap only every second).
alive() { [ -f "$folder/pid" ] && [ -r "/proc/\$1/stat" ] && [ "\$(cut -d' ' -f3 "/proc/\$1/stat" 2>/dev/null)" != Z ]; }
pid="\$(cat "$folder/pid" 2>/dev/null || true)"
[ -n "\$pid" ] && kill -9 "\$pid" 2>/dev/null
for _ in \$(seq 1 500); do [ -n "\$pid" ] && alive "\$pid" || break; sleep 0.01; done
rm -f "$folder/pid"
[ "\${1:-}" = "--keep" ] || rm -rf "$folder"
STOP
chmod +x "$folder/stop.sh"

for _ in $(seq 1 100); do
    if running && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "URL=nats://127.0.0.1:$port"
        echo "STOP=$folder/stop.sh"
        exit 0
    fi
    sleep 0.1
done
cat "$folder/server.log" >&2 2>/dev/null || true
echo "start_nats.sh: nats-server did not start on port $port" >&2
exit 1
