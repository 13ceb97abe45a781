"""Would RBAC allow what kbatch's components write? kbatch carries the components' users to admission
but does not authorize in-process writes (docs/rbac.md, "Who a request is"); upstream authorizes every
request, so a write kbatch's controllers make that their bootstrap role lacks is either a rule gap in
kbatch's copy of the policy or something upstream's controller does not do.

This audit runs the standard scenarios (the examples: Jobs, JobSet, Kueue, DRA, gangs) with a
validating hook that asks kbatch's RBAC authorizer, over the bootstrap policy, about every write made
by a kube-controller-manager account, the scheduler or a kubelet (the kubelets through the
``system:node`` rules, which upstream's Node authorizer applies), and expects no denial. Admission
cannot tell an update from a patch, so an UPDATE passes with either verb; a binding or an eviction
is asked as ``pods/binding`` or ``pods/eviction``. The add-ons' accounts
(Kueue, JobSet, scheduler-plugins) are authorized by their install manifests' roles, which kbatch
does not store: not audited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbatch import ControlPlane
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.stored_rbac import stored_rbac
from kbatch.apiserver.subresource_admission import request_info
from kbatch.authz.rbac import RbacSnapshot, authorize
from kbatch.authz.user import Attributes
from kbatch.testing.builders import make_node

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AUDITED = ("system:serviceaccount:kube-system:", "system:kube-scheduler", "system:node:")
RBAC = "rbac.authorization.k8s.io"
NODE_BINDING = {"metadata": {"name": "audit:nodes"},
                "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "system:node"},
                "subjects": [{"apiGroup": RBAC, "kind": "Group", "name": "system:nodes"}]}
SCENARIOS = {
    "jobs": ["pi-job.yaml", "indexed-job.yaml", "indexed-job-with-service.yaml", "pod-failure-policy.yaml"],
    "jobset": ["jobset.yaml"],
    "kueue": ["kueue/queues.yaml", "kueue/job.yaml", "kueue/pod.yaml", "kueue/pod-group.yaml"],
    "dra": ["dra/gpu-pod.yaml"],
    "gang": ["gang/native-podgroup.yaml", "gang/coscheduling-podgroup.yaml"],
}
GATES = {"gang": "GenericWorkload=true"}
VERBS = {"CREATE": ("create",), "UPDATE": ("update", "patch"), "DELETE": ("delete",)}


def _audit(cp: ControlPlane, checked: set[str]) -> set[str]:
    base = stored_rbac(cp.server)
    snapshot = RbacSnapshot(base.roles, base.role_bindings, base.cluster_roles,
                            [*base.cluster_role_bindings, NODE_BINDING])
    denied: set[str] = set()

    def hook(req: AdmissionRequest) -> None:
        user = req.user
        if not user.name.startswith(AUDITED):
            return
        checked.add(user.name)
        info = request_info(req)  # pods for a Binding or an Eviction
        meta = req.obj.metadata
        for verb in VERBS[req.operation]:
            attrs = Attributes(user, verb, namespace=meta.namespace or "", api_group=info.group,
                               resource=info.plural, subresource=req.subresource, name=meta.name or "")
            if authorize(attrs, snapshot).allowed:
                return
        denied.add(f"{user.name} {'/'.join(VERBS[req.operation])} {info.group_resource}"
                   f"{'/' + req.subresource if req.subresource else ''}")

    cp.server.admission.add_validating(None, hook, deletes=True)
    return denied


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_components_writes_are_within_their_bootstrap_roles(scenario: str) -> None:
    cp = ControlPlane(seed=11, feature_gates=GATES.get(scenario))
    checked: set[str] = set()
    denied = _audit(cp, checked)
    nodes = [make_node(f"n{i}").capacity(cpu="16", memory="64Gi").obj() for i in range(4)]
    cp.apply(nodes)
    for name in SCENARIOS[scenario]:
        cp.apply((EXAMPLES / name).read_text())
    cp.advance(600)
    for job in cp.client.list(cp.registry.for_gvk("batch/v1", "Job").model).items:  # and their cleanup
        meta = job.metadata
        cp.client.delete(type(job), meta.name, meta.namespace, propagation_policy="Background")
    cp.advance(60)
    assert sorted(denied) == [], json.dumps(sorted(denied), indent=1)
    assert {"system:node:n0", "system:serviceaccount:kube-system:job-controller"} & checked, checked
