"""Boolean query parameters read as kube-apiserver's parameter codec reads them, over HTTP to a
``kbatch serve`` process.

Upstream: k8s.io/apimachinery ``pkg/runtime/conversion.go`` ``Convert_Slice_string_To_bool`` (and
``..._To_Pointer_bool`` for ``*bool`` fields such as ``PatchOptions.Force``): a present parameter is
false only when its first value is ``0`` or ``false`` (any case), true otherwise, even when empty;
a repeated parameter counts by its first value (``Convert_Slice_string_To_string`` likewise).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def http(served: Any) -> Any:
    with httpx.Client(base_url=served.url, timeout=30) as client:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "flags"}, "data": {"a": "1"}}
        assert client.post(CM, json=body).status_code == 201
        yield client


def _first(http: httpx.Client, query: str) -> dict[str, Any]:
    """The first watch event, or the list, that ``GET CM?query`` answers with."""
    with http.stream("GET", f"{CM}?{query}&timeoutSeconds=10") as resp:
        assert resp.status_code == 200
        for line in resp.iter_lines():
            if line:
                return dict(json.loads(line))
    raise AssertionError("empty answer")


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "True", "on", "yes", "y", "", "2"])
def test_watch_is_true_unless_zero_or_false(http: httpx.Client, value: str) -> None:
    assert _first(http, f"watch={value}")["type"] == "ADDED"


@pytest.mark.parametrize("value", ["0", "false", "FALSE", "False", "fAlSe"])
def test_watch_zero_or_false_in_any_case_lists(http: httpx.Client, value: str) -> None:
    assert _first(http, f"watch={value}")["kind"] == "ConfigMapList"


def test_a_repeated_parameter_counts_by_its_first_value(http: httpx.Client) -> None:
    assert _first(http, "watch=0&watch=1")["kind"] == "ConfigMapList"
    assert _first(http, "watch=1&watch=0")["type"] == "ADDED"
    listed = http.get(f"{CM}?labelSelector=nope%3D1&labelSelector=").json()
    assert listed["items"] == []  # the first selector, which matches nothing, is the one applied


def test_allow_watch_bookmarks_on(http: httpx.Client) -> None:
    rv = http.get(CM).json()["metadata"]["resourceVersion"]
    query = f"watch=on&allowWatchBookmarks=on&resourceVersion={rv}&timeoutSeconds=1"
    with http.stream("GET", f"{CM}?{query}") as resp:
        kinds = [json.loads(line)["type"] for line in resp.iter_lines() if line]
    assert kinds == ["BOOKMARK"]


def _apply(http: httpx.Client, manager: str, value: str, force: str | None) -> httpx.Response:
    params = {"fieldManager": manager, **({"force": force} if force is not None else {})}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "forced"}, "data": {"k": value}}
    return http.patch(f"{CM}/forced", params=params, content=json.dumps(body),
                      headers={"Content-Type": "application/apply-patch+yaml"})


@pytest.mark.parametrize(("force", "code"),
                         [("1", 200), ("TRUE", 200), ("", 200), ("0", 409), ("False", 409)])
def test_apply_force_is_a_query_bool(http: httpx.Client, force: str, code: int) -> None:
    assert _apply(http, "first", "a", None).status_code in (200, 201)
    resp = _apply(http, "second", "b", force)
    assert resp.status_code == code, resp.text
    assert http.delete(f"{CM}/forced").status_code == 200
