"""What the files list shows of each document at a glance (derived, rewritten on every write).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03

Documents stored before this revision have no row; the list computes theirs when it first
shows them (services/arm_core/documents/glance.py), so no data migration is needed.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "document_glance",
        sa.Column(
            "document_id",
            sa.Uuid(),
            sa.ForeignKey("document.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("status", sa.String(16)),
        sa.Column("doubts", sa.Integer()),
        sa.Column("failed_checks", sa.Integer(), nullable=False),
        sa.Column("soft_failed_checks", sa.Integer(), nullable=False),
        sa.Column("organization_name", sa.Text()),
        sa.Column("inn", sa.Text()),
        sa.Column("report_date", sa.Text()),
        sa.Column("review_state", sa.String(16), nullable=False),
        sa.Column("reviewed_by", sa.String(255)),
        sa.Column("reviewed_at", sa.DateTime(timezone=True)),
        sa.Column("needs_attention", sa.Boolean(), nullable=False),
        sa.Column("last_correction_id", sa.Integer()),
        sa.Column("rule", sa.String(64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_document_glance_attention", "document_glance", ["needs_attention"])


def downgrade() -> None:
    op.drop_index("ix_document_glance_attention", table_name="document_glance")
    op.drop_table("document_glance")
