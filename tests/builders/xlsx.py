"""Real .xlsx files (the writer lives in services.devstack.workbooks) and the 1C:УПП renaming."""

from __future__ import annotations

import io
import re
import zipfile

from services.devstack.workbooks import write_xlsx

__all__ = ["rename_shared_strings", "write_xlsx"]


def rename_shared_strings(xlsx: bytes, new_name: str = "xl/SharedStrings.xml") -> bytes:
    """Rename the shared-strings part as 1C:УПП does, fixing content types and rels."""
    source = zipfile.ZipFile(io.BytesIO(xlsx))
    out = io.BytesIO()
    target = new_name.removeprefix("xl/")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            data = source.read(info)
            name = info.filename
            if name == "xl/sharedStrings.xml":
                name = new_name
            elif name == "[Content_Types].xml":
                data = data.replace(b"/xl/sharedStrings.xml", f"/{new_name}".encode())
            elif name == "xl/_rels/workbook.xml.rels":
                data = re.sub(rb'Target="sharedStrings\.xml"', f'Target="{target}"'.encode(), data)
            archive.writestr(name, data)
    return out.getvalue()
