"""arm_statements: the statements code shared by tabular-parser, scan-gateway and arm-core.

The line catalogue of the balance and the ОФР (full, simplified, 157n, NKO wordings), name
matching for forms without a «Код» column, the full / simplified decision from the structure of
the codes, the arithmetic relations and their checks in the contract's shape, the dates a
statement prints (column labels, titles, the report date) and its header fields as text, and
``statements_version``, which every result file carries. Pure Python; at import it reads only
its own files (to hash them).
"""

from __future__ import annotations

from typing import Final

from services.arm_statements.catalogue import (
    LINES,
    CodeKind,
    classify_code,
    legacy_line_name,
    lookup_line,
    parent_code,
    print_order,
)
from services.arm_statements.checks import (
    DEFAULT_TOLERANCE,
    Checks,
    LineValues,
    RelationFailure,
    RelationOutcome,
    check_lines,
    evaluate_relations,
)
from services.arm_statements.exceptions import (
    ArmStatementsError,
    InvalidDocumentError,
    InvalidToleranceError,
)
from services.arm_statements.header_fields import (
    CODE_LENGTHS,
    HEADER_FIELDS,
    INN_LENGTHS,
    code_digits,
    inn_checksum_ok,
    normalize_units,
    okei_for_units,
    units_for_okei,
)
from services.arm_statements.line import DocumentType, FormVariant, Line, Standard
from services.arm_statements.money import format_money, parse_money
from services.arm_statements.names import match_line_name, name_candidates, normalize_name
from services.arm_statements.periods import (
    PeriodKind,
    date_in_text,
    parse_period_label,
    report_date_in_texts,
    resolve_relative,
)
from services.arm_statements.recompute import CoveredValue, RecomputeResult, recompute
from services.arm_statements.relations import Reading, Relation, RelationKind, Term, relations_for
from services.arm_statements.text import fold
from services.arm_statements.variant import detect_form_variant
from services.arm_statements.version import compute_statements_version

statements_version: Final[str] = compute_statements_version()
"""``arm_statements-<12 hex>``: changes whenever this package's code or catalogue changes."""

__all__ = [
    "CODE_LENGTHS",
    "DEFAULT_TOLERANCE",
    "HEADER_FIELDS",
    "INN_LENGTHS",
    "LINES",
    "ArmStatementsError",
    "Checks",
    "CodeKind",
    "CoveredValue",
    "DocumentType",
    "FormVariant",
    "InvalidDocumentError",
    "InvalidToleranceError",
    "Line",
    "LineValues",
    "PeriodKind",
    "Reading",
    "RecomputeResult",
    "Relation",
    "RelationFailure",
    "RelationKind",
    "RelationOutcome",
    "Standard",
    "Term",
    "check_lines",
    "classify_code",
    "code_digits",
    "compute_statements_version",
    "date_in_text",
    "detect_form_variant",
    "evaluate_relations",
    "fold",
    "format_money",
    "inn_checksum_ok",
    "legacy_line_name",
    "lookup_line",
    "match_line_name",
    "name_candidates",
    "normalize_name",
    "normalize_units",
    "okei_for_units",
    "parent_code",
    "parse_money",
    "parse_period_label",
    "print_order",
    "recompute",
    "relations_for",
    "report_date_in_texts",
    "resolve_relative",
    "statements_version",
    "units_for_okei",
]
