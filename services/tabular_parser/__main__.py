"""`python -m services.tabular_parser FILE [--summary]`: recognise a local Excel file without
NATS or S3 through the service's own recogniser and print the result file JSON.

The service itself runs with `faststream run services.tabular_parser.app:create_app --factory`.
"""

from __future__ import annotations

import sys

from services.cli import service_parse_main

if __name__ == "__main__":
    sys.exit(service_parse_main("tabular-parser"))
