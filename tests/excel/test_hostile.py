"""Hostile and damaged workbooks end in UnreadableWorkbook (or open), never in a dead process.

Every parse here runs through the sandbox, as the service does, so even a native abort in
calamine would show up as SandboxCrashed instead of killing the test process.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import AsyncIterator, Callable

import pytest

from services.excel import (
    ExcelError,
    LimitExceeded,
    Limits,
    UnreadableWorkbook,
    load_workbook,
)
from services.excel._xlsx_scan import scan_xlsx
from services.runtime.sandbox import Sandbox, SandboxCrashed, SandboxSettings
from tests.builders import (
    CellInput,
    SheetSpec,
    billion_laughs_xlsx,
    far_cell_xlsx,
    lying_dimension_bomb_xlsx,
    mutants,
    write_xls,
    write_xlsb,
    write_xlsx,
    xxe_xlsx,
    zip_slip_xlsx,
)

RELAXED_RATIO = Limits(max_compression_ratio=10**6, max_rows=100_000)


@pytest.fixture(scope="module")
async def sandbox() -> AsyncIterator[Sandbox]:
    settings = SandboxSettings(workers=2, timeout_seconds=60, max_tasks_per_child=500)
    async with Sandbox(settings) as box:
        yield box


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (billion_laughs_xlsx, "DOCTYPE"),
        (xxe_xlsx, "DOCTYPE"),
        (zip_slip_xlsx, "unsafe member path"),
        (far_cell_xlsx, "max_rows"),
        (lying_dimension_bomb_xlsx, "max_compression_ratio"),
    ],
)
async def test_hostile_workbooks_are_unreadable(
    sandbox: Sandbox, build: Callable[[], bytes], reason: str
) -> None:
    """Each attack is refused by a guard, named in the error, before any parser runs."""
    with pytest.raises(UnreadableWorkbook, match=reason):
        await sandbox.run(load_workbook, build())


async def test_a_bomb_lying_in_its_dimension_is_stopped_while_reading(sandbox: Sandbox) -> None:
    """With the ratio guard relaxed, the row cap still holds during the streaming pass."""
    with pytest.raises(LimitExceeded) as caught:
        await sandbox.run(load_workbook, lying_dimension_bomb_xlsx(200_000), RELAXED_RATIO)
    assert caught.value.limit == "max_rows"
    assert caught.value.actual > RELAXED_RATIO.max_rows


async def test_a_far_cell_is_refused_by_the_area_cap(sandbox: Sandbox) -> None:
    """A1 plus a cell at XFD900000: the used rectangle is over max_cells, refused up front."""
    with pytest.raises(LimitExceeded) as caught:
        await sandbox.run(load_workbook, far_cell_xlsx("XFD900000"))
    assert caught.value.limit == "max_cells"


@pytest.mark.parametrize("ref", ["A20000000", "Z30000000", "B1234567890123"])
async def test_a_row_past_excels_last_is_refused_before_calamine_allocates(
    sandbox: Sandbox, ref: str
) -> None:
    """No `<dimension>`, a cell whose row has more digits than Excel's last row: the guard
    pass reads that row too and refuses it. Left to calamine, its dense grid up to that row
    (25 GB for Z30000000) would kill the worker, or pass RLIMIT_AS and be refused only after."""
    with pytest.raises(LimitExceeded) as caught:
        await sandbox.run(load_workbook, far_cell_xlsx(ref, declared=False))
    assert caught.value.limit == "max_rows"
    assert caught.value.actual == int(ref.lstrip("ABZ"))  # rows 1 to that one


def test_the_guard_pass_itself_measures_a_row_of_many_digits() -> None:
    """The refusal comes from the streaming guard, before any sheet is parsed."""
    archive = zipfile.ZipFile(io.BytesIO(far_cell_xlsx("A20000000", declared=False)))
    with pytest.raises(LimitExceeded, match="max_rows is 20000000"):
        scan_xlsx(archive, Limits())


async def test_a_lone_far_cell_under_the_caps_opens_sparse(sandbox: Sandbox) -> None:
    """A single cell at XFD2: only that row is wide, the rest stay empty lists."""
    book = await sandbox.run(load_workbook, far_cell_xlsx("XFD2", with_a1=False))
    rows = book.sheets[0].rows
    assert rows[0] == [] and len(rows[1]) == 16384 and rows[1][-1] == 2


def _load_each(blobs: list[bytes]) -> list[str]:
    """Child side of the mutant loop: one outcome name per blob, in the child process."""
    outcomes: list[str] = []
    for blob in blobs:
        try:
            load_workbook(blob)
        except ExcelError as exc:
            outcomes.append(type(exc).__name__)
        else:
            outcomes.append("Workbook")
    return outcomes


_LINES: list[list[CellInput]] = [[f"60.{i}", i * 1.5, i] for i in range(40)]
_SPEC = [
    SheetSpec(
        "ОСВ",
        rows=[["Счёт", "Дебет", "Кредит"], *_LINES],
        merged=["A1:C1"],
        outline_levels={i: 1 + i % 2 for i in range(1, 41)},
    )
]


@pytest.mark.parametrize("writer", [write_xlsx, write_xls, write_xlsb], ids=["XLSX", "XLS", "XLSB"])
async def test_mutants_end_in_a_workbook_or_a_project_exception(
    sandbox: Sandbox, writer: Callable[[list[SheetSpec]], bytes]
) -> None:
    """150 truncated / byte-flipped copies: each is a Workbook or an ExcelError, none escapes.

    They run in batches of 25 in the sandbox; a batch whose child dies (a native abort in a
    parser) is retried one file at a time, so any crashing mutant is pinned and the test fails
    while the test process itself survives.
    """
    blobs = list(mutants(writer(_SPEC), 150, seed=4))
    outcomes: list[str] = []
    for start in range(0, len(blobs), 25):
        batch = blobs[start : start + 25]
        try:
            outcomes += await sandbox.run(_load_each, batch)
        except SandboxCrashed:
            for blob in batch:
                try:
                    outcomes += await sandbox.run(_load_each, [blob])
                except SandboxCrashed:
                    outcomes.append("crashed")
    assert len(outcomes) == len(blobs)
    assert set(outcomes) <= {"Workbook", "UnreadableWorkbook", "LimitExceeded", "NotAWorkbook"}
    assert "UnreadableWorkbook" in outcomes
