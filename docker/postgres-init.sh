#!/bin/sh
# Run once by PostgreSQL's entrypoint when it makes the cluster (/docker-entrypoint-initdb.d/): the role
# Arena's services log in as, `arena`, owns the database `arena` and is not a superuser; its password is the
# file the `secrets` service made. The superuser's password (POSTGRES_PASSWORD_FILE) is for no service.
set -eu
password=$(cat /run/arena-secrets/postgres/arena-password)
psql -v ON_ERROR_STOP=1 -q --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-arena}" <<SQL
CREATE ROLE arena LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '$password';
ALTER DATABASE "${POSTGRES_DB:-arena}" OWNER TO arena;
ALTER SCHEMA public OWNER TO arena;
SQL
