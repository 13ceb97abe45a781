"""Go's ``text/tabwriter`` (the elastic tabstops kubectl aligns its output with), for text with tabs.

The rules are Go's (``src/text/tabwriter/tabwriter.go``, ``format`` and ``writeLines``): a line is a
list of cells, each cell but the last ended by a tab. Column ``k`` is aligned over a *block* of
consecutive lines that all have a tab-terminated cell ``k``; a line with fewer cells ends the block, so
a title line without tabs (``Allocated resources:``) starts a new alignment below it. A column's width
is its widest cell plus ``padding`` (at least ``minwidth``); tab-terminated cells are padded to it, the
last cell of a line is written as is. Text is measured in characters (Go counts runes).

kubectl's settings: ``describe`` writes through ``tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)``
(k8s.io/kubectl ``pkg/describe/describe.go``, ``tabbedString``); ``get`` and ``top`` through cli-runtime's
``GetNewTabWriter`` (minwidth 6, padding 3, ``pkg/printers/tabwriter.go``).
"""

from __future__ import annotations

__all__ = ["tabwrite"]


def _format(lines: list[list[str]], widths: list[int], first: int, last: int, out: list[str],
            minwidth: int, padding: int) -> None:
    column = len(widths)
    start = first
    row = first
    while row < last:
        if column >= len(lines[row]) - 1:
            row += 1
            continue
        _write(lines, widths, start, row, out)
        start = row
        width = minwidth
        while row < last and column < len(lines[row]) - 1:
            width = max(width, len(lines[row][column]) + padding)
            row += 1
        _format(lines, [*widths, width], start, row, out, minwidth, padding)
        start = row
    _write(lines, widths, start, last, out)


def _write(lines: list[list[str]], widths: list[int], first: int, last: int, out: list[str]) -> None:
    for cells in lines[first:last]:
        out.append("".join(cell.ljust(widths[j]) if j < len(widths) and j < len(cells) - 1 else cell
                           for j, cell in enumerate(cells)))


def tabwrite(text: str, *, minwidth: int = 0, padding: int = 2) -> str:
    """``text`` aligned as Go's tabwriter with padchar ``' '`` and no flags would write it."""
    raw = text.split("\n")
    lines = [line.split("\t") for line in raw]
    out: list[str] = []
    _format(lines, [], 0, len(lines), out, minwidth, padding)
    return "\n".join(out)
