"""The project's C extensions; everything else about the package is in pyproject.toml.

- `services.excel._walk`: the record walks of the XLS / XLSB sheet passes (their Python twins
  in services/excel/_xls_scan.py and _xlsb_scan.py are the reference and the fallback;
  tests/excel/test_walk_kernels.py holds them equal);
- `services.excel._cells`: the cell primitives of large sheets (squash, the money string, the
  sums of a row; tests/excel/test_cell_kernels.py holds them equal to the Python functions).

Both are optional so that a machine without a C compiler still installs; then the kernel tests
fail unless ARM_KA_PURE_PYTHON=1 says the Python kernels are meant, and the image's build stage
refuses a wheel without them.
"""

from setuptools import Extension, setup

_HARDENED = ["-O2", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2"]

setup(
    ext_modules=[
        Extension(
            f"services.excel.{name}",
            sources=[f"services/excel/{name}.c"],
            extra_compile_args=_HARDENED,
            optional=True,
        )
        for name in ("_walk", "_cells")
    ]
)
