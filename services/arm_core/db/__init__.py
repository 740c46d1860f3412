"""The core's database: models, engine, migrations and the job state transitions."""

from __future__ import annotations

from services.arm_core.db.documents import (
    Document,
    DocumentIssue,
    IssueSource,
    OsvRow,
    StatementColumn,
    StatementLine,
    StatementValue,
)
from services.arm_core.db.engine import create_engine, create_session_factory, is_sqlite
from services.arm_core.db.migrate import migrate
from services.arm_core.db.models import (
    ACTIVE_STATUSES,
    FINAL_STATUSES,
    Base,
    JobStatus,
    RecognitionJob,
    StoredFile,
    utcnow,
)

__all__ = [
    "ACTIVE_STATUSES",
    "FINAL_STATUSES",
    "Base",
    "Document",
    "DocumentIssue",
    "IssueSource",
    "JobStatus",
    "OsvRow",
    "RecognitionJob",
    "StatementColumn",
    "StatementLine",
    "StatementValue",
    "StoredFile",
    "create_engine",
    "create_session_factory",
    "is_sqlite",
    "migrate",
    "utcnow",
]
