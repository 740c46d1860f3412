"""Pydantic models and TypedDicts generated from contracts/ by scripts/generate_models.py: do not edit."""

from . import request_v1, result_message_v1, result_message_v2, result_v1, result_v2, result_v2_dicts

__all__ = ["request_v1", "result_message_v1", "result_message_v2", "result_v1", "result_v2", "result_v2_dicts"]
