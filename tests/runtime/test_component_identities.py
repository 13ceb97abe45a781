"""The control plane's components write as their own users, as on a kind cluster: each
kube-controller-manager controller as its ServiceAccount ``kube-system/<account>`` (created on first
use; ``--use-service-account-credentials``, k8s.io/controller-manager ``pkg/clientbuilder``; names
from ``cmd/kube-controller-manager/app/*.go`` ``ClientOrDie`` and ``bootstrappolicy/
controller_policy.go``), the scheduler as ``system:kube-scheduler`` and each kubelet as
``system:node:<name>`` in ``system:nodes`` — and admission (policies, NodeRestriction) sees them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.coordination_v1 import Lease
from kbatch.api.core_v1 import Event, Pod, ServiceAccount
from kbatch.api.errors import Forbidden
from kbatch.apiserver import controller_accounts
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.identities import node_user
from kbatch.apiserver.requester import acting_as
from kbatch.testing.builders import make_job, make_node, make_pod

KCM = "system:serviceaccount:kube-system:"
SA_GROUPS = ("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated")
# what a fresh control plane with the default controllers creates (kind lists these and more:
# the controllers kbatch does not run)
ACCOUNTS = [
    "cluster-autoscaler",  # the simulated cluster-autoscaler answering ProvisioningRequests (kbatch.sim)
    "clusterrole-aggregation-controller",
    "cronjob-controller",
    "default",
    "device-taint-eviction-controller",
    "disruption-controller",
    "endpoint-controller",
    "endpointslice-controller",
    "endpointslicemirroring-controller",
    "ephemeral-volume-controller",
    "generic-garbage-collector",
    "job-controller",
    "namespace-controller",
    "node-controller",
    "persistent-volume-binder",
    "pod-garbage-collector",
    "podgroup-protection-controller",
    "pv-protection-controller",
    "pvc-protection-controller",
    "resource-claim-controller",
    "resourcequota-controller",
    "root-ca-cert-publisher",
    "service-account-controller",
    "ttl-after-finished-controller",
]


def _recording(cp: ControlPlane) -> list[tuple[str, str, str, str, tuple[str, ...]]]:
    seen: list[tuple[str, str, str, str, tuple[str, ...]]] = []

    def hook(req: AdmissionRequest) -> None:
        seen.append((type(req.obj).__name__, req.operation, req.subresource, req.user.name, req.user.groups))

    cp.server.admission.add_validating(None, hook, deletes=True)
    return seen


def _writers(seen: list[Any]) -> set[tuple[str, str, str, str]]:
    return {s[:4] for s in seen}


def test_each_component_writes_as_its_own_user() -> None:
    cp = ControlPlane(seed=3)
    seen = _recording(cp)
    cp.apply(
        [
            make_node("n1").capacity(cpu="4").obj(),
            make_job("j").completions(2).parallelism(2).obj(),
            make_pod("huge").requests(cpu="64").obj(),
        ]
    )
    cp.client.patch(Job, "j", {"spec": {"ttlSecondsAfterFinished": 0}}, "default")
    cp.advance(120)
    writers = _writers(seen)
    for want in [
        ("Pod", "CREATE", "", KCM + "job-controller"),
        ("Job", "UPDATE", "status", KCM + "job-controller"),
        ("Pod", "UPDATE", "status", "system:kube-scheduler"),  # PodScheduled=False for "huge"
        ("Pod", "UPDATE", "status", "system:node:n1"),
        ("Lease", "CREATE", "", "system:node:n1"),
        ("Job", "DELETE", "", KCM + "ttl-after-finished-controller"),
        ("Pod", "DELETE", "", KCM + "generic-garbage-collector"),
        ("Event", "CREATE", "", KCM + "job-controller"),  # SuccessfulCreate: Events are the component's too
        ("Event", "CREATE", "", "system:kube-scheduler"),  # Scheduled, FailedScheduling
    ]:
        assert want in writers, want
    groups = {s[3]: s[4] for s in seen}
    assert groups[KCM + "job-controller"] == SA_GROUPS
    assert groups["system:kube-scheduler"] == ("system:authenticated",)
    assert groups["system:node:n1"] == ("system:nodes", "system:authenticated")
    assert ("Job", "CREATE", "", "kubernetes-admin") in writers  # the library's own writes: the admin


def test_controller_accounts_appear_in_kube_system_once() -> None:
    cp = ControlPlane(seed=1)
    accounts = cp.client.list(ServiceAccount, "kube-system").items
    assert [a.metadata.name for a in accounts] == ACCOUNTS
    job = next(a for a in accounts if a.metadata.name == "job-controller")
    assert (job.metadata.labels, job.metadata.annotations, job.secrets) == (None, None, None)
    revision = cp.store.revision
    again = ControlPlane(seed=1, store=cp.store)  # a restart over the same store writes no account again
    assert [a.metadata.uid for a in again.client.list(ServiceAccount, "kube-system").items] == [
        a.metadata.uid for a in accounts
    ]
    assert cp.store.revision == revision
    # deterministic: the same seed gives the same accounts
    other = ControlPlane(seed=1)
    assert [a.metadata.uid for a in other.client.list(ServiceAccount, "kube-system").items] == [
        a.metadata.uid for a in accounts
    ]


def test_the_accounts_leave_the_seeded_generator_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Creating the accounts draws nothing from the control plane's generator, so the uids, names
    and placements after it are those a control plane without them would draw."""
    with_accounts = ControlPlane(seed=7)
    monkeypatch.setattr(controller_accounts, "ensure_controller_account", lambda server, account: False)
    monkeypatch.setattr(
        "kbatch.runtime.controlplane.ensure_controller_account", lambda server, account: False
    )
    without = ControlPlane(seed=7)
    assert without.client.list(ServiceAccount, "kube-system").items[0].metadata.name == "default"
    assert with_accounts.server.rng.getstate() == without.server.rng.getstate()


