"""The exceptions of reading a borrower's file, one root; none of them knows HTTP.

```
DocumentError
├── NotThatFormat        the bytes are not the format the file claims (a PDF named .tiff)
├── DocumentUnreadable   the format is right but the file cannot be read
└── DocumentTooLarge     reading it would make more than its limit (pages, bytes, pixels)
```

They are raised in sandboxed worker processes and travel back pickled (a single message
argument), so each is re-raised in the caller as itself. arm-core's rooms turn them into
their own refusals; the CLI into its message.
"""

from __future__ import annotations

__all__ = ["DocumentError", "DocumentTooLarge", "DocumentUnreadable", "NotThatFormat"]


class DocumentError(Exception):
    """Root: a borrower's file could not be read as asked; `detail` says why."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotThatFormat(DocumentError):
    """The bytes are not the format the file claims."""


class DocumentUnreadable(DocumentError):
    """The file is of its format but cannot be read (damaged, unsupported variant)."""


class DocumentTooLarge(DocumentError):
    """Reading the file would make more than its limit allows."""
