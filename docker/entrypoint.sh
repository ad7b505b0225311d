#!/bin/sh
# The image's entrypoint: `arena ARGS...`, with files made group-writable (umask 002), so that the services
# sharing a volume through a group (results, bots, uploads: docker/secrets.sh sets them up) can each write.
umask 002
exec arena "$@"
