"""Paging and expiry as an operator's integration tests meet them: the official ``kubernetes`` client
against a ``kbatch serve`` process, each answer compared with kube-apiserver 1.37's.

Upstream sources (k8s.io/apiserver at the 1.37 development line): ``pkg/storage/etcd3/errors.go``
(expired lists and continue tokens), ``pkg/storage/interfaces.go`` ``ValidateListOptions`` (continue
with ``resourceVersion``), ``pkg/storage/etcd3/store.go`` ``GetList`` (paging only when
``limit > 0``), ``pkg/storage/cacher/delegator.go`` (an expired read from the watch cache falls back
to etcd3 under ``ListFromCacheSnapshot``, default on since 1.34).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a "
    "new list without the continue parameter, or use the continue token in this response to retrieve "
    "the remainder of the results. Continuing with the provided token results in an inconsistent list "
    "- objects that were created, modified, or deleted between the time the first chunk was returned "
    "and now may show up in the list.")


@pytest.fixture(scope="module")
def core(served: Any) -> Any:
    return client.CoreV1Api(config.new_client_from_config(config_file=str(served.kubeconfig)))


def _pods(core: Any, day: str, *names: str) -> None:
    for name in names:
        core.create_namespaced_pod("default", client.V1Pod(
            metadata=client.V1ObjectMeta(name=name, labels={"day": day}),
            spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")])))


def _compact(served: Any) -> None:
    url = f"{served.url}/apis/kbatch.dev/v1alpha1/actions/compact"
    httpx.post(url, json={}, timeout=10).raise_for_status()


def _failure(call: Any, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(ApiException) as err:
        call(**kwargs)
    return err.value.status, json.loads(err.value.body)


def _names(listing: Any) -> list[str]:
    return [p.metadata.name for p in listing.items]


def test_a_limit_of_zero_or_less_lists_everything(core: Any) -> None:
    # etcd3 store GetList: "paging := opts.Predicate.Limit > 0"; the watch cache's computeListLimit
    # likewise treats limit <= 0 as no limit
    _pods(core, "neg", "neg-a", "neg-b", "neg-c")
    for limit in (-1, -500, 0):
        listing = core.list_namespaced_pod("default", label_selector="day=neg", limit=limit)
        assert _names(listing) == ["neg-a", "neg-b", "neg-c"], limit
        assert listing.metadata._continue is None


def test_an_expired_continue_token_hands_out_one_that_lists_on_at_the_latest(served: Any, core: Any) -> None:
    # etcd3/errors.go handleCompactedErrorForPaging: 410 Expired whose Status carries a token at
    # revision -1; interfaces.go ValidateListOptions: a negative revision lists at the latest
    _pods(core, "cont", *(f"cont-{i}" for i in range(5)))
    first = core.list_namespaced_pod("default", label_selector="day=cont", limit=2)
    assert _names(first) == ["cont-0", "cont-1"]
    _pods(core, "cont", "cont-9")  # written after the first page: the rest is no longer consistent
    _compact(served)
    code, status = _failure(core.list_namespaced_pod, namespace="default", label_selector="day=cont",
                            limit=2, _continue=first.metadata._continue)
    assert (code, status["reason"], status["message"]) == (410, "Expired", INCONSISTENT_CONTINUE)
    token, rest = status["metadata"]["continue"], []
    while token:
        page = core.list_namespaced_pod("default", label_selector="day=cont", limit=2, _continue=token)
        rest += _names(page)
        token = page.metadata._continue
    assert rest == ["cont-2", "cont-3", "cont-4", "cont-9"]


def test_a_compacted_exact_list_is_expired_in_the_etcd3_stores_words(served: Any, core: Any) -> None:
    # cacher/delegator.go: an Expired read from the watch cache goes to etcd3, whose list read at a
    # compacted revision is errors.go's "expired"
    old = core.list_namespaced_pod("default").metadata.resource_version
    _pods(core, "exact", "exact-a")
    _compact(served)
    for kwargs in ({"resource_version_match": "Exact"}, {"limit": 1}):  # a paginated rv is exact too
        code, status = _failure(core.list_namespaced_pod, namespace="default", resource_version=old, **kwargs)
        assert (code, status["reason"]) == (410, "Expired")
        assert status["message"] == "The resourceVersion for the provided list is too old."


def test_a_continue_token_may_come_with_resource_version_0(core: Any) -> None:
    # interfaces.go ValidateListOptions refuses a resourceVersion with continue unless it is "0"
    _pods(core, "zero", "zero-a", "zero-b")
    first = core.list_namespaced_pod("default", label_selector="day=zero", limit=1)
    rest = core.list_namespaced_pod("default", label_selector="day=zero", limit=1, resource_version="0",
                                    _continue=first.metadata._continue)
    assert _names(rest) == ["zero-b"]
    code, status = _failure(core.list_namespaced_pod, namespace="default", label_selector="day=zero",
                            limit=1, resource_version="1", _continue=first.metadata._continue)
    assert code == 400
    assert status["message"] == "specifying resource version is not allowed when using continue"


@pytest.mark.parametrize("kwargs", [{}, {"resource_version_match": "NotOlderThan"},
                                    {"resource_version_match": "Exact"}, {"limit": 1}],
                         ids=["unset", "NotOlderThan", "Exact", "paginated"])
def test_a_future_resource_version_is_too_large_with_the_cause_client_go_reads(
        core: Any, kwargs: dict[str, Any]) -> None:
    # storage/errors.go NewTooLargeResourceVersionError, from the watch cache (watch_cache.go
    # waitUntilFreshAndBlock, resourceVersionTooHighRetrySeconds = 1): apimachinery's NewTimeoutError
    # prefixes "Timeout: "; client-go's reflector relists on the ResourceVersionTooLarge cause
    current = int(core.list_namespaced_pod("default").metadata.resource_version)
    future = str(current + 1000)
    with pytest.raises(ApiException) as err:
        core.list_namespaced_pod("default", resource_version=future, **kwargs)
    status = json.loads(err.value.body)
    assert (err.value.status, status["reason"]) == (504, "Timeout")
    assert status["message"] == f"Timeout: Too large resource version: {future}, current: {current}"
    assert status["details"] == {"causes": [{"reason": "ResourceVersionTooLarge",
                                             "message": "Too large resource version"}],
                                 "retryAfterSeconds": 1}
    assert err.value.headers["Retry-After"] == "1"


def test_resource_version_0_is_served_whole_whatever_the_limit(core: Any) -> None:
    # delegator.go ShouldDelegateList: resourceVersion=0 is served by the watch cache, whose
    # computeListLimit (cacher.go) ignores the limit then: one page, no continue token
    _pods(core, "rv0", "rv0-a", "rv0-b", "rv0-c")
    listing = core.list_namespaced_pod("default", label_selector="day=rv0", limit=1, resource_version="0")
    assert _names(listing) == ["rv0-a", "rv0-b", "rv0-c"]
    assert listing.metadata._continue is None
    paged = core.list_namespaced_pod("default", label_selector="day=rv0", limit=1)  # latest: paged
    assert _names(paged) == ["rv0-a"] and paged.metadata._continue
