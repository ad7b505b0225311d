# A Python 3.11 base from Debian's own packages, for machines that reach no image registry:
# FROM the image `debootstrap --variant=minbase bookworm` made (docker/test.sh imports it).
ARG DEBIAN_IMAGE=arena-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-pip ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && ln -s /usr/bin/python3 /usr/local/bin/python
# pip checks TLS against the system's CAs (where the machine's own CAs were added to the image)
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt
