#!/bin/sh
# The `secrets` service of compose.yaml: runs once, as root, before every other service, and makes what the
# deployment must not ship with: each secret a file, made at the first start (kept after), readable only by
# the services whose group opens it. Nothing here has a default value.
#
#   /run/arena-secrets/db-password       the database role `arena` (not a superuser)     group arena-db
#   /run/arena-secrets/broker-password   Redis's password                                 group arena-broker
#   /run/arena-secrets/viewer-token      lists and watches the referee's matches (web)    group arena-viewer
#   /run/arena-secrets/tls/cert.pem      the public certificate (the operator's, from ARENA_TLS_DIR, or a
#   /run/arena-secrets/tls/key.pem         stand-in made here with a warning)                group arena-tls
#   /run/arena-secrets/postgres/         the superuser's and arena's passwords, for PostgreSQL only (uid 999)
#   /run/arena-secrets/redis/            redis.conf (requirepass) and the password, for Redis only (uid 999)
#
# It also gives the shared volumes to their groups (results, bots, uploads; setgid folders) and the admin
# token's folder to the referee alone. The admin token itself is made by the referee at its start.
set -eu
umask 077
S=/run/arena-secrets
TLS_NAMES=${ARENA_TLS_NAMES:-localhost,127.0.0.1}

group_id() { getent group "$1" | cut -d: -f3; }
secret() {  # secret PATH: a new random value, unless the file is there already
    [ -s "$1" ] || openssl rand -hex 32 > "$1"
}
own() {  # own OWNER:GROUP MODE PATH...
    spec=$1 mode=$2; shift 2
    chown "$spec" "$@" && chmod "$mode" "$@"
}

mkdir -p "$S/tls" "$S/postgres" "$S/redis"
secret "$S/db-password"
secret "$S/broker-password"
secret "$S/viewer-token"
secret "$S/postgres/superuser-password"
cp "$S/db-password" "$S/postgres/arena-password"
cp "$S/broker-password" "$S/redis/password"
printf 'bind 0.0.0.0\nport 6379\nrequirepass %s\nsave ""\nappendonly no\n' "$(cat "$S/broker-password")" \
    > "$S/redis/redis.conf"

if [ -s /tls-operator/cert.pem ] && [ -s /tls-operator/key.pem ]; then
    cp /tls-operator/cert.pem "$S/tls/cert.pem"
    cp /tls-operator/key.pem "$S/tls/key.pem"
    rm -f "$S/tls/stand-in"
    echo "secrets: TLS with the operator's certificate (ARENA_TLS_DIR)"
else
    names=$(echo "$TLS_NAMES" | awk -F, '{ for (i = 1; i <= NF; i++)
        printf "%s%s:%s", (i > 1 ? "," : ""), ($i ~ /^[0-9.:]+$/ ? "IP" : "DNS"), $i }')
    if [ ! -f "$S/tls/stand-in" ] || [ "$(cat "$S/tls/stand-in")" != "$names" ]; then
        openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=${TLS_NAMES%%,*}" \
            -addext "subjectAltName=$names" -keyout "$S/tls/key.pem" -out "$S/tls/cert.pem" 2>/dev/null
        echo "$names" > "$S/tls/stand-in"
    fi
    echo "secrets: WARNING: no certificate in ARENA_TLS_DIR (cert.pem and key.pem): serving a self-signed stand-in" \
         "for $names, which browsers and bots will not trust. Put your certificate there and run up again."
fi

own 0:0 0755 "$S" "$S/tls"
own 0:"$(group_id arena-db)" 0440 "$S/db-password"
own 0:"$(group_id arena-broker)" 0440 "$S/broker-password"
own 0:"$(group_id arena-viewer)" 0440 "$S/viewer-token"
own 0:0 0444 "$S/tls/cert.pem" "$S/tls/stand-in" 2>/dev/null || own 0:0 0444 "$S/tls/cert.pem"
own 0:"$(group_id arena-tls)" 0440 "$S/tls/key.pem"
own 999:999 0700 "$S/postgres" "$S/redis"
own 999:999 0400 "$S/postgres/superuser-password" "$S/postgres/arena-password" "$S/redis/password" \
    "$S/redis/redis.conf"

# the shared volumes: each writer in the volume's group (the image's entrypoint sets umask 002)
own 0:"$(group_id arena-results)" 2775 /data/results
own 0:"$(group_id arena-bots)" 2775 /data/bots
own 0:"$(group_id arena-uploads)" 2770 /uploads
own "$(id -u arena-referee)":0 0700 /run/arena-admin
echo "secrets: ready"
