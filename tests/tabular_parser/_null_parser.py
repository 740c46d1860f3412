"""Spec 002 «Срез 0», the parser stub: a recogniser that answers NOT_IMPLEMENTED to every
acknowledged request, for the tests of the service around the recogniser."""

from __future__ import annotations

from services.runtime.recognizer import ErrorCode, Job, Recognition, RecognitionFailed

__all__ = ["NullParser"]


class NullParser:
    """Every acknowledged request ends in error NOT_IMPLEMENTED."""

    async def recognize(self, data: bytes, job: Job) -> Recognition:
        raise RecognitionFailed(ErrorCode.NOT_IMPLEMENTED, "the tabular parser is not implemented")
