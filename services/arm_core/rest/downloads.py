"""Files answered as attachments: a stored upload, an exported document."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable
from typing import Literal
from urllib.parse import quote

from fastapi import Response

from services.arm_core.db.documents import Document
from services.arm_core.documents.corrections import CorrectedDocument
from services.arm_core.documents.export import osv_csv, osv_xlsx, statement_csv, statement_xlsx
from services.arm_core.documents.read import DocumentBody, load_osv_rows, osv_row_json
from services.arm_core.documents.store import is_osv
from services.arm_core.exceptions import Unavailable
from services.arm_core.jobs.uploads import Download
from services.arm_core.rest.deps import ApiDeps
from services.contract.models.result_v2 import StatementDocument
from services.runtime.storage import ObjectNotFound, StorageError

__all__ = ["XLSX_TYPE", "content_disposition", "export_response", "stored_download"]

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def content_disposition(name: str) -> str:
    """An attachment named `name` (an ASCII fallback and the UTF-8 name, RFC 6266)."""
    ascii_name = name.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"


async def stored_download(file_id: uuid.UUID, reading: Awaitable[Download]) -> Response:
    """The bytes `reading` answers as an attachment; a missing object or S3 failing is
    `Unavailable`."""
    try:
        download = await reading
    except ObjectNotFound as exc:
        raise Unavailable(f"the stored object of file {file_id} is missing") from exc
    except StorageError as exc:
        raise Unavailable("the file could not be read; try again later") from exc
    return Response(
        download.data,
        media_type=download.content_type,
        headers={"Content-Disposition": content_disposition(download.name)},
    )


async def export_response(
    deps: ApiDeps,
    document: Document,
    corrected: CorrectedDocument[DocumentBody],
    fmt: Literal["xlsx", "csv"],
) -> Response:
    """The corrected document as an XLSX or CSV download."""
    if is_osv(document.document_type):
        async with deps.sessions() as session:
            rows = [osv_row_json(r) for r in await load_osv_rows(session, document.id)]
        data = osv_xlsx(rows, corrected.osv) if fmt == "xlsx" else osv_csv(rows)
    else:
        data = (
            statement_xlsx(corrected)
            if fmt == "xlsx"
            else statement_csv(StatementDocument.model_validate(corrected.document))
        )
    name = f"{document.document_type.lower()}-{document.id}.{fmt}"
    return Response(
        data,
        media_type=XLSX_TYPE if fmt == "xlsx" else "text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
