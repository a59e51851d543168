#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests of the shared store (docs/fleet.md).
#
#   eval "$(bash scripts/pg.sh start)"   # prints the exports: PAWL_TEST_PG_URL, PAWL_TEST_PG_DIR
#   bash scripts/pg.sh stop "$PAWL_TEST_PG_DIR"
#
# Installs Debian's postgresql once when it is missing (like install-browser.sh for chromium), then
# runs initdb in a new temp directory and starts the server on a free local port (and a socket in
# that directory), trusting local connections: nothing outside the temp directory is touched. As
# root the server runs as the `postgres` user (PostgreSQL refuses to run as root).
set -euo pipefail

pg_bin() {
    local d
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && { echo "$d"; return 0; }
    done
    return 1
}

install_pg() {
    pg_bin >/dev/null && return 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "pg.sh: PostgreSQL is not installed; install Debian's postgresql" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    install_pg
    local bin dir port
    bin="$(pg_bin)"
    dir="$(mktemp -d /tmp/pawl-pg.XXXXXX)"
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U pawl --auth=trust --no-sync -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    port="$(free_port)"
    # Enough connections for the fleet test (one per run process) and the bench.
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=400 -c shared_buffers=64MB" \
        start >&2 || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U pawl pawl >&2
    echo "export PAWL_TEST_PG_URL='postgres://pawl@127.0.0.1:$port/pawl'"
    echo "export PAWL_TEST_PG_DIR='$dir'"
}

stop() {
    local dir="${1:?pg.sh stop DIR}" bin
    bin="$(pg_bin)"
    [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >&2 || true
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    *) echo "usage: pg.sh start | stop DIR" >&2; exit 2 ;;
esac
