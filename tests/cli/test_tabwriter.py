"""kbatch.api.tabwriter: Go's text/tabwriter column blocks (what kubectl's describe and get align with)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.tabwriter import tabwrite
from kbatch.cli.render import align


def test_go_elastic_example() -> None:
    # Go's text/tabwriter Example_elastic, left-aligned: the b's and the d's sit in the second cell of
    # their lines but in different column blocks, because the "aaa" line ends the first block
    text = "a\tb\tc\naa\tbb\tcc\naaa\t\naaaa\tdddd\teeee"
    assert tabwrite(text, padding=1).split("\n") == ["a    b  c", "aa   bb cc", "aaa  ", "aaaa dddd eeee"]


def test_a_line_without_tabs_starts_new_columns() -> None:
    text = "Long title cell:\tx\nplain line\n  a\tb"
    assert tabwrite(text).split("\n") == ["Long title cell:  x", "plain line", "  a  b"]


def test_empty_cells_take_the_padding() -> None:
    # kubectl's pods table writes Name\t\t: the empty column is two spaces wide
    assert tabwrite("N\tName\t\tCPU\nx\ty\t\tz") == "N  Name    CPU\nx  y       z"


cell = st.text(alphabet="abcXYZ-() %", min_size=0, max_size=8)


@given(st.integers(1, 5).flatmap(lambda n: st.lists(st.lists(cell, min_size=n, max_size=n), min_size=1,
                                                    max_size=6)))
def test_rectangular_tables_match_kubectl_get_alignment(rows: list[list[str]]) -> None:
    """With every line having the same cells, one block per column: the get printer's alignment."""
    expected = align(rows).split("\n")
    got = [line.rstrip() for line in tabwrite("\n".join("\t".join(r) for r in rows),
                                              minwidth=6, padding=3).split("\n")]
    assert got == [line.rstrip() for line in expected]


@given(st.lists(st.lists(cell, min_size=1, max_size=4), min_size=1, max_size=8), st.integers(0, 4))
def test_lines_are_their_cells_padded(rows: list[list[str]], padding: int) -> None:
    """Each written line is its cells in order, each tab-terminated cell followed by at least
    ``padding`` spaces, and consecutive lines with the same number of cells line up column by column."""
    import re

    out = tabwrite("\n".join("\t".join(r) for r in rows), padding=padding).split("\n")
    assert len(out) == len(rows)
    for line, cells in zip(out, rows, strict=True):
        pattern = "".join(re.escape(c) + (f" {{{padding},}}" if i < len(cells) - 1 else "")
                          for i, c in enumerate(cells))
        assert re.fullmatch(pattern, line)
    for i in range(len(rows) - 1):
        if len(rows[i]) == len(rows[i + 1]) and len(rows[i]) > 1:
            assert len(out[i]) - len(rows[i][-1]) == len(out[i + 1]) - len(rows[i + 1][-1])
