# The C record walks (services/excel/_walk.c); the Python twins are `walk_xls_python` and
# `walk_xlsb_python`, whose result types these are.
from collections.abc import Set

from ._xls_scan import XlsWalk
from ._xlsb_scan import XlsbWalk

def walk_xls(stream: bytes, offset: int, bold_xfs: Set[int], traps: Set[int], /) -> XlsWalk: ...
def walk_xlsb(data: bytes, bold_xfs: Set[int], traps: Set[int], /) -> XlsbWalk: ...
