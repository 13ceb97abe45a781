"""ResourceQuota end to end on one control plane: the admission plugin's refusals with upstream's
messages (plugin/pkg/admission/resourcequota/controller.go ``CheckRequest``; pods evaluator
pkg/quota/v1/evaluator/core/pods.go), the controller's recount (pkg/controller/resourcequota), and a
Job under a ``pods: 2`` quota (job_controller.go ``manageJob``: FailedCreate events, retried)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import ConfigMap, Event, Pod, ResourceQuota, ResourceQuotaStatus
from kbatch.api.errors import Forbidden
from kbatch.api.frozen import edit
from kbatch.api.quantity import Quantity
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim.nodes import NodeTemplate, create_nodes


def quota(hard: dict[str, str], name: str = "q", **spec: Any) -> ResourceQuota:
    return ResourceQuota.model_validate({"metadata": {"name": name, "namespace": "default"},
                                         "spec": {"hard": hard, **spec}})


def pod(name: str, cpu: str | None = "500m", **spec: Any) -> Pod:
    resources = {"requests": {"cpu": cpu}} if cpu else {}
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "image": "busybox", "resources": resources}], **spec}})


def counted(cp: ControlPlane, *quotas: ResourceQuota) -> None:
    for rq in quotas:
        cp.client.create(rq)
    cp.run_until_idle()


def status(cp: ControlPlane, name: str = "q") -> tuple[dict[str, str], dict[str, str]]:
    st = cp.client.get(ResourceQuota, name, "default").status
    assert st is not None
    return ({k: str(v) for k, v in (st.hard or {}).items()}, {k: str(v) for k, v in (st.used or {}).items()})


def forbidden(cp: ControlPlane, obj: Any) -> str:
    with pytest.raises(Forbidden) as err:
        cp.client.create(obj)
    assert err.value.status.code == 403
    return err.value.status.message


def test_the_controller_fills_status_hard_and_used() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    cp.client.create(pod("before"))
    counted(cp, quota({"pods": "3", "requests.cpu": "2"}))
    assert status(cp) == ({"pods": "3", "requests.cpu": "2"}, {"pods": "1", "requests.cpu": "500m"})


def test_a_create_past_hard_is_forbidden_with_upstreams_message() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    counted(cp, quota({"pods": "2", "requests.cpu": "2"}))
    cp.client.create(pod("a", "1500m"))
    assert status(cp)[1] == {"pods": "1", "requests.cpu": "1500m"}  # charged at admission
    assert forbidden(cp, pod("b", "1")) == ('pods "b" is forbidden: exceeded quota: q, requested: '
                                           'requests.cpu=1, used: requests.cpu=1500m, '
                                           'limited: requests.cpu=2')
    cp.client.create(pod("c", "500m"))
    assert forbidden(cp, pod("d", "1m")) == ('pods "d" is forbidden: exceeded quota: q, requested: '
                                            'pods=1,requests.cpu=1m, used: pods=2,requests.cpu=2, '
                                            'limited: pods=2,requests.cpu=2')


def test_a_pod_without_the_quotad_request_must_specify_it() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    counted(cp, quota({"requests.cpu": "2", "limits.memory": "1Gi"}))
    assert forbidden(cp, pod("p", None)) == ('pods "p" is forbidden: failed quota: q: must specify '
                                            'limits.memory for: c; requests.cpu for: c')


def test_a_quota_not_yet_counted_covers_nothing_and_one_without_used_is_status_unknown() -> None:
    cp = ControlPlane(seed=0, controllers="")  # no controller: status stays empty
    cp.client.create(quota({"pods": "0"}))
    cp.client.create(pod("free"))  # upstream Matches reads status.hard: an uncounted quota matches nothing
    rq = edit(cp.client.get(ResourceQuota, "q", "default"))
    rq.status = ResourceQuotaStatus(hard={"pods": Quantity(0)})
    cp.client.update_status(rq)
    assert forbidden(cp, pod("p")) == 'pods "p" is forbidden: status unknown for quota: q, resources: pods'


def test_object_counts_and_dry_runs() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    counted(cp, quota({"count/jobs.batch": "1"}))
    job = Job.model_validate({"metadata": {"name": "j1", "namespace": "default"}, "spec": {"template": {
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})
    cp.client.create(job, dry_run=True)
    assert status(cp)[1] == {"count/jobs.batch": "0"}  # a dry run charges nothing
    cp.client.create(job)
    second = job.model_copy(update={"metadata": job.metadata.model_copy(update={"name": "j2"})})
    assert forbidden(cp, second) == ('jobs.batch "j2" is forbidden: exceeded quota: q, requested: '
                                     'count/jobs.batch=1, used: count/jobs.batch=1, '
                                     'limited: count/jobs.batch=1')
    cp.client.delete(Job, "j1", "default", propagation_policy="Background")
    cp.run_until_idle()
    assert status(cp)[1] == {"count/jobs.batch": "0"}  # replenished on the Job's deletion


def test_scopes_select_the_pods_they_cap() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    counted(cp, quota({"pods": "0"}, name="besteffort", scopes=["BestEffort"]),
            quota({"pods": "1"}, name="high", scopeSelector={"matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}))
    assert forbidden(cp, pod("be", None)).startswith('pods "be" is forbidden: exceeded quota: besteffort,')
    cp.client.create(pod("burstable"))  # NotBestEffort: no quota covers it
    cp.client.create(ConfigMap.model_validate({"metadata": {"name": "x", "namespace": "default"}}))
    assert status(cp, "besteffort")[1] == {"pods": "0"}
    assert status(cp, "high")[1] == {"pods": "0"}


def test_terminal_pods_do_not_count() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    counted(cp, quota({"pods": "1", "count/pods": "5"}))
    cp.client.create(pod("a"))
    done = edit(cp.client.get(Pod, "a", "default"))
    done.status.phase = "Succeeded"  # type: ignore[union-attr]
    cp.client.update_status(done)
    cp.run_until_idle()
    assert status(cp)[1] == {"count/pods": "1", "pods": "0"}  # count/pods tracks every stored pod
    cp.client.create(pod("b"))


def test_a_namespace_without_quotas_is_not_checked() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    counted(cp, quota({"pods": "0"}))
    cp.client.create(Pod.model_validate({**pod("elsewhere").model_dump(by_alias=True, exclude_none=True),
                                         "metadata": {"name": "elsewhere", "namespace": "kube-system"}}))


JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: work, namespace: default}
spec:
  completions: 4
  parallelism: 4
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sleep, "5"]}]
"""


