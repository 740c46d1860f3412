"""ORM models of recognised documents: statement forms, ОСВ, their lines, values, rows, issues.

One `document` row per item of the result file's `documents[]` (`file_ordinal` = its index),
whatever its kind. Statement forms keep their columns, lines and values in tables of their own,
ОСВ documents their rows (so the API can page them). Fields of the contract are columns; what a
newer MINOR adds, or an optional key sent as an explicit null, goes to `additional` (JSON), so
the normalised document can be emitted again with nothing lost. Money stays the contract's
string (exact, as printed); statement amounts are also kept as NUMERIC for queries.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    Text,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from services.arm_core.db.models import Base, utcnow

__all__ = [
    "Document",
    "DocumentGlance",
    "DocumentIssue",
    "IssueSource",
    "OsvRow",
    "StatementColumn",
    "StatementLine",
    "StatementValue",
]


def _json() -> JSON:
    # SQL NULL for None: "absent" stays distinguishable from a JSON value.
    return JSON(none_as_null=True)


class _Part:
    """What every stored contract object inside a document has: an id, its place among its
    siblings, and the keys that have no column (`additional`, last in the table)."""

    # sort_order keeps the columns where the migration puts them: id, parent, position first.
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True, sort_order=-3)
    position: Mapped[int] = mapped_column(Integer, sort_order=-1)
    additional: Mapped[Any] = mapped_column(_json(), nullable=True)


class _DocumentPart(_Part):
    """A column, line, ОСВ row or issue of one document, deleted with it."""

    document_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("document.id", ondelete="CASCADE"), sort_order=-2
    )


class IssueSource(StrEnum):
    """Who raised a document issue: the recognition service, or the core itself."""

    PRODUCER = "producer"
    CORE = "core"


class Document(Base):
    """One recognised document of a job's result file."""

    __tablename__ = "document"
    __table_args__ = (
        Index("ix_document_job_ordinal", "job_id", "file_ordinal", unique=True),
        Index("ix_document_file", "file_id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    job_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("recognition_job.id", ondelete="CASCADE")
    )
    file_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("stored_file.id", ondelete="CASCADE")
    )
    file_ordinal: Mapped[int] = mapped_column(Integer)
    source_schema_version: Mapped[str] = mapped_column(Text)
    document_type: Mapped[str] = mapped_column(String(16))
    form_variant: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    locator: Mapped[Any] = mapped_column(_json(), nullable=True)
    header: Mapped[Any] = mapped_column(_json(), nullable=True)
    checks: Mapped[Any] = mapped_column(_json(), nullable=True)
    producer_checks: Mapped[Any] = mapped_column(_json(), nullable=True)
    additional: Mapped[Any] = mapped_column(_json(), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    columns: Mapped[list[StatementColumn]] = relationship(
        order_by="StatementColumn.position", lazy="raise", cascade="all, delete-orphan"
    )
    lines: Mapped[list[StatementLine]] = relationship(
        order_by="StatementLine.position", lazy="raise", cascade="all, delete-orphan"
    )
    issues: Mapped[list[DocumentIssue]] = relationship(
        order_by="DocumentIssue.position", lazy="raise", cascade="all, delete-orphan"
    )
    rows: Mapped[list[OsvRow]] = relationship(
        order_by="OsvRow.position", lazy="raise", cascade="all, delete-orphan"
    )


class StatementColumn(_DocumentPart, Base):
    """A value column of a statement form (its period)."""

    __tablename__ = "statement_column"
    __table_args__ = (Index("ix_statement_column_document", "document_id", "position"),)

    column_index: Mapped[int] = mapped_column(Integer)
    label: Mapped[str | None] = mapped_column(Text)
    label_confidence: Mapped[float | None] = mapped_column(Float)
    period_date: Mapped[str | None] = mapped_column(Text)
    period_kind: Mapped[str | None] = mapped_column(String(32))


class StatementLine(_DocumentPart, Base):
    """A line of a statement form; `line_code_original_value` is what the service sent."""

    __tablename__ = "statement_line"
    __table_args__ = (
        Index("ix_statement_line_document", "document_id", "position"),
        Index("ix_statement_line_code", "document_id", "line_code"),
    )

    row_index: Mapped[int | None] = mapped_column(Integer)
    ref: Mapped[str | None] = mapped_column(Text)
    line_status: Mapped[str] = mapped_column(String(16))
    line_code: Mapped[str | None] = mapped_column(Text)
    line_code_original_value: Mapped[str | None] = mapped_column(Text)
    line_code_text: Mapped[str | None] = mapped_column(Text)
    line_code_confidence: Mapped[float | None] = mapped_column(Float)
    line_name: Mapped[str | None] = mapped_column(Text)
    line_name_confidence: Mapped[float | None] = mapped_column(Float)
    parent_ref: Mapped[str | None] = mapped_column(Text)
    needs_review: Mapped[bool] = mapped_column(Boolean, default=False)

    values: Mapped[list[StatementValue]] = relationship(
        order_by="StatementValue.position", lazy="raise", cascade="all, delete-orphan"
    )


class StatementValue(_Part, Base):
    """One amount of a line in one column; `amount` is the contract's exact money string."""

    __tablename__ = "statement_value"
    __table_args__ = (Index("ix_statement_value_line", "line_id", "position"),)

    line_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("statement_line.id", ondelete="CASCADE"), sort_order=-2
    )
    column_index: Mapped[int] = mapped_column(Integer)
    amount: Mapped[str | None] = mapped_column(Text)
    amount_value: Mapped[Decimal | None] = mapped_column(Numeric(38, 2))
    string_value: Mapped[str | None] = mapped_column(Text)
    text: Mapped[str | None] = mapped_column(Text)
    confidence: Mapped[float | None] = mapped_column(Float)
    is_recognized: Mapped[bool | None] = mapped_column(Boolean)
    needs_review: Mapped[bool] = mapped_column(Boolean, default=False)