def _policy(name: str, expression: str, resource: str = "pods") -> list[dict[str, Any]]:
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": [resource]}]
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {
                "matchConstraints": {"resourceRules": rules},
                "validations": [
                    {"expression": expression, "messageExpression": "'not by ' + request.userInfo.username"}
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name},
            "spec": {"policyName": name, "validationActions": ["Deny"]},
        },
    ]


def _job_pods_after(expression: str) -> tuple[int, list[str]]:
    cp = ControlPlane(seed=5)
    cp.apply(_policy("who", expression))
    cp.apply([make_node("n1").obj(), make_job("j").completions(1).obj()])
    cp.advance(5)
    pods = len(cp.client.list(Pod, "default").items)
    failed = [e.message or "" for e in cp.client.list(Event, "default").items if e.reason == "FailedCreate"]
    return pods, failed


def test_a_policy_can_single_out_the_job_controller() -> None:
    pods, failed = _job_pods_after(f"request.userInfo.username != '{KCM}job-controller'")
    assert pods == 0
    assert failed and all(f"not by {KCM}job-controller" in m for m in failed)


def test_a_policy_for_admins_only_stops_the_job_controller_as_upstream() -> None:
    """The job controller is not in system:masters on a kind cluster either."""
    pods, failed = _job_pods_after("'system:masters' in request.userInfo.groups")
    assert (pods, bool(failed)) == (0, True)


def test_a_policy_that_trusts_kube_system_accounts_lets_the_job_controller_work() -> None:
    pods, failed = _job_pods_after(
        "'system:masters' in request.userInfo.groups || "
        "'system:serviceaccounts:kube-system' in request.userInfo.groups"
    )
    assert (pods, failed) == (1, [])


def _refused(cp: ControlPlane, write: Callable[[], object]) -> str | None:
    try:
        with acting_as(node_user("n1")):
            write()
    except Forbidden as err:
        return err.message
    return None


def test_node_restriction_in_process() -> None:
    """The simulated kubelets' own writes pass NodeRestriction (the Job runs); a write as node n1 to
    what is node n2's is refused, unless the plugin is disabled."""
    cp = ControlPlane(seed=2)
    cp.apply(
        [make_node("n1").obj(), make_node("n2").obj(), make_job("j").completions(4).parallelism(4).obj()]
    )
    cp.advance(60)
    assert cp.client.get(Job, "j", "default").status.succeeded == 4
    renew = {"spec": {"holderIdentity": "n1"}}
    assert _refused(cp, lambda: cp.client.patch(Lease, "n2", renew, "kube-node-lease")) == (
        'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as '
        "the requesting node"
    )
    assert _refused(cp, lambda: cp.client.patch(Lease, "n1", renew, "kube-node-lease")) is None
    off = ControlPlane(seed=2, disable_admission_plugins="NodeRestriction")
    off.apply([make_node("n1").obj(), make_node("n2").obj()])
    off.advance(1)
    assert _refused(off, lambda: off.client.patch(Lease, "n2", renew, "kube-node-lease")) is None


def test_a_component_s_tracked_writes_name_its_user_agent_as_manager() -> None:
    """Upstream's handlers take the user agent's product as the field manager of a write that names
    none (k8s.io/apiserver ``pkg/endpoints/handlers/create.go`` ``managerOrUserAgent``):
    ``kube-controller-manager`` for the job controller's status writes, ``kubelet`` for a node's."""
    cp = ControlPlane(seed=4)
    cp.apply([make_node("n1").obj()])
    job = Job.model_validate(make_job("j").completions(1).obj())
    cp.client.apply(job, field_manager="deployer")
    cp.advance(30)
    managers = {
        (e.manager, e.operation, e.subresource)
        for e in cp.client.get(Job, "j", "default").metadata.managed_fields
    }
    assert managers == {("deployer", "Apply", None), ("kube-controller-manager", "Update", "status")}
