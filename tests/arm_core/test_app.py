"""The app factory: the AsyncAPI document shows what the core sends and consumes."""

from __future__ import annotations

import json
from collections.abc import Callable

from services.arm_core.app import create_app
from services.arm_core.settings import CoreSettings


def test_asyncapi_lists_the_request_and_result_channels(
    core_settings: Callable[..., CoreSettings],
) -> None:
    """Both request subjects (published) and the result subject (consumed) are documented."""
    settings = core_settings()
    app = create_app(settings, run_background=False)
    spec = json.loads(app.schema.to_specification().to_json())
    addresses = {channel["address"] for channel in spec["channels"].values()}
    assert addresses == {
        settings.nats.nats_tabular_request_subject,
        settings.nats.nats_image_request_subject,
        settings.nats.nats_result_subject,
    }
