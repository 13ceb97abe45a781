"""The kubelet's event filter is a pure function of the events; the record of the kubelet's own last
status write (what the filter compares against) is dropped by an informer handler when the pod goes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.controllers.kubelet import Kubelet, KubeletPredicate

from .cluster import get_pod, pod_yaml, sim_cluster

UIDS = ("u1", "u2", "u3")
VERSIONS = ("10", "11", "12")


def _pod(uid: str, rv: str, node: str | None, phase: str | None) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": "p", "namespace": "default", "uid": uid, "resourceVersion": rv},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox"}]},
        "status": {"phase": phase} if phase else None,
    })


pods = st.builds(_pod, st.sampled_from(UIDS), st.sampled_from(VERSIONS),
                 st.sampled_from([None, "n1"]), st.sampled_from([None, "Running"]))
events = st.lists(st.one_of(st.tuples(st.just("create"), pods), st.tuples(st.just("delete"), pods),
                            st.tuples(st.just("update"), pods, pods)), max_size=12)


def _kubelet() -> Kubelet:
    cp = sim_cluster(1, controllers="scheduler")
    return cp.add_controller("kubelet")


@settings(max_examples=60, deadline=None)
@given(echoes=st.dictionaries(st.sampled_from(UIDS), st.sampled_from(VERSIONS)), seen=events)
def test_the_predicate_changes_no_state(echoes: dict[str, str], seen: list[tuple[Pod, ...]]) -> None:
    kubelet = _kubelet()
    kubelet.echoes.update(echoes)
    predicate = KubeletPredicate(kubelet)
    answers = []
    for event, *objs in seen:
        answers.append(getattr(predicate, event)(*objs))
    assert kubelet.echoes == echoes
    again = [getattr(predicate, event)(*objs) for event, *objs in seen]
    assert again == answers, "the same events get the same answers"


def test_an_echo_is_filtered_whatever_came_before() -> None:
    kubelet = _kubelet()
    kubelet.echoes["u1"] = "11"
    predicate = KubeletPredicate(kubelet)
    old, echo = _pod("u1", "10", "n1", None), _pod("u1", "11", "n1", "Running")
    assert not predicate.update(old, echo)
    assert not predicate.update(old, echo), "checking an echo does not consume it"
    assert predicate.update(echo, _pod("u1", "12", "n1", "Failed")), "another writer's version passes"


def test_the_record_of_the_last_write_goes_with_the_pod() -> None:
    cp = sim_cluster(1, controllers="scheduler")
    kubelet: Kubelet = cp.add_controller("kubelet")
    cp.apply(pod_yaml("p", "sleep 30"))
    uid = get_pod(cp, "p").metadata.uid
    assert kubelet.echoes.get(uid) == get_pod(cp, "p").metadata.resource_version
    cp.client.delete(Pod, "p", "default", grace_period_seconds=0)
    cp.run_until_idle()
    assert uid not in kubelet.echoes
