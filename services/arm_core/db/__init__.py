"""The core's database: models, engine, migrations and the job state transitions."""

from __future__ import annotations

from services.arm_core.db.documents import (
    Document,
    DocumentGlance,
    DocumentIssue,
    IssueSource,
    OsvRow,
    StatementColumn,
    StatementLine,
    StatementValue,
)
from services.arm_core.db.engine import (
    create_engine,
    create_session_factory,
    is_database_locked,
    is_sqlite,
)
from services.arm_core.db.migrate import MIGRATIONS_DIR, alembic_config, migrate
from services.arm_core.db.models import (
    ACTIVE_STATUSES,
    FINAL_STATUSES,
    Base,
    Correction,
    CorrectionKind,
    JobStatus,
    RecognitionJob,
    StoredFile,
    UtcDateTime,
    utcnow,
)

__all__ = [
    "ACTIVE_STATUSES",
    "FINAL_STATUSES",
    "MIGRATIONS_DIR",
    "Base",
    "Correction",
    "CorrectionKind",
    "Document",
    "DocumentGlance",
    "DocumentIssue",
    "IssueSource",
    "JobStatus",
    "OsvRow",
    "RecognitionJob",
    "StatementColumn",
    "StatementLine",
    "StatementValue",
    "StoredFile",
    "UtcDateTime",
    "alembic_config",
    "create_engine",
    "create_session_factory",
    "is_database_locked",
    "is_sqlite",
    "migrate",
    "utcnow",
]
