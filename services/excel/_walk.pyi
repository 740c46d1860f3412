# The C record walks (services/excel/_walk.c); the Python twins are `walk_xls_python` and
# `walk_xlsb_python`, whose result types these are. The style sets must be sets of ints.
from ._xls_scan import XlsWalk
from ._xlsb_scan import XlsbWalk

def walk_xls(
    stream: bytes, offset: int, bold_xfs: frozenset[int], traps: frozenset[int], /
) -> XlsWalk: ...
def walk_xlsb(data: bytes, bold_xfs: frozenset[int], traps: frozenset[int], /) -> XlsbWalk: ...
