"""The bootstrap policy a fresh control plane holds, against upstream's rendered policy
(``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/{cluster-roles,cluster-role-bindings,
controller-roles,controller-role-bindings,namespace-roles,namespace-role-bindings}.yaml``, every gate
at its 1.37 default), encoded in ``rbac_bootstrap_golden.txt``: one block per object, by kind,
namespace and name, as the testdata files sort them; a rule is ``verbs | apiGroups | resources |
resourceNames | nonResourceURLs``. The objects are read through the API, so this is what ``kubectl get
-o yaml`` shows. ``python tests/families/test_rbac_bootstrap_policy.py --write`` rewrites the file
after a deliberate change.

Also translated: ``controller_policy_test.go`` (``TestNoStarsForControllers``,
``TestControllerRoleLabel``, ``TestControllerRoleVerbsConsistency``,
``TestPodGroupProtectionControllerRBAC``, ``TestJobControllerSchedulingRules``) and ``policy_test.go``
(every bootstrap object labelled and annotated, the aggregated roles' relationship).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from kbatch.families.rbac.bootstrap_policy import bootstrap_objects
from kbatch.runtime.controlplane import ControlPlane

GOLDEN = Path(__file__).with_name("rbac_bootstrap_golden.txt")
KINDS = (ClusterRole, ClusterRoleBinding, Role, RoleBinding)
DEFAULT_LABEL = "kubernetes.io/bootstrapping=rbac-defaults"


def _cell(values: Any) -> str:
    """A list, its empty strings (the core group) written ``""``; ``-`` for none."""
    return ",".join(v or '""' for v in values) if values else "-"


def _rule_line(rule: dict[str, Any]) -> str:
    keys = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")
    return "  " + " | ".join(_cell(rule.get(k)) for k in keys)


def _block(obj: dict[str, Any]) -> list[str]:
    meta = obj["metadata"]
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    lines = [f"{obj['kind']} {where}{meta['name']}"]
    labels = sorted(f"{k}={v}" for k, v in (meta.get("labels") or {}).items())
    lines += [f"  label {label}" for label in labels if label != DEFAULT_LABEL]
    for selector in (obj.get("aggregationRule") or {}).get("clusterRoleSelectors") or ():
        lines.append(
            "  aggregate " + ",".join(f"{k}={v}" for k, v in sorted(selector["matchLabels"].items()))
        )
    if "roleRef" in obj:
        lines.append(f"  roleRef {obj['roleRef']['kind']}/{obj['roleRef']['name']}")
        for s in obj.get("subjects") or ():
            ns = f"{s['namespace']}/" if s.get("namespace") else ""
            lines.append(f"  subject {s['kind']} {ns}{s['name']}")
    elif "aggregationRule" not in obj:  # an aggregated role's rules are the controller's
        lines += [_rule_line(r) for r in obj.get("rules") or ()]
    return lines


def render(cp: ControlPlane) -> str:
    objs = [o.to_dict() for model in KINDS for o in cp.client.list(model).items]
    objs.sort(
        key=lambda o: (
            KINDS.index(next(m for m in KINDS if m.__name__ == o["kind"])),
            o["metadata"].get("namespace") or "",
            o["metadata"]["name"],
        )
    )
    return "\n".join(line for o in objs for line in _block(o)) + "\n"


def test_a_fresh_control_plane_holds_upstreams_bootstrap_policy() -> None:
    got = render(ControlPlane(controllers=[]))
    assert got == GOLDEN.read_text(), "the bootstrap policy moved; see the module docstring"


def test_every_bootstrap_object_is_labelled_and_annotated_for_autoupdate() -> None:
    """policy_test.go ``TestClusterRoleLabel`` and its kin; ``addDefaultMetadata``."""
    for obj in bootstrap_objects():
        meta = obj["metadata"]
        assert meta["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults", meta["name"]
        assert meta["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}, meta["name"]


def _controller_roles(gates: str = "") -> list[dict[str, Any]]:
    cp = ControlPlane(controllers=[], feature_gates=gates)
    return [
        r.to_dict()
        for r in cp.client.list(ClusterRole).items
        if r.metadata.name.startswith("system:controller:")
    ]


ALLOW_STAR = {
    f"system:controller:{n}"
    for n in (
        "namespace-controller",
        "generic-garbage-collector",
        "resourcequota-controller",
        "horizontal-pod-autoscaler",
        "clusterrole-aggregation-controller",
        "disruption-controller",
    )
}


def test_no_stars_for_controllers() -> None:
    """``TestNoStarsForControllers``: only namespace lifecycle, GC, quota, HPA, aggregation and
    disruption may use ``*``."""
    for role in _controller_roles():
        if role["metadata"]["name"] in ALLOW_STAR:
            continue
        for rule in role.get("rules") or ():
            assert "*" not in [*rule["verbs"], *rule.get("apiGroups", ()), *rule.get("resources", ())], role


def test_controller_roles_that_list_also_watch() -> None:
    """``TestControllerRoleVerbsConsistency``."""
    for role in _controller_roles():
        for rule in role.get("rules") or ():
            assert "list" not in rule["verbs"] or "watch" in rule["verbs"], (role["metadata"]["name"], rule)


def test_controller_roles_carry_only_the_bootstrapping_label_and_are_bound_to_their_account() -> None:
    """``TestControllerRoleLabel``; ``addControllerRole`` binds ``system:controller:<n>`` to
    ``kube-system/<n>``."""
    cp = ControlPlane(controllers=[])
    roles = [r for r in cp.client.list(ClusterRole).items if r.metadata.name.startswith("system:controller:")]
    assert len(roles) >= 35
    for role in roles:
        assert role.metadata.labels == {"kubernetes.io/bootstrapping": "rbac-defaults"}
        binding = cp.client.get(ClusterRoleBinding, role.metadata.name)
        assert binding.metadata.labels == {"kubernetes.io/bootstrapping": "rbac-defaults"}
        assert [(s.kind, s.namespace, s.name) for s in binding.subjects or ()] == [
            ("ServiceAccount", "kube-system", role.metadata.name.removeprefix("system:controller:"))
        ]


@pytest.mark.parametrize(("gates", "expect_role"), [("", False), ("GenericWorkload=true", True)])
def test_podgroup_protection_controller_rbac(gates: str, expect_role: bool) -> None:
    """``TestPodGroupProtectionControllerRBAC``."""
    name = "system:controller:podgroup-protection-controller"
    roles = {r["metadata"]["name"]: r for r in _controller_roles(gates)}
    assert (name in roles) == expect_role
    if expect_role:
        assert roles[name]["rules"] == [
            {
                "verbs": ["get", "list", "update", "watch"],
                "apiGroups": ["scheduling.k8s.io"],
                "resources": ["podgroups"],
            },
            {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]},
        ]


@pytest.mark.parametrize(
    ("gates", "want"), [("", False), ("GenericWorkload=true,WorkloadWithJob=true", True)]
)
def test_job_controller_scheduling_rules(gates: str, want: bool) -> None:
    """``TestJobControllerSchedulingRules``: with WorkloadWithJob the job controller may write the
    Job's Workload and PodGroups."""
    job = next(
        r for r in _controller_roles(gates) if r["metadata"]["name"] == "system:controller:job-controller"
    )
    assert (
        any(
            {"workloads", "podgroups"} <= set(r["resources"]) and "scheduling.k8s.io" in r["apiGroups"]
            for r in job["rules"]
        )
        == want
    )


def test_the_kube_system_roles_are_bound_as_upstream() -> None:
    """namespace_policy.go: the authentication reader for the controller manager and scheduler,
    leader locks for each, and the bootstrap-signer also in kube-public."""
    cp = ControlPlane(controllers=[])
    reader = cp.client.get(RoleBinding, "system::extension-apiserver-authentication-reader", "kube-system")
    assert reader.role_ref.name == "extension-apiserver-authentication-reader"
    assert [s.name for s in reader.subjects or ()] == [
        "system:kube-controller-manager",
        "system:kube-scheduler",
    ]
    signer = cp.client.get(Role, "system:controller:bootstrap-signer", "kube-public")
    assert [r.resource_names for r in signer.rules or ()][1] == ["cluster-info"]


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(render(ControlPlane(controllers=[])))
    print(f"wrote {GOLDEN}")
