# Cardroom: the bot in a slim Python image, installed as a package, run as a non-root user.
#
#   docker build -t cardroom .
#   docker run -d --name cardroom --env-file .env -v cardroom-data:/data cardroom
#
# SQLite (the default here, /data/cardroom.db) needs the named volume above, or every new
# container starts on an empty database. With DATABASE_URL on PostgreSQL no volume is needed
# (this image declares none: an anonymous one per container would only pile up).
#
# In webhook mode (WEBHOOK_URL set) the bot listens on all the container's interfaces, port
# 8443 (WEBHOOK_PORT), for the webhook and the Mini App: publish it to the TLS proxy only.
# /healthz, /readyz and /metrics listen apart, on HEALTH_HOST:HEALTH_PORT (127.0.0.1:9464):
# the HEALTHCHECK below reaches them from inside; set HEALTH_HOST=0.0.0.0 only on a private
# network, for Prometheus.
#
# Size: about 410 MB unpacked (estimated, not built here: ~130 MB for the base, ~280 MB for the
# dependencies as installed — numpy, matplotlib, fonttools, pillow and babel the most of it).

# The base, by the digest of python:3.11.14-slim-bookworm's multi-architecture index, so a
# rebuild gets the same Python and Debian. To move to a newer one, take its digest with
#   docker buildx imagetools inspect python:3.11-slim-bookworm    (the "Digest:" line)
# and replace both the tag and the digest here.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d

# -- The wheel, built from the source in a stage of its own (the source stays behind).
FROM ${PYTHON_IMAGE} AS wheel
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY migrations ./migrations
RUN pip wheel --no-deps --wheel-dir /wheels .

# -- The image.
FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    DATABASE_URL=sqlite+aiosqlite:////data/cardroom.db \
    WEBHOOK_LISTEN=0.0.0.0

# The dependencies first, from requirements.lock alone: every one, transitive ones included,
# pinned (regenerated as its header says), so a rebuild gets the same versions, and a change
# of the bot's code or version reuses this layer. --no-deps and pip check: a package the lock
# lacks fails the build rather than arrive unpinned.
COPY requirements.lock /tmp/requirements.lock
RUN pip install --no-deps --requirement /tmp/requirements.lock \
    && pip check \
    && rm /tmp/requirements.lock \
    && useradd --create-home --uid 10001 cardroom \
    && mkdir /data && chown cardroom:cardroom /data

# Then the bot itself: one copy, the installed package (its pages, scripts, catalogs and
# migrations are package data), nothing of the source; the wheel is mounted for the install
# only (BuildKit, Docker's builder since 23.0), so no layer keeps it. pip check: the locked
# versions are ones the bot's own requirements admit.
RUN --mount=type=bind,from=wheel,source=/wheels,target=/tmp/wheels \
    pip install --no-deps /tmp/wheels/*.whl \
    && pip check

USER cardroom
# The working folder holds no code: `python -m bot` imports the installed package.
WORKDIR /data
# The webhook and the Mini App (public, behind the TLS proxy); health and metrics (private).
EXPOSE 8443 9464

# Healthy while /healthz answers 200, in polling and webhook mode alike (it listens on
# HEALTH_PORT in both); no curl in a slim image, so Python's urllib asks. HEALTH_PORT=0 turns
# the endpoint off: then run the container with --no-healthcheck.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; host = os.environ.get('HEALTH_HOST') or '127.0.0.1'; host = {'0.0.0.0': '127.0.0.1', '::': '::1'}.get(host, host); port = os.environ.get('HEALTH_PORT') or '9464'; url = f'http://[{host}]:{port}/healthz' if ':' in host else f'http://{host}:{port}/healthz'; sys.exit('HEALTH_PORT=0: no /healthz to ask (run with --no-healthcheck)') if port == '0' else urllib.request.urlopen(url, timeout=4)"]

# Exec form: python is PID 1 and receives SIGTERM itself (`docker stop`); the bot migrates the
# database before it starts (alembic upgrade head).
CMD ["python", "-m", "bot"]
