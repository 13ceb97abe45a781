"""The one error of an experiment file: what is wrong and where (``spec.workloads[0].count``).

Every check of an experiment — reading the file, the sweep, a point's spec, a manifest the control
plane refuses — raises :class:`ExperimentError`; the CLI prints ``error: FILE: PATH: MESSAGE`` and
exits 1 before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ExperimentError", "field_path"]


def field_path(parts: Iterable[str | int]) -> str:
    """``("spec", "workloads", 0, "count")`` → ``spec.workloads[0].count`` (Kubernetes' field path)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


class ExperimentError(ValueError):
    """A bad experiment: ``path`` is the field path (empty for the file as a whole)."""

    def __init__(self, path: str, message: str, point: str | None = None) -> None:
        self.path = path
        self.message = message
        self.point = point
        where = f"{path}: " if path else ""
        at = f" (sweep point {point})" if point else ""
        super().__init__(f"{where}{message}{at}")

    def __reduce__(self) -> tuple[type[ExperimentError], tuple[str, str, str | None]]:
        return (ExperimentError, (self.path, self.message, self.point))  # crosses process pools
