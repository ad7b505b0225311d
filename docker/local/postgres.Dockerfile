# A stand-in for the postgres image, from Debian's PostgreSQL 15: it honours POSTGRES_USER,
# POSTGRES_PASSWORD(_FILE) and POSTGRES_DB, runs /docker-entrypoint-initdb.d/*.sh once, serves as uid 999
# and answers pg_isready, as compose.yaml expects.
ARG DEBIAN_IMAGE=arena-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN groupadd --system --gid 999 postgres \
    && useradd --system --uid 999 --gid 999 --home-dir /var/lib/postgresql --shell /bin/bash postgres \
    && apt-get update \
    && apt-get install -y --no-install-recommends postgresql-15 locales \
    && rm -rf /var/lib/apt/lists/*
COPY docker/local/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
