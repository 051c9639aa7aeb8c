#!/usr/bin/env bash
# The PostgreSQL test suite once through PgBouncer in transaction pooling mode (as production may run it), with
# named prepared statements off (DATABASE_PREPARED_STATEMENTS=false). PgBouncer gets its own configuration in a
# temporary directory, listens on 127.0.0.1:${PGBOUNCER_PORT:-6432} and forwards any database to the machine's
# PostgreSQL on 127.0.0.1:5432. Creating and dropping the per-file test databases (CREATE DATABASE ... TEMPLATE wants
# no other session on the template, and PgBouncer keeps server connections open) goes straight to PostgreSQL
# (TEST_DATABASE_ADMIN_URL); the tests themselves go through PgBouncer.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PGBOUNCER_PORT:-6432}"
DIRECT="${PGBOUNCER_UPSTREAM_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  apt-get install -y pgbouncer >/dev/null || { apt-get update >/dev/null && apt-get install -y pgbouncer >/dev/null; }
fi
BIN="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"

dir="$(mktemp -d -t tt-pgbouncer-XXXXXX)"
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir = $dir
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = postgres
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
; The app sends jit=off and statement_timeout as start-up options; PgBouncer cannot pass them on in transaction
; mode, so it ignores them (set them on the role or database instead, see docs/operations.md).
ignore_startup_parameters = options,extra_float_digits
INI
echo '"postgres" ""' >"$dir/userlist.txt"

# PgBouncer refuses to run as root.
as_owner=()
if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$dir"; as_owner=(runuser -u postgres --); fi
"${as_owner[@]}" "$BIN" -d "$dir/pgbouncer.ini"
stop() {
  if [ -f "$dir/pgbouncer.pid" ]; then kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true; fi
  sleep 0.5
  rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 1 50); do pg_isready -h 127.0.0.1 -p "$PORT" >/dev/null 2>&1 && break; sleep 0.1; done

# vitest runs on the `node` first on PATH (.ci/run puts one of its Node.js lines there), and so do its forks.
echo "pgbouncer $("$BIN" --version | head -1) on 127.0.0.1:$PORT (transaction pooling) -> 127.0.0.1:5432; Node.js $(node --version)"
TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres" TEST_DATABASE_ADMIN_URL="$DIRECT" \
  TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}" DATABASE_PREPARED_STATEMENTS=false \
  node node_modules/vitest/vitest.mjs run "$@"
