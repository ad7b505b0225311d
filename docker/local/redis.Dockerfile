# A stand-in for the redis image, from Debian's Redis 7: runs as uid 999 (as the image's server does), takes
# the command compose.yaml gives it (`redis-server CONFIG`) and answers redis-cli.
ARG DEBIAN_IMAGE=arena-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN groupadd --system --gid 999 redis && useradd --system --uid 999 --gid 999 --home-dir /var/lib/redis redis \
    && apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/*
USER redis
WORKDIR /var/lib/redis
EXPOSE 6379
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
