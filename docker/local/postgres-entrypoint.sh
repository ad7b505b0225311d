#!/bin/sh
# Initialise the cluster once (UTF-8, as the ladder needs), make the user and database, then serve.
set -eu
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    su postgres -c "initdb -D '$PGDATA' --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 -U postgres" >/dev/null
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
    su postgres -c "pg_ctl -D '$PGDATA' -o '-c listen_addresses=' -w start" >/dev/null
    su postgres -c "psql -v ON_ERROR_STOP=1 -q" <<SQL
CREATE ROLE "$user" LOGIN SUPERUSER PASSWORD '${POSTGRES_PASSWORD:-postgres}';
SQL
    if [ "$database" != postgres ]; then su postgres -c "createdb -O '$user' '$database'"; fi
    su postgres -c "pg_ctl -D '$PGDATA' -m fast -w stop" >/dev/null
fi
exec su postgres -c "exec postgres -D '$PGDATA'"