class OsvRow(_DocumentPart, Base):
    """A row of a trial balance (ОСВ); the six sums are exact money strings."""

    __tablename__ = "osv_row"
    __table_args__ = (Index("ix_osv_row_document", "document_id", "position"),)

    row_index: Mapped[int | None] = mapped_column(Integer)
    ref: Mapped[str | None] = mapped_column(Text)
    level: Mapped[int | None] = mapped_column(Integer)
    kind: Mapped[str | None] = mapped_column(String(16))
    account: Mapped[str | None] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(Text)
    inn: Mapped[str | None] = mapped_column(Text)
    opening_debit: Mapped[str | None] = mapped_column(Text)
    opening_credit: Mapped[str | None] = mapped_column(Text)
    turnover_debit: Mapped[str | None] = mapped_column(Text)
    turnover_credit: Mapped[str | None] = mapped_column(Text)
    closing_debit: Mapped[str | None] = mapped_column(Text)
    closing_credit: Mapped[str | None] = mapped_column(Text)
    extra: Mapped[Any] = mapped_column(_json(), nullable=True)


class DocumentIssue(_DocumentPart, Base):
    """A document warning of the service (`producer`) or a finding of the core (`core`)."""

    __tablename__ = "document_issue"
    __table_args__ = (Index("ix_document_issue_document", "document_id", "position"),)

    source: Mapped[str] = mapped_column(String(16))
    code: Mapped[str] = mapped_column(Text)
    severity: Mapped[str] = mapped_column(String(16))
    message: Mapped[str] = mapped_column(Text)
    line_refs: Mapped[Any] = mapped_column(_json(), nullable=True)
    column_index: Mapped[int | None] = mapped_column(Integer)
    field: Mapped[str | None] = mapped_column(Text)


class DocumentGlance(Base):
    """What the files list shows of a document at a glance, kept current on every write.

    Derived, never a source of truth: the corrected document's status, the doubts left and the
    failed checks after its corrections (their recompute needs the whole document, too much to
    repeat for every document of a list page), its header's organisation, ИНН and date, and where
    its review stands. Written when the document is stored, and again when listed after a newer
    correction than `last_correction_id` or by another `rule` (the code that computed it):
    `documents/glance.py`.
    """

    __tablename__ = "document_glance"
    __table_args__ = (Index("ix_document_glance_attention", "needs_attention"),)

    document_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("document.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str | None] = mapped_column(String(16))
    doubts: Mapped[int | None] = mapped_column(Integer)
    failed_checks: Mapped[int] = mapped_column(Integer)
    soft_failed_checks: Mapped[int] = mapped_column(Integer)
    organization_name: Mapped[str | None] = mapped_column(Text)
    inn: Mapped[str | None] = mapped_column(Text)
    report_date: Mapped[str | None] = mapped_column(Text)
    review_state: Mapped[str] = mapped_column(String(16))
    reviewed_by: Mapped[str | None] = mapped_column(String(255))
    reviewed_at: Mapped[dt.datetime | None]
    needs_attention: Mapped[bool] = mapped_column(Boolean)
    last_correction_id: Mapped[int | None] = mapped_column(Integer)
    rule: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
