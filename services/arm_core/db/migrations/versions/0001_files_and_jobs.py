"""Stored files and recognition jobs (the outbox).

Revision ID: 0001
Revises:
Create Date: 2026-11-29

Documents, lines, values and issues come in a later revision on top of this one.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str, *, nullable: bool = True) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "stored_file",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("original_name", sa.String(512), nullable=False),
        sa.Column("file_type", sa.String(8), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("content_type", sa.String(255), nullable=False),
        sa.Column("s3_bucket", sa.String(255), nullable=False),
        sa.Column("s3_key", sa.String(1024), nullable=False),
        _ts("created_at", nullable=False),
    )
    op.create_index("ix_stored_file_created_at", "stored_file", ["created_at"])
    op.create_table(
        "recognition_job",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "file_id",
            sa.Uuid(),
            sa.ForeignKey("stored_file.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("pipeline", sa.String(16), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request_subject", sa.String(255)),
        sa.Column("request_msg_id", sa.String(128)),
        sa.Column("result_msg_id", sa.String(128)),
        _ts("published_at"),
        _ts("started_at"),
        _ts("finished_at"),
        sa.Column("service_name", sa.String(128)),
        sa.Column("service_version", sa.String(64)),
        _ts("reply_deadline"),
        sa.Column("error_code", sa.String(64)),
        sa.Column("error_message", sa.Text()),
        sa.Column("metrics", sa.JSON()),
        sa.Column("group_schema", sa.String(16)),
        sa.Column("statements_version", sa.String(64)),
        sa.Column("republish_count", sa.Integer(), nullable=False, server_default="0"),
        _ts("last_published_at"),
        _ts("next_attempt_at"),
        _ts("created_at", nullable=False),
        _ts("updated_at", nullable=False),
    )
    op.create_index(
        "ix_recognition_job_status_next", "recognition_job", ["status", "next_attempt_at"]
    )
    op.create_index(
        "ix_recognition_job_file_attempt", "recognition_job", ["file_id", "attempt"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ix_recognition_job_file_attempt", table_name="recognition_job")
    op.drop_index("ix_recognition_job_status_next", table_name="recognition_job")
    op.drop_table("recognition_job")
    op.drop_index("ix_stored_file_created_at", table_name="stored_file")
    op.drop_table("stored_file")
