"""conformance's HttpTarget against ``kbatch serve``: ``wait_for`` jumps deadline to deadline."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conformance.http_target import CLOCK_PATH, HttpTarget
from conformance.kubeconfig import load_kubeconfig
from kbatch.server.process import ServeProcess

JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "deadline"},
       "spec": {"activeDeadlineSeconds": 300, "template": {"spec": {
           "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    proc = ServeProcess(tmp_path_factory.mktemp("serve-deadlines"), controllers="job").start()
    try:
        yield proc
    finally:
        assert proc.stop() == 0, "".join(proc.output)


@pytest.fixture
def target(server: ServeProcess) -> Iterator[HttpTarget]:
    t = HttpTarget(load_kubeconfig(server.kubeconfig))
    yield t
    t.close()


def _count_clock_posts(target: HttpTarget) -> list[Any]:
    posts: list[Any] = []
    request = target.api.request

    def counting(method: str, path: str, **kwargs: Any) -> Any:
        if method == "POST" and path == CLOCK_PATH:
            posts.append(kwargs.get("body"))
        return request(method, path, **kwargs)

    target.api.request = counting  # type: ignore[method-assign]
    return posts


def _failed(target: Any) -> bool:
    job = target.get("Job", "deadline") or {}
    return any(c.get("type") == "Failed" and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or ())


def _in_process_wait() -> float:
    """The same wait on the in-process target: the virtual seconds it takes."""
    from conformance.kbatch_target import KbatchTarget

    local = KbatchTarget(controllers="job")
    local.apply(JOB)
    start = local.now()
    assert local.wait_for(lambda: _failed(local), 600)  # type: ignore[arg-type]
    return (local.now() - start).total_seconds()


def test_wait_for_jumps_deadline_to_deadline_like_the_in_process_target(target: HttpTarget) -> None:
    target.apply(JOB)  # no kubelet: the pod never runs, the Job fails past its 300 s deadline
    start = target.now()
    posts = _count_clock_posts(target)
    assert target.wait_for(lambda: _failed(target), 600)
    assert (target.now() - start).total_seconds() == _in_process_wait()
    assert 1 <= len(posts) <= 4 and all(p.get("untilNextDeadline") for p in posts)  # not 300 1-s steps
    target.delete("Job", "deadline", propagation_policy="Background")


def test_wait_for_without_a_deadline_stops_at_the_timeout(target: HttpTarget) -> None:
    start = target.now()
    posts = _count_clock_posts(target)
    assert not target.wait_for(lambda: False, 7.5)
    assert (target.now() - start).total_seconds() == 7.5 and 1 <= len(posts) <= 3
