"""Full or simplified, from the structure of the codes (names as fallback)."""

from __future__ import annotations

import pytest

from services.arm_statements import detect_form_variant

from ._forms import FULL_BALANCE, FULL_INCOME, SIMPLIFIED_BALANCE, SIMPLIFIED_INCOME


@pytest.mark.parametrize(
    ("document_type", "codes", "expected"),
    [
        ("BALANCE", list(FULL_BALANCE), "full"),
        ("BALANCE", list(SIMPLIFIED_BALANCE), "simplified"),
        # the brief's example: no totals, aggregated lines only
        ("BALANCE", ["1150", "1170", "1210", "1230", "1250", "1600"], "simplified"),
        # NKO simplified: 1350 + 1360 instead of 1300
        ("BALANCE", ["1150", "1230", "1250", "1600", "1350", "1360", "1520", "1700"], "simplified"),
        # NKO full: the same codes as a company's, with section totals
        (
            "BALANCE",
            ["1150", "1100", "1200", "1310", "1320", "1350", "1360", "1300", "1700"],
            "full",
        ),
        # 157n full: goodwill and assets held for sale
        ("BALANCE", ["1105", "1150", "1215", "1230", "1600", "1700"], "full"),
        # a total alone, or a detail line alone, already means the full form
        ("BALANCE", ["1230", "1250", "1500", "1600"], "full"),
        ("BALANCE", ["1150", "1180", "1600"], "full"),
        ("BALANCE", ["1240", "1250", "1600"], "full"),
        # 1300 with one of its components is section III of the full form
        ("BALANCE", ["1300", "1370", "1600", "1700"], "full"),
        ("BALANCE", ["1300", "1350", "1600"], "full"),
        # the tax-office blank КНД 0710096 of an NKO: 1300 with 1350 / 1360 under it, and the
        # aggregated lines, no total (БФ «Марии Леонтьевой» 2021)
        (
            "BALANCE",
            [
                "1150",
                "1170",
                "1210",
                "1250",
                "1230",
                "1600",
                "1300",
                "1350",
                "1360",
                "1410",
                "1450",
                "1510",
                "1520",
                "1550",
                "1700",
            ],
            "simplified",
        ),
        # the ГИР БО simplified filing: 1300 and aggregated lines
        ("BALANCE", ["1230", "1250", "1300", "1520", "1600", "1700"], "simplified"),
        # org-added codes count as their parent
        ("BALANCE", ["11501", "1230", "1600"], "simplified"),
        ("BALANCE", ["11101", "1230", "1600"], "full"),
        ("INCOME", list(FULL_INCOME), "full"),
        ("INCOME", list(SIMPLIFIED_INCOME), "simplified"),
        ("INCOME", ["2110", "2120", "2100", "2400"], "full"),
        ("INCOME", ["2110", "2400", "2460"], "full"),
        ("INCOME", ["2110", "2120", "2330", "2340", "2350", "2410", "2400"], "simplified"),
        # nothing structural: neutral codes, legacy codes, no codes
        ("BALANCE", ["1600", "1700"], None),
        ("BALANCE", ["190", "290", "300", "700"], None),
        ("BALANCE", [], None),
        ("INCOME", ["1150", "1600"], None),
    ],
)
def test_variant_follows_the_structure_of_codes(
    document_type: str, codes: list[str], expected: str | None
) -> None:
    """Section totals and detail lines mean full; only aggregated lines mean simplified."""
    assert detect_form_variant(document_type, codes) == expected


def test_disclosure_has_no_variant() -> None:
    """DISCLOSURE (and anything not a balance or ОФР) is None, whatever its codes."""
    assert detect_form_variant("DISCLOSURE", ["1100", "1200"]) is None
    assert detect_form_variant("OTHER", ["2110"]) is None


def test_names_decide_when_codes_cannot() -> None:
    """157n simplified sample forms have no codes: their names say simplified."""
    simplified_names = [
        "Материальные внеоборотные активы 5",
        "Нематериальные, финансовые и другие внеоборотные активы 6",
        "Запасы",
        "Денежные средства и денежные эквиваленты",
        "Финансовые и другие оборотные активы 7",
        "БАЛАНС",
        "Капитал",
        "Долгосрочные заемные средства",
        None,
    ]
    full_names = ["Основные средства", "Запасы", "Итого по разделу I", "Итого по разделу II"]
    assert detect_form_variant("BALANCE", [], simplified_names) == "simplified"
    assert detect_form_variant("BALANCE", [], full_names) == "full"
    assert (
        detect_form_variant("INCOME", [], ["Выручка", "Расходы по обычным видам деятельности 10"])
        == "simplified"
    )
    assert detect_form_variant("INCOME", [], ["Выручка", "Себестоимость продаж"]) == "full"
    assert detect_form_variant("INCOME", [], ["Выручка", "Прочие доходы"]) is None


def test_codes_win_over_names() -> None:
    """Names are only a fallback: a structural answer from codes is kept."""
    assert detect_form_variant("BALANCE", ["1100", "1600"], ["Капитал"]) == "full"
