"""`python -m services.scan_gateway FILE [--summary]`: recognise a local PDF / PNG / JPG
without NATS or S3 through the service's local recogniser and print the result file JSON.

The service itself runs with `faststream run services.scan_gateway.app:create_app --factory`.
"""

from __future__ import annotations

import sys

from services.cli import service_parse_main

if __name__ == "__main__":
    sys.exit(service_parse_main("scan-gateway"))
