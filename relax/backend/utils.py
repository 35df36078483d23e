"""`tvm.relax.backend.utils`: checks shared by the backends' patterns (backend/patterns.py)."""

from ...backend.patterns import has_leaking_intermediate_variables  # noqa: F401
