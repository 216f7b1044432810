#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks, in a temporary data folder.
#
# Usage: scripts/start_postgres.sh [FOLDER]
#   Installs the Debian `postgresql` package when its binaries are missing (quietly; needs root),
#   runs initdb into FOLDER (default: a new folder under /tmp), starts the server listening on a
#   unix socket in FOLDER only (no TCP port, so it never clashes with another server), waits
#   until it accepts connections, and prints two lines:
#     DSN=postgresql:///agi?host=FOLDER&port=5432&user=agi
#     STOP=FOLDER/stop.sh
# Idempotent: run it again on the same FOLDER and it prints the same lines without a second server.
# As root, the server runs as the `postgres` system user (PostgreSQL refuses to run as root).
set -euo pipefail

folder="${1:-$(mktemp -d /tmp/agi-postgres.XXXXXX)}"
mkdir -p "$folder"
folder="$(cd "$folder" && pwd)"

bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "start_postgres.sh: PostgreSQL is not installed; run as root or: sudo apt-get install -y postgresql" >&2
        exit 1
    fi
    "$(dirname "${BASH_SOURCE[0]}")/apt_install.sh" postgresql  # one install at a time (test workers)
    bindir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
fi

as_owner=()
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    chown postgres "$folder"
    as_owner=(runuser -u postgres --)
fi

data="$folder/data"
if [ ! -f "$data/PG_VERSION" ]; then
    "${as_owner[@]}" "$bindir/initdb" -D "$data" -U agi --auth=trust -E UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 \
        || { cat "$folder/initdb.log" >&2; exit 1; }
fi

cat >"$folder/stop.sh" <<EOF
#!/usr/bin/env bash
# Stops the server started by start_postgres.sh in $folder and removes the folder.
${as_owner[*]} "$bindir/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
rm -rf "$folder"
EOF
chmod +x "$folder/stop.sh"

if ! "${as_owner[@]}" "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    # fsync stays on: the backend benchmark measures durable ticks
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$data" -l "$folder/server.log" -w -t 60 start \
        -o "-c listen_addresses='' -c unix_socket_directories='$folder' -c max_connections=200" >/dev/null \
        || { cat "$folder/server.log" >&2; exit 1; }
fi

for _ in $(seq 1 60); do
    if "$bindir/pg_isready" -q -h "$folder" -p 5432; then
        break
    fi
    sleep 0.5
done
"$bindir/pg_isready" -q -h "$folder" -p 5432 || { cat "$folder/server.log" >&2; exit 1; }
"$bindir/psql" -h "$folder" -U agi -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'agi'" | grep -q 1 \
    || "$bindir/createdb" -h "$folder" -U agi agi

echo "DSN=postgresql:///agi?host=$folder&port=5432&user=agi"
echo "STOP=$folder/stop.sh"
