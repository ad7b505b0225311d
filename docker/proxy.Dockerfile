# The deployment's reverse proxy: Debian's nginx with docker/nginx.conf (TLS, timeouts, body sizes, limits
# per address). BASE_IMAGE: the same Debian bookworm image Arena's is built on.
ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/*
COPY docker/nginx.conf /etc/nginx/nginx.conf
EXPOSE 8443
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
