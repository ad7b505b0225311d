#!/bin/sh
# Run once by PostgreSQL's entrypoint when it makes the cluster (/docker-entrypoint-initdb.d/), and safe to run
# again (a deployment made before these roles: `docker compose exec -T postgres sh
# /docker-entrypoint-initdb.d/arena.sh`). The database's roles, none a superuser, each with the password the
# `secrets` service made for it (/run/arena-secrets/postgres/roles/<role>):
#
#   arena              owns the database and its schema: the `migrate` service brings the schema to the newest
#                      revision with it, and the operator's command line (`docker compose run --rm arena`) uses it
#   arena_referee, arena_ladder, arena_web, arena_preflights, arena_worker
#                      one per service: they may connect and see the schema, and nothing else here; the `migrate`
#                      service (docker/migrate.py) gives each the rights on the tables its service needs, table by
#                      table, at every start. They cannot create, alter, drop or truncate a table (they own none
#                      and may create nothing in the schema), nor make roles or databases
#
# The superuser's password (POSTGRES_PASSWORD_FILE) is for no service.
set -eu
roles=/run/arena-secrets/postgres/roles
database=${POSTGRES_DB:-arena}
services="arena_referee, arena_ladder, arena_web, arena_preflights, arena_worker"
sql() { psql -v ON_ERROR_STOP=1 -q --username "${POSTGRES_USER:-postgres}" --dbname "$database"; }

for role in arena arena_referee arena_ladder arena_web arena_preflights arena_worker; do
    password=$(cat "$roles/$role")
    sql <<SQL
DO \$\$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$role') THEN CREATE ROLE $role; END IF;
END \$\$;
ALTER ROLE $role LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD '$password';
SQL
done
sql <<SQL
ALTER DATABASE "$database" OWNER TO arena;
ALTER SCHEMA public OWNER TO arena;
REVOKE ALL ON DATABASE "$database" FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT CONNECT ON DATABASE "$database" TO $services;
GRANT USAGE ON SCHEMA public TO $services;
SQL
