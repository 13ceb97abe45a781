"""List and watch options that kube-apiserver refuses, sent as an operator's tests send them (the
official ``kubernetes`` client, or plain HTTP) to a ``kbatch serve`` process.

Upstream: k8s.io/apimachinery ``pkg/apis/meta/internalversion/validation`` ``ValidateListOptions``
and ``validateWatchOptions`` (kbatch serve answers as a server with the WatchList gate off).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402


@pytest.fixture(scope="module")
def core(served: Any) -> Any:
    return client.CoreV1Api(config.new_client_from_config(config_file=str(served.kubeconfig)))


def _failure(call: Any, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(ApiException) as err:
        call(**kwargs)
    return err.value.status, json.loads(err.value.body)


@pytest.mark.parametrize("value", [True, False])
def test_send_initial_events_on_a_list_is_invalid(core: Any, value: bool) -> None:
    # ValidateListOptions: a non-watch list with sendInitialEvents set (to anything) is Forbidden
    code, status = _failure(core.list_namespaced_pod, namespace="default", send_initial_events=value)
    assert (code, status["reason"]) == (422, "Invalid")
    assert status["message"] == ('ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: '
                                 "sendInitialEvents is forbidden for list")
    assert status["details"]["causes"] == [{"reason": "FieldValueForbidden", "field": "sendInitialEvents",
                                            "message": "Forbidden: sendInitialEvents is forbidden for list"}]


@pytest.mark.parametrize(("params", "message"), [
    ({"resourceVersionMatch": "Exact", "resourceVersion": "1"},
     '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents '
     'is provided, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'),
    ({"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan"},
     "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature "
     "gate is enabled"),
    ({"sendInitialEvents": "false"},
     "[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to "
     "NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the "
     "WatchList feature gate is enabled]"),
])
def test_watch_list_options_are_refused_as_a_server_without_watch_list(served: Any, params: dict[str, str],
                                                                         message: str) -> None:
    # validateWatchOptions with the WatchList gate off (kbatch serve has no streaming lists: docs/serve.md)
    resp = httpx.get(f"{served.url}/api/v1/namespaces/default/pods", params={"watch": "1", **params},
                     timeout=10)
    assert resp.status_code == 422
    assert resp.json()["message"] == f'ListOptions.meta.k8s.io "" is invalid: {message}'


def test_a_plain_watch_gets_no_initial_events_end_bookmark(served: Any) -> None:
    # cacher.go setInitialEventsEndBookmarkIfRequested: the k8s.io/initial-events-end bookmark is for
    # sendInitialEvents=true (with bookmarks) only; a watch from resourceVersion unset or "0" gets the
    # synthetic ADDED events and, at most, plain bookmarks
    params = {"watch": "1", "allowWatchBookmarks": "true", "timeoutSeconds": "1", "resourceVersion": "0"}
    lines = httpx.get(f"{served.url}/api/v1/namespaces/default/pods", params=params, timeout=10).text
    events = [json.loads(line) for line in lines.splitlines() if line]
    bookmarks = [e["object"]["metadata"] for e in events if e["type"] == "BOOKMARK"]
    assert bookmarks, "a bookmark follows the initial events"
    assert all(set(meta) == {"resourceVersion"} for meta in bookmarks), bookmarks
