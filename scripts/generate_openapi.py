"""Generate arm-core's OpenAPI document from the code, and validate it.

    python scripts/generate_openapi.py            write openapi/arm-core.json
    python scripts/generate_openapi.py --check    exit 1 when the committed file differs or the
                                                  document is not valid OpenAPI

The app is built on default settings (the OPENBAO__* environment is ignored) and asked for
the document `/openapi.json` serves; openapi-spec-validator checks it against the OpenAPI
specification of its version. Output is deterministic: stable key order, LF line ends.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OUT = ROOT / "openapi" / "arm-core.json"


def document() -> dict[str, Any]:
    """arm-core's OpenAPI document on default settings."""
    for key in list(os.environ):
        if key.upper().startswith("OPENBAO__"):
            del os.environ[key]
    from services.arm_core.app import create_app
    from services.arm_core.settings import CoreSettings

    app = create_app(CoreSettings(), run_background=False)
    spec: dict[str, Any] = app.api.openapi()
    return spec


def render(spec: dict[str, Any]) -> str:
    return json.dumps(spec, ensure_ascii=False, indent=2) + "\n"


def validate(spec: dict[str, Any]) -> None:
    """openapi-spec-validator's verdict; raises on the first error."""
    from openapi_spec_validator import validate as validate_spec

    validate_spec(spec)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when the file is not current")
    args = parser.parse_args(argv)
    spec = document()
    validate(spec)
    text = render(spec)
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else None
        if current != text:
            print(f"stale: {OUT.relative_to(ROOT)}", file=sys.stderr)
            if current is not None:
                diff = difflib.unified_diff(
                    current.splitlines(), text.splitlines(), "committed", "generated", lineterm=""
                )
                for line in list(diff)[:20]:
                    print(f"  {line}", file=sys.stderr)
            print("run: python scripts/generate_openapi.py", file=sys.stderr)
            return 1
        print(f"openapi: {OUT.relative_to(ROOT)} is current and valid")
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8", newline="\n") as out:
        out.write(text)
    print(f"wrote {OUT.relative_to(ROOT)} (valid)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
