"""PodInfos share equal request maps and toleration tuples: what a pod gets from the shared table
is what converting it afresh gives, whatever was converted before."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.pod_resources import effective_requests
from kbatch.controllers.scheduler import convert
from kbatch.controllers.scheduler.convert import pod_info, toleration_of, tolerations_of

TOLERATION = st.fixed_dictionaries(
    {"key": st.sampled_from(["", "k1", "k2"]), "operator": st.sampled_from(["Exists", "Equal"]),
     "effect": st.sampled_from(["", "NoSchedule", "NoExecute"])},
    optional={"value": st.sampled_from(["", "v"]), "tolerationSeconds": st.sampled_from([0, 300])})
REQUESTS = st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                           st.sampled_from(["1", "2", "100m", "1Gi"]), max_size=3)


def _pod(tolerations: list[dict], requests: dict[str, str], labels: dict[str, str]) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": "p", "namespace": "default", "labels": labels},
        "spec": {"tolerations": tolerations,
                 "containers": [{"name": "c", "image": "i", "resources": {"requests": requests}}]}})


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(TOLERATION, max_size=3), REQUESTS,
                          st.dictionaries(st.sampled_from(["a", "b"]), st.just("x"), max_size=1)),
                min_size=1, max_size=6), st.booleans())
def test_shared_values_equal_a_fresh_conversion(pods, full) -> None:
    if full:  # the table starting again must not change an answer either
        convert._shared_values.clear()
    for tolerations, requests, labels in pods:
        pod = _pod(tolerations, requests, labels)
        info = pod_info(pod)
        items = pod.spec.tolerations or []
        assert info.tolerations == tuple(map(toleration_of, items)) == tolerations_of(items)
        fresh = effective_requests([convert._container_requests(c) for c in pod.spec.containers])
        assert dict(info.requests) == fresh and list(info.requests) == list(fresh), "same items, same order"
        assert dict(info.labels) == labels


def test_equal_pods_share_their_maps_and_tolerations() -> None:
    a = pod_info(_pod([{"key": "k", "operator": "Exists"}], {"cpu": "1"}, {}))
    b = pod_info(_pod([{"key": "k", "operator": "Exists"}], {"cpu": "1"}, {}))
    assert a.requests is b.requests and a.nonzero_requests is b.nonzero_requests
    assert a.tolerations is b.tolerations and a.labels is b.labels
