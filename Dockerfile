# Cardroom: the bot in a slim Python image, as a non-root user, SQLite on a volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_URL=sqlite+aiosqlite:////data/cardroom.db

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY bot ./bot
COPY migrations ./migrations
RUN pip install ".[postgres]" \
    && useradd --create-home --uid 10001 cardroom \
    && mkdir /data && chown cardroom:cardroom /data

USER cardroom
VOLUME ["/data"]

# The bot applies the migrations itself before it starts (alembic upgrade head).
CMD ["python", "-m", "bot"]
