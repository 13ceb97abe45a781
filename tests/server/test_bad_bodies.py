"""Bodies with values of the wrong JSON type through ``kbatch serve``: POSTed raw (the same mutations as
tests/cli/test_bad_manifests.py) they are a 400 ``Status`` in kube-apiserver's words and nothing is
stored; applied with the real kubectl, kubectl prints the lines it prints against kube-apiserver."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.cli.test_bad_manifests import EXAMPLES, mutated


def _post_all(docs: list[Any]) -> list[httpx.Response]:
    backend = ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=KbatchApp(backend))
        async with httpx.AsyncClient(transport=transport, base_url="http://kbatch") as client:
            out = []
            for doc in docs:
                kind = doc.get("kind") if isinstance(doc, dict) else None
                url = "/api/v1/namespaces/default/pods" if kind == "Pod" else \
                    "/apis/batch/v1/namespaces/default/jobs"
                out.append(await client.post(url, content=json.dumps(doc)))
            out.append(await client.get("/apis/batch/v1/jobs"))
            out.append(await client.get("/api/v1/pods"))
            return out

    return asyncio.run(go())


@settings(max_examples=40, deadline=None)
@given(st.lists(mutated(), min_size=1, max_size=4))
def test_serve_post_answers_400_with_a_status_and_stores_nothing(cases: list[Any]) -> None:
    docs = [doc["items"][0] if doc.get("kind") == "List" else doc for doc, _ in cases]
    *answers, jobs, pods = _post_all(docs)
    for answer in answers:
        body = answer.json()
        assert answer.status_code == 400, body
        assert body["kind"] == "Status" and body["reason"] == "BadRequest" and body["message"]
    assert jobs.json()["items"] == [] and pods.json()["items"] == []


KUBECTL = shutil.which("kubectl")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_real_kubectl_prints_the_same_lines(served: Any, tmp_path: Path) -> None:
    for doc, line in EXAMPLES:
        path = tmp_path / "m.json"
        path.write_text(json.dumps(doc))
        out = subprocess.run([KUBECTL, "apply", "-f", str(path)], env=served.env(), capture_output=True,
                             text=True, timeout=30)
        expected = line.replace("FILE", str(path))
        if expected.startswith("Error from server"):  # kubectl names what it was doing
            expected = expected.replace("): ", f'): error when creating "{path}": ', 1)
        elif "error validating" in expected:
            expected += "; if you choose to ignore these errors, turn validation off with --validate=false"
        assert out.returncode == 1 and out.stderr.strip() == expected
    listed = subprocess.run([KUBECTL, "get", "jobs,pods", "-o", "name"], env=served.env(),
                            capture_output=True, text=True, timeout=30)
    assert "fuzz" not in listed.stdout


scalars = (st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4))  # JSON has neither
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=2)
                           | st.dictionaries(st.text(max_size=3), inner, max_size=2), max_leaves=4)
delete_bodies = st.one_of(json_values, st.dictionaries(
    st.sampled_from(["gracePeriodSeconds", "preconditions", "propagationPolicy", "orphanDependents", "dryRun",
                     "kind", "apiVersion"]), json_values, max_size=3))


@settings(max_examples=60, deadline=None)
@given(st.lists(delete_bodies, min_size=1, max_size=4))
def test_delete_bodies_of_any_shape_are_never_a_500(bodies: list[Any]) -> None:
    """A DeleteOptions body of the wrong JSON types is a 400 in Go's words, any other a delete
    (found by fuzzing: a non-object ``preconditions`` and a non-integer ``gracePeriodSeconds`` were
    500s, a grace period past year 9999 overflowed the deletion timestamp)."""
    backend = ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}]}}

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=KbatchApp(backend))
        async with httpx.AsyncClient(transport=transport, base_url="http://kbatch") as http:
            out = []
            for body in bodies:
                await http.post("/api/v1/namespaces/default/pods", json=pod)
                out.append(await http.request("DELETE", "/api/v1/namespaces/default/pods/p",
                                              content=json.dumps(body)))
            return out

    for answer in asyncio.run(go()):
        assert answer.status_code in (200, 400, 404, 409, 422), answer.text
        if answer.status_code == 400:
            assert answer.json()["message"].startswith("json: cannot unmarshal ")


def test_a_grace_period_past_year_9999_saturates_the_deletion_timestamp() -> None:
    backend = ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},  # bound: deleted gracefully
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}]}}

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=KbatchApp(backend))
        async with httpx.AsyncClient(transport=transport, base_url="http://kbatch") as http:
            await http.post("/api/v1/namespaces/default/pods", json=pod)
            return await http.request("DELETE", "/api/v1/namespaces/default/pods/p",
                                      content=json.dumps({"gracePeriodSeconds": 2**40}))

    meta = asyncio.run(go()).json()["metadata"]
    assert meta["deletionTimestamp"] == "9999-12-31T23:59:59Z" and meta["deletionGracePeriodSeconds"] == 2**40


ACTIONS = ["nodes-add", "node-down", "node-up", "node-taint", "fail-pod", "evict-pod", "condition-pod",
           "node-stop-kubelet", "node-start-kubelet", "probe-fail", "probe-clear", "compact", "trace"]
ARGS = ["count", "name", "cpu", "memory", "gpu", "pods", "labels", "taints", "prefix", "exitCode",
        "container", "reason", "type", "status", "message", "probe", "after", "for", "namespace", "revision"]
small = st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                  st.sampled_from([2**40, 1.5, "", "x", "1s", "-1"]),
                  st.lists(st.sampled_from(["x", 1]), max_size=2), st.fixed_dictionaries({"a": st.just(1)}))
clock_bodies = st.one_of(small, st.fixed_dictionaries({}, optional={
    "advance": st.sampled_from([None, 0, 1, "1s", "", "x", -1, [], {}, "inf", "1e400", 1.5, True]),
    "untilIdle": small, "untilNextDeadline": small,
    "waitFor": st.one_of(small, st.fixed_dictionaries({}, optional={
        "kind": st.one_of(small, st.just("pods")), "name": st.one_of(small, st.just("p")),
        "namespace": small, "condition": small, "status": small, "delete": small,
        "jsonpath": st.one_of(small, st.sampled_from(["{.status.phase}", "{.x", ".a[?(@", "{.metadata}",
                                                       ".status.conditions[*].type"])),
        "value": small}))}))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.just("clock"), clock_bodies),
                          st.tuples(st.sampled_from(ACTIONS), st.one_of(small, st.dictionaries(
                              st.sampled_from(ARGS), small, max_size=3)))), min_size=1, max_size=5))
def test_extension_bodies_of_any_shape_are_never_a_500(calls: list[tuple[str, Any]]) -> None:
    """The clock and the fault actions answer every body with a 2xx or a 4xx ``Status`` (found by
    fuzzing: a ``waitFor`` without ``kind`` or with a non-string field, an ``advance`` that is a list,
    and ``nodes-add`` with ``count: 2**40``, which searched forever for free node names)."""
    backend = ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=KbatchApp(backend))
        async with httpx.AsyncClient(transport=transport, base_url="http://kbatch") as http:
            paths = ["clock" if name == "clock" else f"actions/{name}" for name, _ in calls]
            return [await http.post(f"/apis/kbatch.dev/v1alpha1/{path}", content=json.dumps(body))
                    for path, (_, body) in zip(paths, calls, strict=True)]

    for answer in asyncio.run(go()):
        assert answer.status_code < 500, answer.text
