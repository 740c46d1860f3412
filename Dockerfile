# One image for the three services; compose.yaml picks the service by its command:
#   arm-core        uvicorn services.arm_core.app:create_app --factory --host 0.0.0.0 --port 8000
#                   (after `python -m services.arm_core migrate`)
#   tabular-parser  faststream run services.tabular_parser.app:create_app --factory --host 0.0.0.0 --port 8001
#   scan-gateway    faststream run services.scan_gateway.app:create_app --factory --host 0.0.0.0 --port 8002
# Two stages: `build` compiles the project's wheel (its C kernels, services/excel/_walk.c and
# _cells.c, need gcc and the Python headers); the image installs that wheel and has no compiler.
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# gcc and the C library's headers; the interpreter's own headers when it has none (the official
# image has them under /usr/local/include; Debian's python3 needs python3-dev).
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && if [ ! -e "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; then \
         apt-get install -y --no-install-recommends python3-dev; \
       fi \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY services ./services
# The extensions are optional in setup.py (a laptop without a compiler still installs);
# here a wheel without either fails the build.
RUN --mount=type=secret,id=build_ca \
    if [ -s /run/secrets/build_ca ]; then export PIP_CERT=/run/secrets/build_ca; fi; \
    pip wheel --no-deps --wheel-dir /wheels . \
    && python3 -m zipfile -l /wheels/*.whl | grep -q 'services/excel/_walk\..*\.so' \
    && python3 -m zipfile -l /wheels/*.whl | grep -q 'services/excel/_cells\..*\.so'

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

# The project: the import root services/ and the source contracts/ the schema registry reads,
# and the wheel the build stage made, installed with `--no-deps` (everything it needs is already
# installed from the lock above). The working directory comes first on the import path, so the
# compiled kernels are put beside their sources as well (`python -I` imports the installed
# copies, proving they load).
COPY services ./services
COPY contracts ./contracts
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-deps /wheels/*.whl \
    && python -I -c "import shutil, services.excel._walk as w, services.excel._cells as c; \
                     shutil.copy(w.__file__, 'services/excel/'); shutil.copy(c.__file__, 'services/excel/')"

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
