#!/bin/sh
# Initialise the cluster once (UTF-8, as the ladder needs), as the postgres image does: the superuser
# (POSTGRES_USER, default postgres) with POSTGRES_PASSWORD or the file POSTGRES_PASSWORD_FILE names, the
# database POSTGRES_DB, then every /docker-entrypoint-initdb.d/*.sh; then serve.
set -eu
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE"); fi
[ -n "${POSTGRES_PASSWORD:-}" ] || { echo "postgres: no POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2; exit 1; }
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    su postgres -c "initdb -D '$PGDATA' --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 -U '$user'" >/dev/null
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
    su postgres -c "pg_ctl -D '$PGDATA' -o '-c listen_addresses=' -w start" >/dev/null
    su postgres -c "psql -v ON_ERROR_STOP=1 -q -U '$user' -d postgres" <<SQL
ALTER ROLE "$user" PASSWORD '$POSTGRES_PASSWORD';
SQL
    if [ "$database" != postgres ]; then su postgres -c "createdb -U '$user' -O '$user' '$database'"; fi
    for script in /docker-entrypoint-initdb.d/*.sh; do
        [ -f "$script" ] || continue
        su postgres -c "POSTGRES_USER='$user' POSTGRES_DB='$database' sh '$script'"
    done
    su postgres -c "pg_ctl -D '$PGDATA' -m fast -w stop" >/dev/null
fi
exec su postgres -c "exec postgres -D '$PGDATA'"
