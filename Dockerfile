# cardroom API server: gunicorn on :8000 (behind the reverse proxy: docs/operations.md),
# /metrics on :9464 (for Prometheus; never publish it); REDIS_URL selects the Redis.
# It serves cardroom's own games. For more, derive an image that pip installs each game
# package (docs/writing-a-game.md, "A Docker image with your game"; docs/operations.md).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md image-constraints.txt ./
COPY server ./server
# image-constraints.txt pins every dependency (scripts/lock-image-deps regenerates it).
RUN pip install --no-cache-dir --constraint image-constraints.txt . \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin cardroom

USER 10001
ENV CARDROOM_BIND=0.0.0.0:8000 \
    CARDROOM_METRICS_BIND=0.0.0.0:9464 \
    REDIS_URL=redis://redis:6379/0
EXPOSE 8000 9464
# The port comes from CARDROOM_BIND, as gunicorn's does.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["cardroom", "healthcheck"]
CMD ["python", "-m", "gunicorn", "--config", "python:cardroom.serve.gunicorn_conf"]
