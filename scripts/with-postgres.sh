#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL cluster.
#
#   scripts/with-postgres.sh CMD [ARGS...]
#
# Starts a fresh cluster in a temp folder under /tmp (trust auth, listening on 127.0.0.1 on a free
# port and on a Unix socket in that folder, fsync off), creates the database "arena", exports
#   DATABASE_URL=postgres://postgres@127.0.0.1:PORT/arena   (also PGHOST, PGPORT, PGUSER)
# runs CMD, stops the cluster and deletes the folder (even when CMD fails or is interrupted) and
# exits with CMD's exit code.
#
# Environment knobs:
#   PG_VERSION   major version to use (default 15; falls back to the newest one installed)
#   PG_PORT      port to listen on (default: a free one)
#   PG_DBNAME    database to create (default arena)
#   PG_KEEP=1    keep the data folder after stopping (its path is printed)
#
# Machine setup it does by itself when it runs as root:
#   * no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: installs Debian's postgresql-$PG_VERSION
#     (bookworm has 15; falls back to the distribution's default "postgresql"), without letting the
#     package create and start its default "main" cluster;
#   * no "postgres" system user: creates it with useradd (PostgreSQL refuses to run as root, so the
#     server runs as that user through runuser).
# When not root, the server simply runs as the current user.
set -euo pipefail

if [ "$#" -eq 0 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi

PG_VERSION="${PG_VERSION:-15}"
PG_DBNAME="${PG_DBNAME:-arena}"
log() { printf 'with-postgres: %s\n' "$*" >&2; }
is_root() { [ "$(id -u)" = 0 ]; }

find_pg_bin() {
    if [ -x "/usr/lib/postgresql/$PG_VERSION/bin/pg_ctl" ]; then
        echo "/usr/lib/postgresql/$PG_VERSION/bin"
        return 0
    fi
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ]; then
        echo "$dir"
        return 0
    fi
    return 1
}

install_postgres() {
    if ! is_root; then
        log "PostgreSQL server binaries not found and not root: install postgresql-$PG_VERSION"
        exit 1
    fi
    log "installing PostgreSQL server (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    # Do not let the package create and start a "main" cluster on port 5432.
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/zz-no-main-cluster.conf
    apt-get update -q >&2
    apt-get install -y -q "postgresql-$PG_VERSION" >&2 || apt-get install -y -q postgresql >&2
}

PG_BIN="$(find_pg_bin || true)"
if [ -z "$PG_BIN" ]; then
    install_postgres
    PG_BIN="$(find_pg_bin || true)"
    [ -n "$PG_BIN" ] || { log "PostgreSQL server binaries still missing"; exit 1; }
fi

RUN_AS=()
if is_root; then
    if ! id -u postgres >/dev/null 2>&1; then
        log "creating the system user postgres"
        useradd --system --user-group --home-dir /var/lib/postgresql --no-create-home \
            --shell /bin/bash postgres
    fi
    RUN_AS=(runuser -u postgres --)
fi

if [ -n "${PG_PORT:-}" ]; then
    PORT="$PG_PORT"
else
    PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
        || echo $(( 20000 + RANDOM % 20000 )))"
fi

PGROOT="$(mktemp -d /tmp/arena-pg.XXXXXX)"
DATA="$PGROOT/data"
PGLOG="$PGROOT/postgres.log"
if is_root; then chown postgres: "$PGROOT"; fi
chmod 700 "$PGROOT"

# Run a PostgreSQL binary as the server's user, from a folder that user can read.
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
    if [ "${PG_KEEP:-0}" = 1 ]; then
        log "kept $PGROOT"
    else
        rm -rf "$PGROOT"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if ! pg initdb -D "$DATA" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >"$PGROOT/initdb.log" 2>&1; then
    log "initdb failed:"; cat "$PGROOT/initdb.log" >&2
    exit 1
fi

STARTED=1
if ! pg pg_ctl -D "$DATA" -l "$PGLOG" -w -t 60 start \
    -o "-p $PORT -k $PGROOT -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    >/dev/null; then
    log "PostgreSQL failed to start on port $PORT:"; cat "$PGLOG" >&2 || true
    exit 1
fi

if ! "$PG_BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$PG_DBNAME"; then
    log "createdb $PG_DBNAME failed"; cat "$PGLOG" >&2 || true
    exit 1
fi

export DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/$PG_DBNAME"
export PGHOST=127.0.0.1 PGPORT="$PORT" PGUSER=postgres PGDATABASE="$PG_DBNAME"
log "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT ($PGROOT)"

# Run CMD in the background (stdin kept) so that a signal sent to this script is forwarded to
# CMD at once, and the cluster is stopped once CMD has exited.
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
