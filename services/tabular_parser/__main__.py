"""`python -m services.tabular_parser FILE [--indent]`: recognise a local Excel file without
NATS or S3 through the service's own recogniser and print the result file JSON.

The service itself runs with `faststream run services.tabular_parser.app:create_app --factory`.
"""

from __future__ import annotations

import sys

from services.runtime.local_command import service_command
from services.runtime.protocol import ServiceInfo
from services.tabular_parser.app import FILE_TYPES, SERVICE_NAME, service_version
from services.tabular_parser.recognizer import build_recognizer
from services.tabular_parser.settings import TabularParserSettings

if __name__ == "__main__":
    service = ServiceInfo(SERVICE_NAME, service_version())
    sys.exit(
        service_command(
            service,
            FILE_TYPES,
            TabularParserSettings,
            lambda settings: build_recognizer(settings, workers=1),
        )
    )
