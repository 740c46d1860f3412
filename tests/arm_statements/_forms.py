"""Hand-made statements shared by the tests (realistic amounts, in thousands)."""

from __future__ import annotations

from decimal import Decimal

from services.arm_statements import LineValues


def one_column(amounts: dict[str, int | str], column: int = 3) -> LineValues:
    """``{code: {column: Decimal}}`` for a form printed in one value column."""
    return {code: {column: Decimal(amount)} for code, amount in amounts.items()}


FULL_BALANCE: dict[str, int | str] = {
    "1110": 3762, "1150": 10756, "1180": 8505, "1190": 3429, "1100": 26452,
    "1210": 44070, "1220": 2, "1230": 88083, "1240": 6219078, "1250": 132030, "1260": 12599,
    "1200": 6495862,
    "1600": 6522314,
    "1310": 10000, "1320": -500, "1350": 20000, "1360": 1500, "1370": 348507, "1300": 379507,
    "1410": 500000, "1420": 3008, "1430": 5000, "1400": 508008,
    "1510": 5114962, "1520": 506466, "1530": 371, "1540": 11398, "1550": 1602, "1500": 5634799,
    "1700": 6522314,
}  # fmt: skip

FULL_INCOME: dict[str, int | str] = {
    "2110": 1469293, "2120": -45957, "2100": 1423336,
    "2210": -2529, "2220": -219862, "2200": 1200945,
    "2320": 28273, "2330": -1063289, "2340": 34592, "2350": -40227, "2300": 160294,
    "2410": -42059, "2411": -46647, "2412": 4588, "2400": 118235,
    "2500": 118235,
}  # fmt: skip

SIMPLIFIED_BALANCE: dict[str, int | str] = {
    "1150": 100, "1170": 50, "1210": 200, "1230": 300, "1250": 350, "1600": 1000,
    "1300": 400, "1410": 100, "1450": 50, "1510": 150, "1520": 250, "1550": 50, "1700": 1000,
}  # fmt: skip

SIMPLIFIED_INCOME: dict[str, int | str] = {
    "2110": 5000, "2120": -4000, "2330": -100, "2340": 300, "2350": -200, "2410": 200,
    "2400": 800,
}  # fmt: skip
