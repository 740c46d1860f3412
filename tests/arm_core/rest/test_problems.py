"""The one table from arm-core's exceptions to problem types (rest/problems.py)."""

from __future__ import annotations

import inspect

import pytest

from services.arm_core import exceptions
from services.arm_core.auth import Forbidden, NotAuthenticated
from services.arm_core.exceptions import ArmCoreError, MappingError, PublishFailed
from services.arm_core.rest.problem_types import PROBLEM_TYPES
from services.arm_core.rest.problems import PROBLEM_OF, problem_of

_NEVER_ANSWERED = {ArmCoreError, exceptions.Refused, exceptions.UploadRejected}
_INTERNAL = {PublishFailed, MappingError}  # the relay's and the intake's, never a request's


def _answered() -> list[type[ArmCoreError]]:
    found = [
        cls
        for _name, cls in inspect.getmembers(exceptions, inspect.isclass)
        if issubclass(cls, ArmCoreError) and cls not in _NEVER_ANSWERED | _INTERNAL
    ]
    return [*found, NotAuthenticated, Forbidden]


@pytest.mark.parametrize("cls", _answered(), ids=lambda c: c.__name__)
def test_every_exception_a_request_can_raise_has_its_problem_type(
    cls: type[ArmCoreError],
) -> None:
    """No exception of arm-core reaches a caller as a bare 500: each has its type."""
    assert cls in PROBLEM_OF


def test_every_problem_type_but_the_request_check_is_some_exception() -> None:
    """The catalogue and the table agree: the only type no exception maps to is FastAPI's
    own request validation."""
    mapped = {p.slug for p in PROBLEM_OF.values()}
    assert {p.slug for p in PROBLEM_TYPES} - mapped == {"invalid-request"}


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (exceptions.MissingFileName("x"), 400),
        (exceptions.InvalidFileName("x"), 400),
        (exceptions.EmptyFile("x"), 400),
        (exceptions.FileTooLarge("x"), 413),
        (exceptions.UnsupportedFileType("x"), 415),
        (exceptions.UnsupportedFileContent("x"), 415),
        (exceptions.FileTypeMismatch("x"), 422),
        (exceptions.NotFound("file", 1), 404),
        (exceptions.JobInFlight("x"), 409),
        (exceptions.InvalidCorrection("x"), 422),
        (exceptions.NotAnOsvDocument("x"), 422),
        (exceptions.Unavailable("x"), 503),
        (NotAuthenticated("x"), 401),
        (Forbidden("x"), 403),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_each_exception_keeps_the_status_the_api_has_always_answered(
    exc: ArmCoreError, status: int
) -> None:
    problem = problem_of(exc)
    assert problem is not None and problem.status == status


def test_an_exception_outside_the_table_has_no_problem_type() -> None:
    """The relay's failure is no answer to a request (the handler logs it and answers 503)."""
    assert problem_of(PublishFailed("job", "subject")) is None
