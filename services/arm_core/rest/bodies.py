"""Request bodies read within their limits (the upload's bytes)."""

from __future__ import annotations

from fastapi import UploadFile

from services.arm_core.exceptions import FileTooLarge

__all__ = ["read_limited"]

_READ_CHUNK = 1024 * 1024


async def read_limited(upload: UploadFile, max_bytes: int) -> bytes:
    """The upload's bytes, refused (`FileTooLarge`) past `max_bytes` without reading further."""
    chunks: list[bytes] = []
    total = 0
    while chunk := await upload.read(_READ_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise FileTooLarge(f"the file is larger than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
