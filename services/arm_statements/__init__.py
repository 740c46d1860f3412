"""arm_statements: the statements code shared by tabular-parser, scan-gateway and arm-core.

One statementDocument built from a recogniser's typed reads (``build_document``), one rule
for which form a title / ОКУД / codes / names show (``form_kind``), one enum of the document's
warning codes, money read from cells and written as the contract's strings. The line catalogue
of the balance and the ОФР (full, simplified, 157n, NKO wordings) and the lines of the NKO
target-use report, name
matching for forms without a «Код» column, the full / simplified decision from the structure of
the codes, the arithmetic relations and their checks in the contract's shape, the dates a
statement prints (column labels, titles, the report date) and its header fields as text, and
``statements_version``, which every result file carries. Pure Python; at import it reads only
its own files (to hash them).
"""

from __future__ import annotations

from typing import Final

from services.arm_statements.agreement import (
    RUBLE_LINES,
    UNIT_SCALE,
    Disagreement,
    Figure,
    Source,
    disagreements,
    figures_of,
)
from services.arm_statements.catalogue import (
    LEGACY_INCOME_MAPPED,
    LINES,
    TARGET_USE_LINES,
    CodeKind,
    classify_code,
    legacy_income_line,
    legacy_line_name,
    lookup_line,
    parent_code,
    print_order,
    target_use_line,
)
from services.arm_statements.checks import (
    DEFAULT_TOLERANCE,
    Checks,
    LineValues,
    RelationFailure,
    RelationOptions,
    RelationOutcome,
    check_lines,
    evaluate_relations,
)
from services.arm_statements.cross_form import (
    OSV_RULES,
    CrossFinding,
    OsvRule,
    osv_findings,
    profit_movements,
)
from services.arm_statements.document import (
    FROM_COLUMNS,
    REVIEW_BELOW,
    ColumnRead,
    HeaderField,
    HeaderRead,
    HeaderReview,
    LineRead,
    LineStatus,
    StatementRead,
    ValueIssue,
    ValueRead,
    build_document,
)
from services.arm_statements.exceptions import (
    ArmStatementsError,
    InvalidDocumentError,
    InvalidToleranceError,
)
from services.arm_statements.forms import (
    MIN_CODES,
    MIN_NAMES,
    OWN_NUMBERING_OKUD,
    FormEvidence,
    FormKind,
    code_form,
    codes_kind,
    codes_said,
    form_kind,
    names_kind,
    names_said,
    okud_in_cells,
    okud_kind,
    title_kind,
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
from services.arm_statements.line import DocumentType, FormVariant, Line, LineForm, Standard
from services.arm_statements.money import (
    format_amount,
    format_money,
    is_blank_mark,
    kopecks,
    parse_amount,
    parse_exact,
    parse_money,
    show_amount,
    too_precise,
)
from services.arm_statements.names import (
    match_line_name,
    match_target_use_name,
    name_candidates,
    normalize_name,
)
from services.arm_statements.periods import (
    PeriodKind,
    date_in_text,
    month_number,
    parse_period_label,
    report_date_in_texts,
    resolve_relative,
)
from services.arm_statements.recompute import (
    CheckedLine,
    CheckRule,
    CoveredValue,
    RecomputeResult,
    recheck,
    recheck_lines,
    recompute,
)
from services.arm_statements.relations import Reading, Relation, RelationKind, Term, relations_for
from services.arm_statements.text import fold, is_page_furniture
from services.arm_statements.variant import detect_form_variant
from services.arm_statements.version import compute_statements_version
from services.arm_statements.warnings import DocumentWarning, Severity, StatementWarning

statements_version: Final[str] = compute_statements_version()
"""``arm_statements-<12 hex>``: changes whenever this package's code or catalogue changes."""

__all__ = [
    "CODE_LENGTHS",
    "DEFAULT_TOLERANCE",
    "FROM_COLUMNS",
    "HEADER_FIELDS",
    "INN_LENGTHS",
    "LEGACY_INCOME_MAPPED",
    "LINES",
    "MIN_CODES",
    "MIN_NAMES",
    "OSV_RULES",
    "OWN_NUMBERING_OKUD",
    "REVIEW_BELOW",
    "RUBLE_LINES",
    "TARGET_USE_LINES",
    "UNIT_SCALE",
    "ArmStatementsError",
    "CheckRule",
    "CheckedLine",
    "Checks",
    "CodeKind",
    "ColumnRead",
    "CoveredValue",
    "CrossFinding",
    "Disagreement",
    "DocumentType",
    "DocumentWarning",
    "Figure",
    "FormEvidence",
    "FormKind",
    "FormVariant",
    "HeaderField",
    "HeaderRead",
    "HeaderReview",
    "InvalidDocumentError",
    "InvalidToleranceError",
    "Line",
    "LineForm",
    "LineRead",
    "LineStatus",
    "LineValues",
    "OsvRule",
    "PeriodKind",
    "Reading",
    "RecomputeResult",
    "Relation",
    "RelationFailure",
    "RelationKind",
    "RelationOptions",
    "RelationOutcome",
    "Severity",
    "Source",
    "Standard",
    "StatementRead",
    "StatementWarning",
    "Term",
    "ValueIssue",
    "ValueRead",
    "build_document",
    "check_lines",
    "classify_code",
    "code_digits",
    "code_form",
    "codes_kind",
    "codes_said",
    "compute_statements_version",
    "date_in_text",
    "detect_form_variant",
    "disagreements",
    "evaluate_relations",
    "figures_of",
    "fold",
    "form_kind",
    "format_amount",
    "format_money",
    "inn_checksum_ok",
    "is_blank_mark",
    "is_page_furniture",
    "kopecks",
    "legacy_income_line",
    "legacy_line_name",
    "lookup_line",
    "match_line_name",
    "match_target_use_name",
    "month_number",
    "name_candidates",
    "names_kind",
    "names_said",
    "normalize_name",
    "normalize_units",
    "okei_for_units",
    "okud_in_cells",
    "okud_kind",
    "osv_findings",
    "parent_code",
    "parse_amount",
    "parse_exact",
    "parse_money",
    "parse_period_label",
    "print_order",
    "profit_movements",
    "recheck",
    "recheck_lines",
    "recompute",
    "relations_for",
    "report_date_in_texts",
    "resolve_relative",
    "show_amount",
    "statements_version",
    "target_use_line",
    "title_kind",
    "too_precise",
    "units_for_okei",
]
