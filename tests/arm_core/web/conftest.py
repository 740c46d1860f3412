"""Fixtures of the page tests (helpers in `_recognition.py`)."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.arm_core.app import CoreApp
from tests.arm_core.web._doubtful import doubtful_income_xlsx
from tests.arm_core.web._recognition import Recognised, upload_and_recognize


@pytest.fixture
async def income(
    app: CoreApp, client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> Recognised:
    """The ОФР with one unreadable amount, uploaded and recognised."""
    return await upload_and_recognize(app, client, sessions, "ofr.xlsx", doubtful_income_xlsx())
