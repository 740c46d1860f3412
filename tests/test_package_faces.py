"""Every package's face (`__init__`) shows its public API completely, once, and importably.

In the style of httpx's `test_exported_members`: a package's `__all__` is exactly what its
`__init__` binds from its own modules (or lists in its lazy table), it holds the whole `__all__`
of every module it draws a name from, every name in it imports, and every name the code base
imports from a package is in that package's `__all__`. The lazy faces (`services._lazy`) keep
their typed `TYPE_CHECKING` imports in step with their table, and stay lazy: a worker process
that imports a light submodule does not load the broker.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import services
from services.runtime.exceptions import RuntimeServiceError

ROOT = Path(__file__).resolve().parents[1]
_SOURCES = ("services", "scripts", "benchmarks", "tests")
_PACKAGES = sorted(
    info.name
    for info in pkgutil.walk_packages(services.__path__, "services.")
    if info.ispkg and not info.name.startswith("services.arm_core.db.migrations")
)
# Heavy libraries a worker process must not load through a package's `__init__`.
_BROKER = ("faststream", "nats", "aiobotocore")
_WORKER_IMPORTS = (
    "services.runtime.recognizer",
    "services.runtime.sandbox",
    "services.excel",
    "services.tabular_parser.recognizer",
    "services.scan_gateway.local",
    "services.cli",
    "services.documents_io.workers",
    "services.documents_io.pages",
)


def _tree(package: ModuleType) -> ast.Module:
    assert package.__file__ is not None
    return ast.parse(Path(package.__file__).read_text(encoding="utf-8"))


def _absolute(package: str, node: ast.ImportFrom) -> str:
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    if node.level == 0:
        return node.module or ""
    return f"{base}.{node.module}" if node.module else base


def _is_type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"


def _own_bindings(package: ModuleType) -> dict[str, str]:
    """Public names the `__init__` binds at run time from its own modules, or defines itself
    (name → defining module; the package itself for what it defines)."""
    name = package.__name__
    bound: dict[str, str] = {}
    for node in _tree(package).body:
        if isinstance(node, ast.ImportFrom):
            source = _absolute(name, node)
            if source == name:  # `from . import submodule`
                bound.update({a.name: f"{name}.{a.name}" for a in node.names})
            elif source.startswith(f"{name}."):
                bound.update({(alias.asname or alias.name): source for alias in node.names})
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[node.name] = name
        elif isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            bound.update({t.id: name for t in targets if isinstance(t, ast.Name)})
    return {n: source for n, source in bound.items() if not n.startswith("_")}


def _lazy_table(package: ModuleType) -> dict[str, str] | None:
    table = vars(package).get("_LAZY")
    return dict(table) if isinstance(table, dict) else None


def _type_checking_imports(package: ModuleType) -> dict[str, str]:
    """Name → module of the imports under `if TYPE_CHECKING:` (what mypy sees)."""
    seen: dict[str, str] = {}
    for node in _tree(package).body:
        if _is_type_checking(node):
            assert isinstance(node, ast.If)
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                source = _absolute(package.__name__, statement)
                for alias in statement.names:
                    assert alias.asname == alias.name, f"{alias.name}: import it `as` itself"
                    seen[alias.name] = source
    return seen


def _face(package: ModuleType) -> dict[str, str]:
    """What the face shows: name → the module it comes from."""
    table = _lazy_table(package)
    return table if table is not None else _own_bindings(package)


def _is_module(package: str, name: str) -> bool:
    """Whether `name` is a submodule of `package` (what `from package import name` may mean)."""
    if not hasattr(importlib.import_module(package), "__path__"):
        return False
    return importlib.util.find_spec(f"{package}.{name}") is not None


def _imports_from_packages() -> Iterator[tuple[str, str, str]]:
    """(file, package, name) of every `from services.X import name` in the code base."""
    packages = set(_PACKAGES) | {"services"}
    for folder in _SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in packages:
                    for alias in node.names:
                        yield path.relative_to(ROOT).as_posix(), node.module, alias.name


@pytest.fixture(params=_PACKAGES)
def package(request: pytest.FixtureRequest) -> ModuleType:
    return importlib.import_module(request.param)


def test_every_name_in_all_imports_from_the_package_once(package: ModuleType) -> None:
    """`__all__` has no duplicates, and `from package import name` works for each name."""
    names = list(package.__all__)
    assert sorted(names) == sorted(set(names)), "duplicates in __all__"
    unimportable = [n for n in names if not hasattr(package, n)]
    assert unimportable == []


def test_all_is_exactly_what_the_face_binds(package: ModuleType) -> None:
    """Nothing the face takes from its own modules (or lists lazily) is left out of `__all__`,
    and `__all__` names nothing the face does not bind: one list, no drift."""
    assert set(package.__all__) == set(_face(package))


def test_face_shows_the_whole_all_of_each_module_it_draws_from(package: ModuleType) -> None:
    """A module the face re-exports from is shown whole: its `__all__` is in the package's."""
    shown = set(package.__all__)
    missing = {
        f"{source}.{name}"
        for source in set(_face(package).values()) - {package.__name__}
        for name in getattr(importlib.import_module(source), "__all__", ())
        if not _is_module(source, name) and name not in shown
    }
    assert missing == set()


