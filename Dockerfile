# Cardroom: the bot in a slim Python image, as a non-root user, SQLite on a volume.
# In webhook mode (WEBHOOK_URL set) it listens on all the container's interfaces, port 8443
# (WEBHOOK_PORT): publish that port to the TLS proxy only. Posts without the webhook secret
# are refused either way.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_URL=sqlite+aiosqlite:////data/cardroom.db \
    WEBHOOK_LISTEN=0.0.0.0

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY bot ./bot
COPY migrations ./migrations
RUN pip install ".[postgres]" \
    && useradd --create-home --uid 10001 cardroom \
    && mkdir /data && chown cardroom:cardroom /data

USER cardroom
VOLUME ["/data"]
# The webhook (with /healthz, /readyz, /metrics); in polling mode those three on HEALTH_PORT.
EXPOSE 8443 9464

# The bot applies the migrations itself before it starts (alembic upgrade head).
CMD ["python", "-m", "bot"]
