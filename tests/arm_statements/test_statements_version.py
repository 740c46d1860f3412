"""statements_version follows the package's files."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import services.arm_statements as package
from services.arm_statements import statements_version
from services.arm_statements.version import compute_statements_version


def test_version_has_the_documented_form_and_is_stable() -> None:
    """``arm_statements-<12 hex>``, the same on every computation of the same files."""
    assert re.fullmatch(r"arm_statements-[0-9a-f]{12}", statements_version)
    assert compute_statements_version() == statements_version


def test_version_changes_when_code_or_data_changes(tmp_path: Path) -> None:
    """Editing a module or adding a data file changes the version; caches do not."""
    source = Path(package.__file__).parent
    copy = tmp_path / "copy"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert compute_statements_version(copy) == statements_version
    cached = tmp_path / "cached"
    shutil.copytree(copy, cached)
    (cached / "__pycache__").mkdir()
    (cached / "__pycache__" / "x.py").write_text("cached")
    assert compute_statements_version(cached) == statements_version
    edited = tmp_path / "edited"
    shutil.copytree(copy, edited)
    (edited / "relations.py").write_text((edited / "relations.py").read_text() + "\n# edit\n")
    assert compute_statements_version(edited) != statements_version
    added = tmp_path / "added"
    shutil.copytree(copy, added)
    (added / "extra.json").write_text("{}")
    assert compute_statements_version(added) != statements_version
