#!/bin/sh
# The `secrets` service of compose.yaml: runs once, as root, before every other service. It makes what the
# deployment must not ship with, each secret a file, at the first start (kept after), in the master volume
# `secrets`, which no other service mounts; then, at every start, it copies into each service's own volume
# (secrets-<service>, mounted read-only at /run/arena-secrets) only the files that service reads, owned by
# that service's user. Nothing here has a default value.
#
#   master (/run/arena-secrets)        what                                              copied to
#   db/<role>                          the password of each database role (postgres-init.sh makes the roles:
#                                        `arena` owns the schema, one role per service)  postgres, its service
#   broker-password                    Redis's password                                  redis, ladder, worker, arena
#   viewer-token                       lists and watches the referee's matches           referee, web, arena
#   tls/cert.pem, tls/key.pem          the certificate (the operator's, from ARENA_TLS_DIR, or a stand-in made
#                                        here with a warning)                            proxy, ladder
#   postgres/superuser-password        PostgreSQL's superuser, for no service            postgres
#
# It also gives the shared volumes to their groups (results, bots, uploads; setgid folders) and the admin
# token's folder to the referee alone. The admin token itself is made by the referee at its start.
set -eu
umask 077
S=/run/arena-secrets      # the master copy: this service only
V=/run/arena-volumes      # each service's own volume: $V/<service>
TLS_NAMES=${ARENA_TLS_NAMES:-localhost,127.0.0.1}
ROLES="arena arena_referee arena_ladder arena_web arena_preflights arena_worker"

group_id() { getent group "$1" | cut -d: -f3; }
secret() {  # secret PATH: a new random value, unless the file is there already
    [ -s "$1" ] || openssl rand -hex 32 > "$1"
}
own() {  # own OWNER:GROUP MODE PATH...
    spec=$1 mode=$2; shift 2
    chown "$spec" "$@" && chmod "$mode" "$@"
}
place() {  # place SERVICE OWNER:GROUP MASTER-FILE NAME: a copy in SERVICE's volume that only OWNER:GROUP reads
    mkdir -p "$(dirname "$V/$1/$4")"
    chmod 0755 "$V/$1" "$(dirname "$V/$1/$4")"
    cp "$S/$3" "$V/$1/$4.new"
    own "$2" 0440 "$V/$1/$4.new"
    mv -f "$V/$1/$4.new" "$V/$1/$4"  # (replaced whole: a service starting meanwhile reads the old or the new)
    echo "$V/$1/$4" >> /tmp/placed
}
prune() {  # prune SERVICE...: what their volumes hold and was not placed now goes (a secret no longer theirs)
    for service in "$@"; do
        find "$V/$service" -mindepth 1 -type f | grep -vxF -f /tmp/placed | while read -r path; do rm -f "$path"; done
        find "$V/$service" -mindepth 1 -type d -empty -delete
    done
}

mkdir -p "$S/tls" "$S/postgres" "$S/db"
[ -s "$S/db/arena" ] || [ ! -s "$S/db-password" ] || cp "$S/db-password" "$S/db/arena"  # (a deployment before roles)
for role in $ROLES; do secret "$S/db/$role"; done
secret "$S/broker-password"
secret "$S/viewer-token"
secret "$S/postgres/superuser-password"
rm -rf "$S/redis" "$S/db-password" "$S/postgres/arena-password"  # (the layout before per-service volumes)
printf 'bind 0.0.0.0\nport 6379\nrequirepass %s\nsave ""\nappendonly no\n' "$(cat "$S/broker-password")" \
    > "$S/redis.conf"

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
own 0:0 0700 "$S"

# each service's volume: only what it reads (docs/security.md, "The deployment: safe as shipped")
: > /tmp/placed
place postgres 999:999 postgres/superuser-password postgres/superuser-password
for role in $ROLES; do place postgres 999:999 "db/$role" "postgres/roles/$role"; done
place redis 999:999 redis.conf redis/redis.conf
place redis 999:999 broker-password redis/password
place referee 1001:1001 db/arena_referee db-password
place referee 1001:1001 viewer-token viewer-token
place ladder 1002:1002 db/arena_ladder db-password
place ladder 1002:1002 broker-password broker-password
place ladder 1002:1002 tls/cert.pem tls/cert.pem
place ladder 1002:1002 tls/key.pem tls/key.pem
place web 1003:1003 db/arena_web db-password
place web 1003:1003 viewer-token viewer-token
place preflights 1005:1005 db/arena_preflights db-password
place worker 1004:1004 db/arena_worker db-password
place worker 1004:1004 broker-password broker-password
place proxy 0:0 tls/cert.pem tls/cert.pem
place proxy 0:0 tls/key.pem tls/key.pem
# the schema's owner: the `migrate` service (uid 1000) and the command line (the referee's user), by group
place arena 0:"$(group_id arena-db)" db/arena db-password
place arena 0:"$(group_id arena-db)" broker-password broker-password
place arena 0:"$(group_id arena-db)" viewer-token viewer-token
chmod 0444 "$V/proxy/tls/cert.pem" "$V/ladder/tls/cert.pem"  # (public)
prune postgres redis referee ladder web preflights worker proxy arena

# the shared volumes: each writer in the volume's group (the image's entrypoint sets umask 002)
own 0:"$(group_id arena-results)" 2775 /data/results
own 0:"$(group_id arena-bots)" 2775 /data/bots
own 0:"$(group_id arena-uploads)" 2770 /uploads
own "$(id -u arena-referee)":0 0700 /run/arena-admin
echo "secrets: ready"