def test_a_job_under_a_pods_quota_runs_two_at_a_time_and_finishes() -> None:
    cp = ControlPlane(seed=5, controllers="job,scheduler,kubelet,resourcequota")
    create_nodes(cp, 2, NodeTemplate(cpu="8", memory="16Gi", pods=20))
    counted(cp, quota({"pods": "2"}))
    cp.apply(JOB)
    peak = [0]

    def running() -> bool:
        live = [p for p in cp.client.list(Pod, "default").items if p.status is None
                or p.status.phase not in ("Succeeded", "Failed")]
        peak[0] = max(peak[0], len(live))
        job = cp.client.get(Job, "work", "default")
        return any(c.type == "Complete" and c.status == "True" for c in (job.status.conditions or []))

    cp.wait_for(running, timeout="30m")
    assert peak[0] <= 2
    events = [e for e in cp.client.list(Event, "default").items if e.reason == "FailedCreate"]
    assert events and all(e.type == "Warning" for e in events)
    assert events[0].message.startswith('Error creating: pods "work-')
    expected = "is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"
    assert expected in events[0].message
    assert cp.client.get(Job, "work", "default").status.succeeded == 4


@pytest.mark.parametrize(("hard", "want"), [
    ({"requests.cpu": "2", "limits.cpu": "1"},
     ["ResourceQuota requests.cpu (2) should be less than limits.cpu (1)"]),
    ({"memory": "2Gi", "limits.memory": "1Gi"},
     ["ResourceQuota memory (2Gi) should be less than limits.memory (1Gi)"]),
    ({"requests.ephemeral-storage": "10Gi", "limits.ephemeral-storage": "5Gi", "requests.cpu": "1",
      "limits.cpu": "1"},
     ["ResourceQuota requests.ephemeral-storage (10Gi) should be less than limits.ephemeral-storage (5Gi)"]),
    ({"ephemeral-storage": "10Gi", "limits.ephemeral-storage": "5Gi"}, []),  # bare name: cpu, memory only
    ({"requests.cpu": "1", "limits.cpu": "2"}, []),
])
def test_a_request_above_its_limit_is_warned_about_not_refused(hard: dict[str, str], want: list[str]) -> None:
    """``resourcequotaStrategy.WarningsOnCreate`` (pkg/registry/core/resourcequota/strategy.go)."""
    from kbatch.apiserver.create import create_object

    cp = ControlPlane(seed=0, controllers="")
    warnings: list[str] = []
    created = create_object(cp.server, quota(hard), warnings=warnings)
    assert warnings == want
    assert created.metadata.generation is None  # the strategy keeps none
