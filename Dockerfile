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
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# The run-time dependencies exactly as locked (`make lock`; hashes checked), so two builds carry
# the same packages; no extra: the image has no test servers, sample writers or linters.
# Behind a proxy that re-signs TLS with its own CA (a bank's, or this build host's), pip is given
# that CA bundle as a BuildKit secret, mounted for this one step and never stored in a layer:
#   DOCKER_BUILDKIT=1 docker build --secret id=build_ca,src=/path/to/ca-bundle.crt .
# Without the secret pip uses its own bundle (docs/operations.md, «Building behind a proxy»).
COPY requirements.lock ./
RUN --mount=type=secret,id=build_ca \
    if [ -s /run/secrets/build_ca ]; then export PIP_CERT=/run/secrets/build_ca; fi; \
    pip install --require-hashes --no-deps -r requirements.lock

# The project: the import root services/ and the source contracts/ the schema registry reads.
# `--no-deps`: everything it needs is already installed from the lock above.
COPY pyproject.toml README.md ./
COPY services ./services
COPY contracts ./contracts
RUN --mount=type=secret,id=build_ca \
    if [ -s /run/secrets/build_ca ]; then export PIP_CERT=/run/secrets/build_ca; fi; \
    pip install --no-deps .

# The registry finds contracts/ beside services/ (the working directory comes first on the
# import path of `faststream run`, uvicorn and `python -m`); say it explicitly all the same.
ENV ARM_CONTRACTS_DIR=/app/contracts

RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home arm-ka
USER arm-ka

EXPOSE 8000 8001 8002

# The probe asks the port of the service the container runs: ARM_KA_HEALTH_PORT, the default
# CMD's (tabular-parser, 8001) unless a container running another command sets it (compose
# gives each service its own healthcheck and disables it for the one-shot migration).
ENV ARM_KA_HEALTH_PORT=8001
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthcheck' % os.environ['ARM_KA_HEALTH_PORT'], timeout=4)"

CMD ["faststream", "run", "services.tabular_parser.app:create_app", "--factory", "--host", "0.0.0.0", "--port", "8001"]
