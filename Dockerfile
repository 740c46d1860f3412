# One image for the three services; compose.yaml picks the service by its command:
#   arm-core        uvicorn services.arm_core.app:create_app --factory --host 0.0.0.0 --port 8000
#                   (after `python -m services.arm_core migrate`)
#   tabular-parser  faststream run services.tabular_parser.app:create_app --factory --host 0.0.0.0 --port 8001
#   scan-gateway    faststream run services.scan_gateway.app:create_app --factory --host 0.0.0.0 --port 8002
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Tesseract with Russian and English for the scan-gateway's local recogniser (raster pages).
RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-rus tesseract-ocr-eng \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# The project: the import root services/ and the source contracts/ the schema registry reads.
COPY pyproject.toml README.md ./
COPY services ./services
COPY contracts ./contracts
RUN pip install .

# The registry finds contracts/ beside services/ (the working directory comes first on the
# import path of `faststream run`, uvicorn and `python -m`); say it explicitly all the same.
ENV ARM_CONTRACTS_DIR=/app/contracts

RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home arm-ka
USER arm-ka

EXPOSE 8000 8001 8002

HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8001/healthcheck', timeout=4)"

CMD ["faststream", "run", "services.tabular_parser.app:create_app", "--factory", "--host", "0.0.0.0", "--port", "8001"]
