"""The trace's compressed window keeps exactly what ``deque(maxlen=n)`` keeps (trace_window.py)."""

from __future__ import annotations

import json
from collections import deque

import hypothesis.strategies as st
from hypothesis import example, given, settings

from kbatch.runtime import trace_window
from kbatch.runtime.trace_window import Window

lines = st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=12)


@given(st.integers(0, 12) | st.just(trace_window.UNBOUNDED), st.lists(lines, max_size=60), st.integers(1, 5))
@settings(max_examples=400, deadline=None)
@example(4, [""] * 8, 3)  # the oldest kept block lies wholly before the window (found by CI)
def test_the_window_keeps_what_a_bounded_deque_keeps(maxlen: int, appended: list[str], block: int) -> None:
    original = trace_window.BLOCK
    trace_window.BLOCK = block  # small blocks: compression, block dropping and partial blocks all happen
    try:
        window, reference = Window(maxlen), deque(maxlen=maxlen)
        for line in appended:
            window.append(line.encode())
            reference.append(line)
            assert len(window) == len(reference)
        assert window.lines() == list(reference)
        assert "".join(window.text()) == "".join(line + "\n" for line in reference)
        assert window.empty_copy().lines() == [] and window.empty_copy().maxlen == maxlen
    finally:
        trace_window.BLOCK = original


def test_a_full_size_window_is_compressed_and_bounded() -> None:
    window = Window(2_500)
    records = [json.dumps({"kind": "Pod", "name": f"pod-{i}", "verb": "update", "rev": i})
               for i in range(10_000)]
    for line in records:
        window.append(line.encode())
    assert window.lines() == records[-2_500:]
    held = sum(len(b) for b, _ in window._blocks)
    assert held < sum(len(line) for line in records[-3_500:]) / 3  # blocks are compressed
    assert sum(n for _, n in window._blocks) <= 2_500 + trace_window.BLOCK  # and only as many as needed
