"""arm_statements: the statements code shared by tabular-parser, scan-gateway and arm-core.

One statementDocument built from a recogniser's typed reads (``build_document``), one rule
for which form a title / ОКУД / codes / names show (``form_kind``), one enum of the document's
warning codes, money read from cells and written as the contract's strings. The line catalogue
of the balance and the ОФР (full, simplified, 157n, NKO wordings) and the lines of the NKO
target-use report, name
matching for forms without a «Код» column, the full / simplified decision from the structure of
the codes, the arithmetic relations and their checks in the contract's shape, the dates a
statement prints (column labels, titles, the report date) and its header fields as text, and
``statements_version``, which every result file carries. Pure Python; ``statements_version`` reads
its own files (to hash them) when first asked for.

The names below are lazy (PEP 562, `services._lazy`): a worker that reads a trial balance
imports only the modules it uses (`money`, `periods`), not the catalogue, the relations and the
document builder (~25 ms of a one-file parse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services._lazy import lazy_exports

if TYPE_CHECKING:  # what mypy sees: the same names, typed; `X as X` marks them exported
    from services.arm_statements.agreement import RUBLE_LINES as RUBLE_LINES
    from services.arm_statements.agreement import UNIT_SCALE as UNIT_SCALE
    from services.arm_statements.agreement import Disagreement as Disagreement
    from services.arm_statements.agreement import Figure as Figure
    from services.arm_statements.agreement import Source as Source
    from services.arm_statements.agreement import disagreements as disagreements
    from services.arm_statements.agreement import figures_of as figures_of
    from services.arm_statements.catalogue import LEGACY_INCOME_MAPPED as LEGACY_INCOME_MAPPED
    from services.arm_statements.catalogue import LINES as LINES
    from services.arm_statements.catalogue import TARGET_USE_LINES as TARGET_USE_LINES
    from services.arm_statements.catalogue import CodeKind as CodeKind
    from services.arm_statements.catalogue import classify_code as classify_code
    from services.arm_statements.catalogue import legacy_income_line as legacy_income_line
    from services.arm_statements.catalogue import legacy_line_name as legacy_line_name
    from services.arm_statements.catalogue import lookup_line as lookup_line
    from services.arm_statements.catalogue import parent_code as parent_code
    from services.arm_statements.catalogue import print_order as print_order
    from services.arm_statements.catalogue import target_use_line as target_use_line
    from services.arm_statements.checks import DEFAULT_TOLERANCE as DEFAULT_TOLERANCE
    from services.arm_statements.checks import Checks as Checks
    from services.arm_statements.checks import LineValues as LineValues
    from services.arm_statements.checks import RelationFailure as RelationFailure
    from services.arm_statements.checks import RelationOptions as RelationOptions
    from services.arm_statements.checks import RelationOutcome as RelationOutcome
    from services.arm_statements.checks import check_lines as check_lines
    from services.arm_statements.checks import evaluate_relations as evaluate_relations
    from services.arm_statements.cross_form import OSV_RULES as OSV_RULES
    from services.arm_statements.cross_form import CrossFinding as CrossFinding
    from services.arm_statements.cross_form import OsvRule as OsvRule
    from services.arm_statements.cross_form import osv_findings as osv_findings
    from services.arm_statements.cross_form import profit_movements as profit_movements
    from services.arm_statements.document import FROM_COLUMNS as FROM_COLUMNS
    from services.arm_statements.document import REVIEW_BELOW as REVIEW_BELOW
    from services.arm_statements.document import ColumnRead as ColumnRead
    from services.arm_statements.document import HeaderField as HeaderField
    from services.arm_statements.document import HeaderRead as HeaderRead
    from services.arm_statements.document import HeaderReview as HeaderReview
    from services.arm_statements.document import LineRead as LineRead
    from services.arm_statements.document import LineStatus as LineStatus
    from services.arm_statements.document import StatementRead as StatementRead
    from services.arm_statements.document import ValueIssue as ValueIssue
    from services.arm_statements.document import ValueRead as ValueRead
    from services.arm_statements.document import build_document as build_document
    from services.arm_statements.exceptions import ArmStatementsError as ArmStatementsError
    from services.arm_statements.exceptions import InvalidDocumentError as InvalidDocumentError
    from services.arm_statements.exceptions import InvalidToleranceError as InvalidToleranceError
    from services.arm_statements.forms import MIN_CODES as MIN_CODES
    from services.arm_statements.forms import MIN_NAMES as MIN_NAMES
    from services.arm_statements.forms import OWN_NUMBERING_OKUD as OWN_NUMBERING_OKUD
    from services.arm_statements.forms import FormEvidence as FormEvidence
    from services.arm_statements.forms import FormKind as FormKind
    from services.arm_statements.forms import code_form as code_form
    from services.arm_statements.forms import codes_kind as codes_kind
    from services.arm_statements.forms import codes_said as codes_said
    from services.arm_statements.forms import form_kind as form_kind
    from services.arm_statements.forms import names_kind as names_kind
    from services.arm_statements.forms import names_said as names_said
    from services.arm_statements.forms import okud_in_cells as okud_in_cells
    from services.arm_statements.forms import okud_kind as okud_kind
    from services.arm_statements.forms import title_kind as title_kind
    from services.arm_statements.header_fields import CODE_LENGTHS as CODE_LENGTHS
    from services.arm_statements.header_fields import HEADER_FIELDS as HEADER_FIELDS
    from services.arm_statements.header_fields import INN_LENGTHS as INN_LENGTHS
    from services.arm_statements.header_fields import code_digits as code_digits
    from services.arm_statements.header_fields import inn_checksum_ok as inn_checksum_ok
    from services.arm_statements.header_fields import normalize_units as normalize_units
    from services.arm_statements.header_fields import okei_for_units as okei_for_units
    from services.arm_statements.header_fields import units_for_okei as units_for_okei
    from services.arm_statements.line import DocumentType as DocumentType
    from services.arm_statements.line import FormVariant as FormVariant
    from services.arm_statements.line import Line as Line
    from services.arm_statements.line import LineForm as LineForm
    from services.arm_statements.line import Standard as Standard
    from services.arm_statements.money import format_amount as format_amount
    from services.arm_statements.money import format_money as format_money
    from services.arm_statements.money import is_blank_mark as is_blank_mark
    from services.arm_statements.money import kopecks as kopecks
    from services.arm_statements.money import parse_amount as parse_amount
    from services.arm_statements.money import parse_exact as parse_exact
    from services.arm_statements.money import parse_money as parse_money
    from services.arm_statements.money import show_amount as show_amount
    from services.arm_statements.money import too_precise as too_precise
    from services.arm_statements.names import match_line_name as match_line_name
    from services.arm_statements.names import match_target_use_name as match_target_use_name
    from services.arm_statements.names import name_candidates as name_candidates
    from services.arm_statements.names import normalize_name as normalize_name
    from services.arm_statements.periods import PeriodKind as PeriodKind
    from services.arm_statements.periods import date_in_text as date_in_text
    from services.arm_statements.periods import month_number as month_number
    from services.arm_statements.periods import parse_period_label as parse_period_label
    from services.arm_statements.periods import report_date_in_texts as report_date_in_texts
    from services.arm_statements.periods import resolve_relative as resolve_relative
    from services.arm_statements.recomputation import CheckedLine as CheckedLine
    from services.arm_statements.recomputation import CheckRule as CheckRule
    from services.arm_statements.recomputation import CoveredValue as CoveredValue
    from services.arm_statements.recomputation import RecomputeResult as RecomputeResult
    from services.arm_statements.recomputation import recheck as recheck
    from services.arm_statements.recomputation import recheck_lines as recheck_lines
    from services.arm_statements.recomputation import recompute as recompute
    from services.arm_statements.relations import Reading as Reading
    from services.arm_statements.relations import Relation as Relation
    from services.arm_statements.relations import RelationKind as RelationKind
    from services.arm_statements.relations import Term as Term
    from services.arm_statements.relations import relations_for as relations_for
    from services.arm_statements.text import fold as fold
    from services.arm_statements.text import is_page_furniture as is_page_furniture
    from services.arm_statements.variant import detect_form_variant as detect_form_variant
    from services.arm_statements.version import (
        compute_statements_version as compute_statements_version,
    )
    from services.arm_statements.version import statements_version as statements_version
    from services.arm_statements.warnings import DocumentWarning as DocumentWarning
    from services.arm_statements.warnings import Severity as Severity
    from services.arm_statements.warnings import StatementWarning as StatementWarning

_LAZY: dict[str, str] = {
    "Disagreement": "services.arm_statements.agreement",
    "Figure": "services.arm_statements.agreement",
    "RUBLE_LINES": "services.arm_statements.agreement",
    "Source": "services.arm_statements.agreement",
    "UNIT_SCALE": "services.arm_statements.agreement",
    "disagreements": "services.arm_statements.agreement",
    "figures_of": "services.arm_statements.agreement",
    "CodeKind": "services.arm_statements.catalogue",
    "LEGACY_INCOME_MAPPED": "services.arm_statements.catalogue",
    "LINES": "services.arm_statements.catalogue",
    "TARGET_USE_LINES": "services.arm_statements.catalogue",
    "classify_code": "services.arm_statements.catalogue",
    "legacy_income_line": "services.arm_statements.catalogue",
    "legacy_line_name": "services.arm_statements.catalogue",
    "lookup_line": "services.arm_statements.catalogue",
    "parent_code": "services.arm_statements.catalogue",
    "print_order": "services.arm_statements.catalogue",
    "target_use_line": "services.arm_statements.catalogue",
    "Checks": "services.arm_statements.checks",
    "DEFAULT_TOLERANCE": "services.arm_statements.checks",
    "LineValues": "services.arm_statements.checks",
    "RelationFailure": "services.arm_statements.checks",
    "RelationOptions": "services.arm_statements.checks",
    "RelationOutcome": "services.arm_statements.checks",
    "check_lines": "services.arm_statements.checks",
    "evaluate_relations": "services.arm_statements.checks",
    "CrossFinding": "services.arm_statements.cross_form",
    "OSV_RULES": "services.arm_statements.cross_form",
    "OsvRule": "services.arm_statements.cross_form",
    "osv_findings": "services.arm_statements.cross_form",
    "profit_movements": "services.arm_statements.cross_form",
    "ColumnRead": "services.arm_statements.document",
    "FROM_COLUMNS": "services.arm_statements.document",
    "HeaderField": "services.arm_statements.document",
    "HeaderRead": "services.arm_statements.document",
    "HeaderReview": "services.arm_statements.document",
    "LineRead": "services.arm_statements.document",
    "LineStatus": "services.arm_statements.document",
    "REVIEW_BELOW": "services.arm_statements.document",
    "StatementRead": "services.arm_statements.document",
    "ValueIssue": "services.arm_statements.document",
    "ValueRead": "services.arm_statements.document",
    "build_document": "services.arm_statements.document",
    "ArmStatementsError": "services.arm_statements.exceptions",
    "InvalidDocumentError": "services.arm_statements.exceptions",
    "InvalidToleranceError": "services.arm_statements.exceptions",
    "FormEvidence": "services.arm_statements.forms",
    "FormKind": "services.arm_statements.forms",
    "MIN_CODES": "services.arm_statements.forms",
    "MIN_NAMES": "services.arm_statements.forms",
    "OWN_NUMBERING_OKUD": "services.arm_statements.forms",
    "code_form": "services.arm_statements.forms",
    "codes_kind": "services.arm_statements.forms",
    "codes_said": "services.arm_statements.forms",
    "form_kind": "services.arm_statements.forms",
    "names_kind": "services.arm_statements.forms",
    "names_said": "services.arm_statements.forms",
    "okud_in_cells": "services.arm_statements.forms",
    "okud_kind": "services.arm_statements.forms",
    "title_kind": "services.arm_statements.forms",
    "CODE_LENGTHS": "services.arm_statements.header_fields",
    "HEADER_FIELDS": "services.arm_statements.header_fields",
    "INN_LENGTHS": "services.arm_statements.header_fields",
    "code_digits": "services.arm_statements.header_fields",
    "inn_checksum_ok": "services.arm_statements.header_fields",
    "normalize_units": "services.arm_statements.header_fields",
    "okei_for_units": "services.arm_statements.header_fields",
    "units_for_okei": "services.arm_statements.header_fields",
    "DocumentType": "services.arm_statements.line",
    "FormVariant": "services.arm_statements.line",
    "Line": "services.arm_statements.line",
    "LineForm": "services.arm_statements.line",
    "Standard": "services.arm_statements.line",
    "format_amount": "services.arm_statements.money",
    "format_money": "services.arm_statements.money",
    "is_blank_mark": "services.arm_statements.money",
    "kopecks": "services.arm_statements.money",
    "parse_amount": "services.arm_statements.money",
    "parse_exact": "services.arm_statements.money",
    "parse_money": "services.arm_statements.money",
    "show_amount": "services.arm_statements.money",
    "too_precise": "services.arm_statements.money",
    "match_line_name": "services.arm_statements.names",
    "match_target_use_name": "services.arm_statements.names",
    "name_candidates": "services.arm_statements.names",
    "normalize_name": "services.arm_statements.names",
    "PeriodKind": "services.arm_statements.periods",
    "date_in_text": "services.arm_statements.periods",
    "month_number": "services.arm_statements.periods",
    "parse_period_label": "services.arm_statements.periods",
    "report_date_in_texts": "services.arm_statements.periods",
    "resolve_relative": "services.arm_statements.periods",
    "CheckRule": "services.arm_statements.recomputation",
    "CheckedLine": "services.arm_statements.recomputation",
    "CoveredValue": "services.arm_statements.recomputation",
    "RecomputeResult": "services.arm_statements.recomputation",
    "recheck": "services.arm_statements.recomputation",
    "recheck_lines": "services.arm_statements.recomputation",
    "recompute": "services.arm_statements.recomputation",
    "Reading": "services.arm_statements.relations",
    "Relation": "services.arm_statements.relations",
    "RelationKind": "services.arm_statements.relations",
    "Term": "services.arm_statements.relations",
    "relations_for": "services.arm_statements.relations",
    "fold": "services.arm_statements.text",
    "is_page_furniture": "services.arm_statements.text",
    "detect_form_variant": "services.arm_statements.variant",
    "compute_statements_version": "services.arm_statements.version",
    "statements_version": "services.arm_statements.version",
    "DocumentWarning": "services.arm_statements.warnings",
    "Severity": "services.arm_statements.warnings",
    "StatementWarning": "services.arm_statements.warnings",
}
"""Each name the package shows → the module that defines it, imported on first use."""

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:  # mypy resolves the names above, and flags any other
    __getattr__, __dir__ = lazy_exports(globals(), _LAZY)