def test_names_imported_from_a_package_are_in_its_all() -> None:
    """Whatever the services, scripts, benchmarks or tests import from a package's face (not
    a submodule) is declared in that package's `__all__`."""
    undeclared = {
        f"{file}: from {package} import {name}"
        for file, package, name in _imports_from_packages()
        if not _is_module(package, name)
        and name not in getattr(importlib.import_module(package), "__all__", ())
    }
    assert undeclared == set()


@pytest.mark.parametrize(
    "name", [p for p in _PACKAGES if _lazy_table(importlib.import_module(p)) is not None]
)
def test_lazy_face_types_the_same_names_it_loads(name: str) -> None:
    """The `TYPE_CHECKING` imports mypy reads name the same modules as the lazy table, and
    every name is defined where the table says, so types and run time cannot drift."""
    package = importlib.import_module(name)
    table = _lazy_table(package)
    assert _type_checking_imports(package) == table
    assert table is not None
    for attr, source in table.items():
        assert getattr(package, attr) is getattr(importlib.import_module(source), attr)


def test_lazy_face_refuses_unknown_names() -> None:
    """An unknown name is an AttributeError naming the package, as for any module."""
    import services.runtime as runtime

    unknown = "Nope"  # mypy rejects `runtime.Nope` already; at run time it must fail too
    with pytest.raises(AttributeError, match=r"'services\.runtime' has no attribute 'Nope'"):
        getattr(runtime, unknown)


def test_worker_side_imports_do_not_load_the_broker() -> None:
    """Why three faces are lazy: a worker process importing a light submodule runs the
    package's `__init__` and must not load FastStream, NATS or aiobotocore through it."""
    probe = (
        "import importlib, json, sys\n"
        "for name in sys.argv[1:]:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *_WORKER_IMPORTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    loaded = set(json.loads(out.stdout))
    assert loaded & set(_BROKER) == set()


def test_runtime_exceptions_have_one_root() -> None:
    """Every exception class the shared runtime defines derives from `RuntimeServiceError`,
    so a caller that only wants "the runtime failed" catches the root."""
    import services.runtime as runtime

    strays = set()
    for info in pkgutil.iter_modules(runtime.__path__, "services.runtime."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseException)
                and cls.__module__ == info.name
                and not issubclass(cls, RuntimeServiceError)
            ):
                strays.add(f"{cls.__module__}.{cls.__qualname__}")
    assert strays == set()


def test_a_packages_exceptions_live_in_one_module_named_alike() -> None:
    """A reader looking for a package's errors opens `exceptions.py`, in every package: no
    `errors.py` beside it (the settings' validation messages, `settings_errors.py`, are text
    for operators, not exception classes)."""
    named_otherwise = sorted(
        str(path.relative_to(ROOT)) for path in (ROOT / "services").rglob("errors.py")
    )
    assert named_otherwise == []
