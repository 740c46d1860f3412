"""`python -m services.scan_gateway FILE [--indent]`: recognise a local PDF / PNG / JPG
without NATS or S3 through the service's local recogniser and print the result file JSON.

No raw archive is written (a local parse writes nothing anywhere). The service itself runs with
`faststream run services.scan_gateway.app:create_app --factory`.
"""

from __future__ import annotations

import sys

from services.runtime.local_command import service_command
from services.runtime.protocol import ServiceInfo
from services.runtime.settings import ScanSettings
from services.scan_gateway.app import FILE_TYPES, SERVICE_NAME, service_version
from services.scan_gateway.recognizer import build_recognizer
from services.scan_gateway.settings import ScanGatewaySettings

if __name__ == "__main__":
    service = ServiceInfo(SERVICE_NAME, service_version())
    sys.exit(
        service_command(
            service,
            FILE_TYPES,
            ScanGatewaySettings,
            # The local recogniser even when SCAN_URL is set: a local parse talks to no server.
            lambda settings: build_recognizer(
                settings.model_copy(update={"scan": ScanSettings()}), workers=1
            ),
        )
    )
