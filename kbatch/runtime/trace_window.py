"""The trace's window of its newest lines, kept compressed in blocks.

A trace keeps its newest ``retained`` lines (``Trace.lines()``, ``kbatch serve``'s trace action). At
100,000 pods that window is ~100,000 lines of JSON, ~90 MiB as strings. Lines are appended and read
back only whole, so the window keeps the newest lines as they are and every earlier ``BLOCK`` of
lines as one zlib-compressed block (a JobSet run's lines compress 22x, at level 1 for ~2.6 µs
a line). Reading the window decompresses it; a window shorter than a block is never
compressed at all. Lines are appended as UTF-8 bytes (as the trace encodes them) and read back as
text; a line must not contain a newline (trace lines are compact JSON).

A CLI command keeps the lines it has yet to append to the state directory's trace file in an
:data:`UNBOUNDED` window, written out block by block (:meth:`Window.text`): an ``advance`` at 100,000
pods records ~90,000 lines (~60 MiB as strings), an ``apply`` of them several times more.
"""

from __future__ import annotations

import sys
import zlib
from collections import deque
from collections.abc import Iterator

__all__ = ["BLOCK", "UNBOUNDED", "Window"]

BLOCK = 1_000  # lines per compressed block
UNBOUNDED = sys.maxsize  # a window that keeps every line (the lines a CLI command has yet to write out)


class Window:
    """The newest ``maxlen`` lines appended (none with ``maxlen == 0``), as ``deque(maxlen=...)``
    would keep them."""

    __slots__ = ("_blocks", "_held", "_tail", "maxlen")

    def __init__(self, maxlen: int) -> None:
        self.maxlen = maxlen
        self._tail: list[bytes] = []  # UTF-8 lines, read back as text
        self._blocks: deque[tuple[bytes, int]] = deque()  # (compressed lines, how many), oldest first
        self._held = 0  # lines in the blocks

    def append(self, line: bytes) -> None:
        if not self.maxlen:
            return
        tail = self._tail
        tail.append(line)
        if self.maxlen < BLOCK:  # a small window is never compressed
            if len(tail) > self.maxlen:
                del tail[0]
            return
        if len(tail) < BLOCK:
            return
        self._blocks.append((zlib.compress(b"\n".join(tail), 1), len(tail)))
        self._held += len(tail)
        self._tail = []
        blocks = self._blocks
        while blocks and self._held - blocks[0][1] >= self.maxlen:  # the rest still fill the window
            self._held -= blocks.popleft()[1]

    def __len__(self) -> int:
        return min(self._held + len(self._tail), self.maxlen)

    def lines(self) -> list[str]:
        out: list[str] = []
        for text in self.text():
            out += text.split("\n")[:-1]  # each text ends in a newline
        return out

    def text(self) -> Iterator[str]:
        """The lines of :meth:`lines`, each ending in a newline, one block at a time: a large window
        is written out without ever being whole in memory."""
        excess = self._held + len(self._tail) - self.maxlen  # the oldest blocks may reach further back
        for block, count in self._blocks:
            if excess >= count:
                excess -= count
                continue
            text = zlib.decompress(block).decode() + "\n"
            if excess > 0:
                text = text.split("\n", excess)[-1]
                excess = 0
            yield text
        tail = self._tail[excess:] if excess > 0 else self._tail
        if tail:
            yield (b"\n".join(tail) + b"\n").decode()

    def empty_copy(self) -> Window:
        """A window of the same size holding nothing (what a saved trace carries)."""
        return Window(self.maxlen)
