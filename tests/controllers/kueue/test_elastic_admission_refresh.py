"""The ElasticJobUngater refreshes the active slice's admission check updates into the pods it
ungates (ProvisioningRequest annotations, node selectors) and leaves a pod whose values differ gated.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/elasticjobs/elastic_job_ungater.go``
(``admissionUpdateForPodSet``, ``podAdmissionCompatible``, ``refreshPodAdmission``, and their use in
``podsToUngate`` and ``Reconcile``); upstream's ``elastic_job_ungater_test.go`` has no rows for them,
so the cases here are kbatch's own.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api import edit
from kbatch.api.autoscaling_x_v1 import CONSUME_ANNOTATION, PROVISIONING_CLASS_ANNOTATION
from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.workloadslicing.admission_refresh import (
    AdmissionUpdate,
    AdmissionUpdateConflict,
    compatible,
    refresh,
    update_for_pod_set,
)

from .helpers import World, activate_checks, cluster_queue, flavor, local_queue, quota
from .test_elastic_jobs import elastic_job, gated, live_pods, scale, slices
from .test_jobs import node

KUEUE = "kueue.x-k8s.io/v1beta2"


def _wl(*checks: list[dict[str, Any]]) -> Workload:
    return Workload.model_validate({
        "apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": "w", "namespace": "default"},
        "status": {"admissionChecks": [{"name": f"c{i}", "state": "Ready", "podSetUpdates": updates}
                                       for i, updates in enumerate(checks)]},
    })


def _pod(annotations: dict[str, str] | None = None, selector: dict[str, str] | None = None) -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "annotations": annotations or {}},
                               "spec": {"nodeSelector": selector or {}, "containers": []}})


def test_checks_merge_per_pod_set_keeping_only_the_provisioning_annotations() -> None:
    wl = _wl([{"name": "main", "annotations": {CONSUME_ANNOTATION: "pr-1", "other": "x"},
               "nodeSelector": {"zone": "z1"}}, {"name": "aux", "nodeSelector": {"zone": "z9"}}],
             [{"name": "main", "annotations": {PROVISIONING_CLASS_ANNOTATION: "queued"},
               "nodeSelector": {"zone": "z1", "pool": "p"}}])
    assert update_for_pod_set(wl, "main") == AdmissionUpdate(
        {CONSUME_ANNOTATION: "pr-1", PROVISIONING_CLASS_ANNOTATION: "queued"}, {"zone": "z1", "pool": "p"})
    assert update_for_pod_set(wl, "none") == AdmissionUpdate()


def test_two_checks_disagreeing_on_a_key_is_an_error() -> None:
    wl = _wl([{"name": "main", "nodeSelector": {"zone": "z1"}}],
             [{"name": "main", "nodeSelector": {"zone": "z2"}}])
    message = 'conflicting "zone" node selector updates for PodSet "main"'
    with pytest.raises(AdmissionUpdateConflict, match=message):
        update_for_pod_set(wl, "main")


def test_a_consumed_request_is_kept_and_selectors_are_set() -> None:
    update = AdmissionUpdate({CONSUME_ANNOTATION: "pr-2"}, {"zone": "z2"})
    assert not compatible(_pod({CONSUME_ANNOTATION: "pr-1"}), update)
    assert not compatible(_pod(selector={"zone": "z1"}), update)
    pod = _pod({"keep": "1"}, {"pool": "p"})
    assert compatible(pod, update)
    assert refresh(pod, update)
    assert (pod.metadata.annotations, pod.spec.node_selector) == (
        {"keep": "1", CONSUME_ANNOTATION: "pr-2"}, {"pool": "p", "zone": "z2"})
    assert not refresh(pod, update)


_KEYS = st.sampled_from([CONSUME_ANNOTATION, PROVISIONING_CLASS_ANNOTATION, "zone", "pool"])
_MAPS = st.dictionaries(_KEYS, st.sampled_from(["a", "b"]), max_size=3)


@given(_MAPS, _MAPS, _MAPS, _MAPS)
def test_refresh_keeps_the_pod_and_makes_it_carry_the_update(annotations: dict[str, str],
                                                            selector: dict[str, str],
                                                            wanted_annotations: dict[str, str],
                                                            wanted_selector: dict[str, str]) -> None:
    """A compatible pod keeps every value it had and ends with every key of the update, once."""
    pod = _pod(dict(annotations), dict(selector))
    update = AdmissionUpdate(wanted_annotations, wanted_selector)
    if not compatible(pod, update):
        return
    refresh(pod, update)
    have_annotations, have_selector = pod.metadata.annotations or {}, pod.spec.node_selector or {}
    assert annotations.items() <= have_annotations.items() and selector.items() <= have_selector.items()
    assert wanted_annotations.items() <= have_annotations.items()
    assert wanted_selector.items() <= have_selector.items()
    assert compatible(pod, update) and not refresh(pod, update)


def _ready(w: World, wl: Workload, updates: list[dict[str, Any]]) -> None:
    wl = edit(wl)
    state = wl.status.admission_checks[0]
    state.state, state.pod_set_updates = "Ready", updates
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()


def _scaled_up(first: dict[str, Any], second: dict[str, Any]) -> list[Pod]:
    """An elastic Job behind a manual check, its first slice Ready with ``first``, scaled from 1 to 2
    pods with the replacement slice Ready with ``second``: the live pods, oldest first."""
    cq = cluster_queue("cq", (["cpu"], [("fa", [quota("cpu", "8")])]),
                       admissionChecksStrategy={"admissionChecks": [{"name": "check"}]})
    check = {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": "check"},
             "spec": {"controllerName": "example.com/manual"}}
    w = World(node("n-a", "a", cpu="16"), flavor("fa"), cq, check, local_queue("lq", "cq"), controllers="*")
    activate_checks(w.cp, "check")
    w.apply(elastic_job("e", 1))
    w.cp.run_until_idle()
    _ready(w, slices(w, "e")[0], [{"name": "main", **first}])
    before = {p.metadata.name for p in live_pods(w, "e")}
    scale(w, "e", 2)
    _ready(w, slices(w, "e")[-1], [{"name": "main", **second}])
    assert [x.status.admission is not None for x in slices(w, "e")] == [True, True]
    # both pods may be created in one virtual second, and their generated names are random: the
    # pod that existed before the scale-up is the older
    return sorted(live_pods(w, "e"),
                  key=lambda p: (p.metadata.creation_timestamp, p.metadata.name not in before))


def test_a_scale_up_pod_is_ungated_with_the_new_slices_check_updates() -> None:
    pods = _scaled_up({}, {"nodeSelector": {"zone": "z2"},
                           "annotations": {PROVISIONING_CLASS_ANNOTATION: "queued", "other": "x"}})
    new = pods[-1]
    assert not gated(new)
    assert new.spec.node_selector == {"zone": "z2"}
    assert new.metadata.annotations[PROVISIONING_CLASS_ANNOTATION] == "queued"
    assert "other" not in new.metadata.annotations
    assert pods[0].spec.node_selector is None  # a running pod is not touched


def test_a_pod_consuming_another_request_stays_gated() -> None:
    """The template was stamped with the first slice's request; the replacement's names another."""
    pods = _scaled_up({"annotations": {CONSUME_ANNOTATION: "pr-1"}},
                      {"annotations": {CONSUME_ANNOTATION: "pr-2"}})
    assert [p.metadata.annotations[CONSUME_ANNOTATION] for p in pods] == ["pr-1", "pr-1"]
    assert [gated(p) for p in pods] == [False, True]
