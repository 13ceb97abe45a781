"""Progress bars for long virtual-time spans (``advance``, ``wait``, ``experiment run``).

Drawn with rich on stderr, and only when stderr is a terminal: piped or redirected, the commands
print exactly what they print without it. A bar shows the virtual time reached of the span, the
objects stored and the store writes per wall-clock second (rich measures the wall clock for the
display; nothing the simulation decides depends on it). Transient: the bar is gone when the command
prints its result.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ProgressBars", "progress_bars", "store_counts", "wanted"]


def wanted() -> bool:
    """Whether to draw: stderr is a terminal."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def store_counts(backend: Any) -> tuple[int | None, int | None]:
    """(objects stored, store revision) of a local backend's control plane; (None, None) remotely."""
    cp = getattr(backend, "control_plane", None)
    store = getattr(cp, "store", None)
    if store is None:
        return None, None
    return int(store.range(b"/", b"0", count_only=True).count), int(store.revision)


def _virtual(seconds: float) -> str:
    from kbatch.runtime.duration import format_duration

    return format_duration(round(seconds, 3))


class _Rate:
    """A rich column: store writes per wall-clock second of the task."""

    def __new__(cls) -> Any:
        from rich.progress import ProgressColumn
        from rich.text import Text

        class Rate(ProgressColumn):
            def render(self, task: Any) -> Text:
                writes, elapsed = task.fields.get("writes"), task.elapsed
                if not writes or not elapsed:
                    return Text("")
                return Text(f"{writes / elapsed:,.0f} writes/s")

        return Rate()


class ProgressBars:
    """One bar per task: ``add(label, total_seconds)`` then ``update(task, reached, objects, writes)``."""

    def __init__(self, progress: Any) -> None:
        self._progress = progress
        self._base: dict[int, int] = {}

    def add(self, label: str, total: float) -> int:
        task = self._progress.add_task(label, total=total, reached="0s", of=_virtual(total), objects="",
                                       writes=0)
        return int(task)

    def update(self, task: int, reached: float, objects: int | None = None,
               writes: int | None = None) -> None:
        fields: dict[str, Any] = {"reached": _virtual(reached)}
        if objects is not None:
            fields["objects"] = f"{objects:,} objects"
        if writes is not None:
            base = self._base.setdefault(task, writes)
            fields["writes"] = writes - base
        self._progress.update(task, completed=reached, **fields)


@contextmanager
def progress_bars(enabled: bool | None = None) -> Iterator[ProgressBars | None]:
    """Bars on stderr if ``enabled`` (default: :func:`wanted`), else ``None``."""
    if not (wanted() if enabled is None else enabled):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[reached]} of "
                                                                         "{task.fields[of]}"),
               TextColumn("{task.fields[objects]}"), _Rate(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        yield ProgressBars(progress)
