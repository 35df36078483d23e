"""`tvm.contrib.utils`: `tempdir()`, the temporary folder TVM's export examples write into."""

from __future__ import annotations

import os
import shutil
import tempfile


class TempDirectory:
    """A temporary directory removed when the object is (`keep_for_debug` keeps it)."""

    def __init__(self, custom_path: str | None = None, keep_for_debug: bool = False) -> None:
        if custom_path:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = custom_path
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="tvmlite_")
        self._keep = keep_for_debug or bool(custom_path)

    @property
    def path(self) -> str:
        """The directory itself (TVM's attribute)."""
        return self.temp_dir

    def relpath(self, name: str) -> str:
        """The path of `name` inside the directory."""
        return os.path.join(self.temp_dir, name)

    def listdir(self) -> list[str]:
        return os.listdir(self.temp_dir)

    def remove(self) -> None:
        if not self._keep and os.path.isdir(self.temp_dir):
            shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __del__(self) -> None:
        self.remove()

    def __enter__(self) -> "TempDirectory":
        return self

    def __exit__(self, *_: object) -> None:
        self.remove()


def tempdir(custom_path: str | None = None, keep_for_debug: bool = False) -> TempDirectory:
    """TVM's `utils.tempdir()`: a fresh temporary directory."""
    return TempDirectory(custom_path, keep_for_debug)


__all__ = ["TempDirectory", "tempdir"]
