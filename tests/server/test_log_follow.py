"""The decisions of a followed log (:mod:`kbatch.server.log_follow`): what each step sends, which run
a stream is on. The HTTP behaviour is tested with kubectl (test_kubectl_logs_follow.py) and the
official client (test_python_client.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from kbatch.server.log_follow import FollowState, follow_step, run_of
from kbatch.server.pod_log_options import LogOptions, cut_log

EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def _lines(texts: list[str]) -> list[tuple[datetime, str]]:
    return [(EPOCH + timedelta(seconds=i), text) for i, text in enumerate(texts)]


@given(texts=st.lists(st.text("abc", max_size=4), max_size=8), cuts=st.lists(st.integers(0, 8), max_size=4),
       limit=st.none() | st.integers(1, 30), since=st.none() | st.integers(0, 8), stamps=st.booleans())
def test_a_followed_log_is_the_whole_log_sent_in_pieces(texts: list[str], cuts: list[int], limit: int | None,
                                                        since: int | None, stamps: bool) -> None:
    # the kubelet's ReadLogs (pkg/kubelet/kuberuntime/logs/logs.go): however the writes are spread
    # over time, a follower receives the lines the options select, once each, at most limitBytes
    lines = _lines(texts)
    opts = LogOptions(limit_bytes=limit, timestamps=stamps,
                      since=None if since is None else EPOCH + timedelta(seconds=since))
    state, sent = FollowState(), b""
    for cut in [*sorted(cuts), len(lines)]:
        data, state = follow_step(lines[:cut], state, opts)
        sent += data
    assert sent == cut_log(lines, opts)


def test_tail_lines_cut_only_what_is_there_when_the_stream_starts() -> None:
    lines = _lines(["a", "b", "c", "d"])
    opts = LogOptions(tail_lines=1)
    first, state = follow_step(lines[:2], FollowState(), opts)
    later, _ = follow_step(lines, state, opts)
    assert (first, later) == (b"b\n", b"c\nd\n")


def test_run_of_names_the_run_a_stream_follows() -> None:
    pod = {"status": {"containerStatuses": [{
        "name": "c", "state": {"running": {"startedAt": "2025-01-01T00:00:30Z"}},
        "lastState": {"terminated": {"startedAt": "2025-01-01T00:00:00Z", "exitCode": 1}}}]}}
    assert run_of(pod, "c") == ("running", "2025-01-01T00:00:30Z")
    assert run_of(pod, "other") == ("waiting", None)
