"""The TVMScript parser: a core AST walker (`core`) with one handler set per dialect."""
