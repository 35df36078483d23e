"""`tvm.relax.frontend.torch.exported_program_translator`: TVM 0.27's module of the importer
(frontend/torch/exported_program.py), where custom converters find `ExportedProgramImporter`."""

from ....frontend.torch.exported_program import (  # noqa: F401
    ExportedProgramImporter,
    from_exported_program,
)
