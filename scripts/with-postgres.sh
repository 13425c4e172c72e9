#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL cluster:
#
#   scripts/with-postgres.sh CMD [ARGS...]
#
# Starts a fresh cluster in a folder under /tmp (trust auth, 127.0.0.1 on a free port, fsync off),
# creates the database "arena", exports DATABASE_URL=postgres://postgres@127.0.0.1:PORT/arena (and
# PGHOST, PGPORT, PGUSER, PGDATABASE), runs CMD, then stops the cluster and deletes the folder (also
# when CMD fails or is interrupted) and exits with CMD's code. PG_VERSION picks the major version
# (default 15, else the newest installed). As root, it installs Debian's PostgreSQL server when
# missing (without its default cluster) and runs the server as the user postgres, created if needed.
set -euo pipefail

[ "$#" -gt 0 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

PG_VERSION="${PG_VERSION:-15}"
log() { printf 'with-postgres: %s\n' "$*" >&2; }
is_root() { [ "$(id -u)" = 0 ]; }

find_pg_bin() {
    local dir
    for dir in "/usr/lib/postgresql/$PG_VERSION/bin" "$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"; do
        if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
    done
    return 1
}

PG_BIN="$(find_pg_bin || true)"
if [ -z "$PG_BIN" ]; then
    is_root || { log "no PostgreSQL server and not root: install postgresql-$PG_VERSION"; exit 1; }
    log "installing PostgreSQL server (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    # the package must not create and start a "main" cluster on port 5432
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/zz-no-main-cluster.conf
    apt-get update -q >&2
    apt-get install -y -q "postgresql-$PG_VERSION" >&2 || apt-get install -y -q postgresql >&2
    PG_BIN="$(find_pg_bin)" || { log "PostgreSQL server binaries still missing"; exit 1; }
fi

RUN_AS=()
if is_root; then
    # PostgreSQL refuses to run as root
    id -u postgres >/dev/null 2>&1 || useradd --system --user-group --no-create-home \
        --home-dir /var/lib/postgresql --shell /bin/bash postgres
    RUN_AS=(runuser -u postgres --)
fi

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
PGROOT="$(mktemp -d /tmp/arena-pg.XXXXXX)"
DATA="$PGROOT/data"
if is_root; then chown postgres: "$PGROOT"; fi
chmod 700 "$PGROOT"

# a PostgreSQL binary as the server's user, from a folder that user can read
pg() { (cd "$PGROOT" && "${RUN_AS[@]}" "$PG_BIN/$1" "${@:2}"); }

STARTED=0
cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    if [ "$STARTED" = 1 ]; then
        pg pg_ctl -D "$DATA" -m fast -w -t 30 stop >/dev/null 2>&1 \
            || pg pg_ctl -D "$DATA" -m immediate -w -t 10 stop >/dev/null 2>&1 \
            || log "could not stop the cluster in $DATA"
    fi
    rm -rf "$PGROOT"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

pg initdb -D "$DATA" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >"$PGROOT/initdb.log" 2>&1 \
    || { log "initdb failed:"; cat "$PGROOT/initdb.log" >&2; exit 1; }
STARTED=1
OPTIONS="-p $PORT -k $PGROOT -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
OPTIONS="$OPTIONS -c full_page_writes=off -c max_connections=200"
pg pg_ctl -D "$DATA" -l "$PGROOT/postgres.log" -w -t 60 start -o "$OPTIONS" >/dev/null \
    || { log "PostgreSQL failed to start on port $PORT:"; cat "$PGROOT/postgres.log" >&2; exit 1; }
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres arena

export DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/arena"
export PGHOST=127.0.0.1 PGPORT="$PORT" PGUSER=postgres PGDATABASE=arena
log "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT ($PGROOT)"

# CMD in the background (stdin kept), so that a signal to this script reaches CMD at once and the
# cluster is stopped only once CMD has exited
"$@" <&0 &
CHILD=$!
trap 'kill -INT "$CHILD" 2>/dev/null || true' INT
trap 'kill -TERM "$CHILD" 2>/dev/null || true' TERM
trap 'kill -HUP "$CHILD" 2>/dev/null || true' HUP
while :; do
    set +e
    wait "$CHILD"
    CMD_RC=$?
    set -e
    kill -0 "$CHILD" 2>/dev/null || break
done
exit "$CMD_RC"
