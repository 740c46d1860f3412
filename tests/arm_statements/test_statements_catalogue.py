"""The line catalogue and name matching."""

from __future__ import annotations

import pytest

from services.arm_statements import (
    LINES,
    classify_code,
    legacy_income_line,
    legacy_line_name,
    lookup_line,
    match_line_name,
    parent_code,
    relations_for,
)


@pytest.mark.parametrize(
    ("document_type", "variant"),
    [("BALANCE", "full"), ("BALANCE", "simplified"), ("INCOME", "full"), ("INCOME", "simplified")],
)
def test_every_relation_code_is_a_catalogue_line_of_its_form(
    document_type: str, variant: str
) -> None:
    """Relations only name catalogue lines of the same form, and simplified ones only lines
    the simplified form has; an optional term (a line organisations add, 2115) is no
    catalogue line."""
    relations = relations_for(document_type, variant)  # type: ignore[arg-type]
    assert relations
    for relation in relations:
        optional = {t.code for t in relation.terms if t.optional}
        assert all(lookup_line(code) is None for code in optional), relation.name
        for code in relation.codes:
            if code in optional:
                continue
            line = lookup_line(code)
            assert line is not None, (relation.name, code)
            assert line.document_type == document_type
            if variant == "simplified":
                assert line.in_simplified, (relation.name, code)


def test_relation_names_are_unique_and_start_with_their_target() -> None:
    """Relation names are stable identifiers: unique per form, written target first."""
    for document_type in ("BALANCE", "INCOME"):
        for variant in ("full", "simplified"):
            relations = relations_for(document_type, variant)  # type: ignore[arg-type]
            names = [r.name for r in relations]
            assert len(names) == len(set(names))
            assert all(r.name.startswith(r.target + "=") for r in relations)


def test_catalogue_has_157n_additions_and_official_names() -> None:
    """157n lines are present with their names; 1160 carries its 157n wording."""
    assert lookup_line("1105") is not None and lookup_line("1105").name == "Гудвил"  # type: ignore[union-attr]
    for code in ("1215", "2420", "2460"):
        line = lookup_line(code)
        assert line is not None
    line_1160 = LINES["1160"]
    assert line_1160.name_for("full", standard="157n") == "Инвестиционная недвижимость"
    assert line_1160.name_for("full") == "Доходные вложения в материальные ценности"
    assert LINES["1600"].section == "II" and LINES["1370"].section == "III"


def test_shared_codes_carry_simplified_and_nko_meanings() -> None:
    """The same code names a different line in the simplified form and in the NKO variant."""
    assert LINES["1150"].name_for("simplified") == "Материальные внеоборотные активы"
    assert LINES["1230"].name_for("simplified") == "Финансовые и другие оборотные активы"
    assert LINES["2120"].name_for("simplified", standard="157n") == (
        "Расходы по обычным видам деятельности"
    )
    assert LINES["1300"].name_for("simplified", standard="157n") == "Капитал"
    assert LINES["1320"].name_for("full", nko=True) == "Целевой капитал"
    assert LINES["1310"].name_for("full", nko=True) == "Паевой фонд"
    assert LINES["1110"].name_for("simplified") is None


def test_code_kinds_cover_org_added_and_legacy_codes() -> None:
    """Five-digit codes point at their parent; three-digit codes are legacy; nothing raises."""
    assert parent_code("11501") == "1150"
    assert parent_code("13701") == "1370"
    assert parent_code("99991") is None and parent_code("1150") is None
    assert classify_code("1150") == "catalogue"
    assert classify_code("11501") == "org_added"
    assert classify_code("190") == "legacy"
    assert classify_code("abc") == "unknown" and classify_code("") == "unknown"
    assert legacy_line_name("BALANCE", "700") == "БАЛАНС"
    assert legacy_line_name("INCOME", "010") == "Выручка"
    assert legacy_line_name("INCOME", "999") is None


