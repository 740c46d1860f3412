"""Recognised documents: statement forms (columns, lines, values), ОСВ rows, issues.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.JSON(none_as_null=True))


def _document_fk() -> sa.Column[object]:
    return sa.Column(
        "document_id", sa.Uuid(), sa.ForeignKey("document.id", ondelete="CASCADE"), nullable=False
    )


def _serial() -> sa.Column[object]:
    return sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True)


def upgrade() -> None:
    op.create_table(
        "document",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "job_id",
            sa.Uuid(),
            sa.ForeignKey("recognition_job.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "file_id",
            sa.Uuid(),
            sa.ForeignKey("stored_file.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("file_ordinal", sa.Integer(), nullable=False),
        sa.Column("source_schema_version", sa.Text(), nullable=False),
        sa.Column("document_type", sa.String(16), nullable=False),
        sa.Column("form_variant", sa.String(16)),
        sa.Column("status", sa.String(16), nullable=False),
        _json("locator"),
        _json("header"),
        _json("checks"),
        _json("producer_checks"),
        _json("additional"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_document_job_ordinal", "document", ["job_id", "file_ordinal"], unique=True)
    op.create_index("ix_document_file", "document", ["file_id"])
    op.create_table(
        "statement_column",
        _serial(),
        _document_fk(),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("column_index", sa.Integer(), nullable=False),
        sa.Column("label", sa.Text()),
        sa.Column("label_confidence", sa.Float()),
        sa.Column("period_date", sa.Text()),
        sa.Column("period_kind", sa.String(32)),
        _json("additional"),
    )
    op.create_index("ix_statement_column_document", "statement_column", ["document_id", "position"])
    op.create_table(
        "statement_line",
        _serial(),
        _document_fk(),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("row_index", sa.Integer()),
        sa.Column("ref", sa.Text()),
        sa.Column("line_status", sa.String(16), nullable=False),
        sa.Column("line_code", sa.Text()),
        sa.Column("line_code_original_value", sa.Text()),
        sa.Column("line_code_text", sa.Text()),
        sa.Column("line_code_confidence", sa.Float()),
        sa.Column("line_name", sa.Text()),
        sa.Column("line_name_confidence", sa.Float()),
        sa.Column("parent_ref", sa.Text()),
        sa.Column("needs_review", sa.Boolean(), nullable=False),
        _json("additional"),
    )
    op.create_index("ix_statement_line_document", "statement_line", ["document_id", "position"])
    op.create_index("ix_statement_line_code", "statement_line", ["document_id", "line_code"])
    op.create_table(
        "statement_value",
        _serial(),
        sa.Column(
            "line_id",
            sa.Integer(),
            sa.ForeignKey("statement_line.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("column_index", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Text()),
        sa.Column("amount_value", sa.Numeric(38, 2)),
        sa.Column("string_value", sa.Text()),
        sa.Column("text", sa.Text()),
        sa.Column("confidence", sa.Float()),
        sa.Column("is_recognized", sa.Boolean()),
        sa.Column("needs_review", sa.Boolean(), nullable=False),
        _json("additional"),
    )
    op.create_index("ix_statement_value_line", "statement_value", ["line_id", "position"])
    op.create_table(
        "osv_row",
        _serial(),
        _document_fk(),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("row_index", sa.Integer()),
        sa.Column("ref", sa.Text()),
        sa.Column("level", sa.Integer()),
        sa.Column("kind", sa.String(16)),
        sa.Column("account", sa.Text()),
        sa.Column("name", sa.Text()),
        sa.Column("inn", sa.Text()),
        *(
            sa.Column(f"{side}_{direction}", sa.Text())
            for side in ("opening", "turnover", "closing")
            for direction in ("debit", "credit")
        ),
        _json("extra"),
        _json("additional"),
    )
    op.create_index("ix_osv_row_document", "osv_row", ["document_id", "position"])
    op.create_table(
        "document_issue",
        _serial(),
        _document_fk(),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        _json("line_refs"),
        sa.Column("column_index", sa.Integer()),
        sa.Column("field", sa.Text()),
        _json("additional"),
    )
    op.create_index("ix_document_issue_document", "document_issue", ["document_id", "position"])


def downgrade() -> None:
    for table, indexes in (
        ("document_issue", ["ix_document_issue_document"]),
        ("osv_row", ["ix_osv_row_document"]),
        ("statement_value", ["ix_statement_value_line"]),
        ("statement_line", ["ix_statement_line_code", "ix_statement_line_document"]),
        ("statement_column", ["ix_statement_column_document"]),
        ("document", ["ix_document_file", "ix_document_job_ordinal"]),
    ):
        for index in indexes:
            op.drop_index(index, table_name=table)
        op.drop_table(table)
