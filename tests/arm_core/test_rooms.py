"""arm-core's rooms: imports point down (web → rest → auth → jobs → documents → db), never up
and never in a circle; HTTP problem types stay in the rooms that answer HTTP."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import services.arm_core

CORE = Path(services.arm_core.__file__).parent
PACKAGE = "services.arm_core"
# Highest first; a module may import its own room and any room below it.
ROOMS = ("app", "web", "rest", "auth", "jobs", "documents", "db", "base")
_TOP = {
    "app": "app",
    "__main__": "app",
    "__init__": "app",
    "settings": "base",
    "exceptions": "base",
}
# Who may name the problem types (their catalogue and their table): those that answer HTTP.
_HTTP_ROOMS = frozenset({"app", "web", "rest"})


def _module_name(path: Path) -> str:
    parts = path.relative_to(CORE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _room(module: str) -> str:
    rest = module.removeprefix(PACKAGE).lstrip(".")
    if not rest:
        return "app"
    first = rest.split(".")[0]
    if first in _TOP:
        return _TOP[first]
    return first


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(CORE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        yield _module_name(path), path


def _imports(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            for alias in node.names:
                yield f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _core_imports(path: Path) -> set[str]:
    return {m for m in _imports(path) if m == PACKAGE or m.startswith(PACKAGE + ".")}


def test_every_module_of_arm_core_lives_in_a_known_room() -> None:
    """The top level holds only app, settings, exceptions and __main__ besides the rooms."""
    rooms = {_room(name) for name, _path in _modules()}
    assert rooms <= set(ROOMS), rooms - set(ROOMS)
    top = sorted(p.name for p in CORE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "app.py", "exceptions.py", "settings.py"]


def test_no_room_imports_a_room_above_it() -> None:
    """An import from a higher room would make the rooms a circle (web and rest on the
    services they show; never the reverse)."""
    upward: list[str] = []
    for name, path in _modules():
        mine = ROOMS.index(_room(name))
        for imported in _core_imports(path):
            theirs = ROOMS.index(_room(imported))
            if theirs < mine and not imported.startswith(name):
                upward.append(f"{name} → {imported}")
    assert upward == []


def test_only_the_http_rooms_name_the_problem_types() -> None:
    """jobs/, documents/ and auth/ raise arm-core's own exceptions; rest/problems.py's table
    is the one place that turns them into problem types."""
    naming = [
        name
        for name, path in _modules()
        if _room(name) not in _HTTP_ROOMS
        and any(i.startswith(f"{PACKAGE}.rest.problem") for i in _core_imports(path))
    ]
    assert naming == []


def test_the_check_sees_an_upward_import() -> None:
    """The room check itself: a module of jobs/ naming rest/ is found upward."""
    assert ROOMS.index(_room(f"{PACKAGE}.rest.files")) < ROOMS.index(_room(f"{PACKAGE}.jobs.x"))
    assert _room(f"{PACKAGE}.exceptions") == "base"
    assert _room(PACKAGE) == "app"