@pytest.mark.parametrize(
    ("text", "document_type", "variant", "code"),
    [
        ("Выручка7", "INCOME", None, "2110"),
        ("Выручка 7", "INCOME", "full", "2110"),
        ("Себестоимость продаж)5", "INCOME", None, "2120"),
        ("Валовая прибыль (убыток)", "INCOME", None, "2100"),
        ("Валовая прибыль", "INCOME", None, "2100"),
        ("ПРИБЫЛЬ (УБЫТОК) ОТ ПРОДАЖ", "INCOME", None, "2200"),
        ("в т.ч. текущий налог на прибыль", "INCOME", None, "2411"),
        ("в т. ч.: текущий налог на прибыль", "INCOME", None, "2411"),
        ("в том числе текущий налог на прибыль", "INCOME", None, "2411"),
        ("отложенный налог на прибыль", "INCOME", None, "2412"),
        ("Налог на прибыль (доходы) организаций 11", "INCOME", "simplified", "2410"),
        ("Налоги на прибыль (доходы)", "INCOME", None, "2410"),
        ("Расходы по обычным видам деятельности 10", "INCOME", None, "2120"),
        ("Расходы по обычной деятельности", "INCOME", "simplified", "2120"),
        ("Чистая прибыль (убыток)", "INCOME", None, "2400"),
        ("Материальные внеоборотные активы 5", "BALANCE", None, "1150"),
        ("Нематериальные, финансовые и другие внеоборотные активы6", "BALANCE", None, "1170"),
        ("Финансовые и другие оборотные активы 7", "BALANCE", None, "1230"),
        ("Денежные средства и денежные эквиваленты", "BALANCE", None, "1250"),
        ("Ден. средства и ден. эквиваленты", "BALANCE", None, "1250"),
        ("Нераспределённая прибыль (непокрытый убыток)", "BALANCE", None, "1370"),
        ("Нераспределенная прибыль", "BALANCE", "full", "1370"),
        ("Итого по разделу III", "BALANCE", None, "1300"),
        ("Итого по разделу 3", "BALANCE", None, "1300"),
        ("Итого по разделу I", "BALANCE", None, "1100"),
        ("Гудвил", "BALANCE", None, "1105"),
        ("Инвестиционная недвижимость", "BALANCE", None, "1160"),
        ("НДС по приобретенным ценностям", "BALANCE", None, "1220"),
        ("Налог на добавленную стоимость по приобретённым ценностям", "BALANCE", None, "1220"),
        ("Капитал", "BALANCE", "simplified", "1300"),
        ("Капитал и резервы", "BALANCE", "simplified", "1300"),
        ("Целевые средства", "BALANCE", None, "1350"),
        ("Паевой фонд", "BALANCE", "full", "1310"),
        ("Краткосрочная кредиторская задолженность", "BALANCE", None, "1520"),
        ("Долгосрочные заемные средства", "BALANCE", None, "1410"),
        ("Другие краткосрочные обязательства", "BALANCE", None, "1550"),
    ],
)
def test_match_line_name_recognises_printed_names(
    text: str, document_type: str, variant: str | None, code: str
) -> None:
    """Official names of full and simplified forms match despite footnotes, case, ё, brackets
    and abbreviations."""
    assert match_line_name(text, document_type, variant) == code  # type: ignore[arg-type]


def test_names_printed_twice_need_the_line_above() -> None:
    """«БАЛАНС», «Заемные средства» and «Финансовые вложения» resolve by the preceding line."""
    assert match_line_name("БАЛАНС", "BALANCE") is None
    assert match_line_name("БАЛАНС", "BALANCE", after="1200") == "1600"
    assert match_line_name("БАЛАНС", "BALANCE", after="1550") == "1700"
    assert match_line_name("Заемные средства", "BALANCE", "full") is None
    assert match_line_name("Заемные средства", "BALANCE", "full", after="1300") == "1410"
    assert match_line_name("Заемные средства", "BALANCE", "full", after="1400") == "1510"
    assert match_line_name("Финансовые вложения", "BALANCE", "full") == "1170"
    assert match_line_name("Финансовые вложения", "BALANCE", "full", after="1230") == "1240"


def test_headers_and_unknown_texts_are_not_lines() -> None:
    """Section headers, other documents' names and DISCLOSURE give None."""
    assert match_line_name("III. КАПИТАЛ И РЕЗЕРВЫ", "BALANCE") is None
    assert match_line_name("Капитал и резервы", "BALANCE", "full") is None
    assert match_line_name("АКТИВ", "BALANCE") is None
    assert match_line_name("Выручка", "BALANCE") is None
    assert match_line_name("Выручка", "DISCLOSURE") is None
    assert match_line_name("", "INCOME") is None


def test_a_legacy_income_code_maps_only_when_its_name_agrees() -> None:
    """67н 010 «Выручка (нетто) …» is 2110 and 190 «Чистая прибыль …» 2400; the same code under
    another form's name (100 «Остаток на начало периода») or a tax line (150) maps to nothing."""
    assert legacy_income_line("010", "Выручка (нетто) от продажи продукции") == "2110"
    assert legacy_income_line("190", "Чистая прибыль (убыток) отчетного периода") == "2400"
    assert legacy_income_line("100", "Прочие расходы") == "2350"
    assert legacy_income_line("100", "Остаток на начало периода") is None
    assert legacy_income_line("150", "Текущий налог на прибыль") is None
    assert legacy_income_line("010", None) is None
