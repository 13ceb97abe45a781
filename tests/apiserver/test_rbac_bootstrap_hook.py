"""The ``rbac/bootstrap-roles`` post-start hook as upstream's ``EnsureRBACPolicy`` runs it at every
start (``pkg/registry/rbac/rest/storage_rbac.go``): a missing object is created, an autoupdate one gets
back what it lost and keeps what a user added, an ``autoupdate: "false"`` one is left alone, a binding
whose roleRef was changed is recreated; a start that finds the policy in place writes nothing."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.frozen import edit
from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject
from kbatch.apiserver.rbac_reconciliation import reconcile_binding, reconcile_role
from kbatch.families.rbac.bootstrap_policy import bootstrap_objects
from kbatch.runtime.controlplane import ControlPlane

JOB = "system:controller:job-controller"
EXTRA = PolicyRule(verbs=["get"], api_groups=["example.com"], resources=["widgets"])


def _start(cp: ControlPlane) -> None:
    cp.server.run_post_start_hooks()  # what each CLI command's load of its state does


def test_a_start_finding_the_policy_in_place_writes_nothing() -> None:
    cp = ControlPlane(controllers=[])
    revision = cp.server.store.revision
    _start(cp)
    assert cp.server.store.revision == revision


def test_missing_rules_come_back_and_added_ones_stay() -> None:
    cp = ControlPlane(controllers=[])
    role = edit(cp.client.get(ClusterRole, JOB))
    original = list(role.rules or ())
    role.rules = [*original[1:], EXTRA]  # a user dropped the first rule and added one
    cp.client.update(role)
    _start(cp)
    rules = cp.client.get(ClusterRole, JOB).rules or []
    assert EXTRA in rules
    assert rules[: len(original)] == [*original[1:], EXTRA]  # added, never removed
    dropped = original[0]
    broken = [(v, r) for v in dropped.verbs or () for r in dropped.resources or ()]
    assert all(any(v in (x.verbs or ()) and r in (x.resources or ()) for x in rules) for v, r in broken)


def test_autoupdate_false_is_left_alone() -> None:
    cp = ControlPlane(controllers=[])
    role = edit(cp.client.get(ClusterRole, JOB))
    role.metadata.annotations = {"rbac.authorization.kubernetes.io/autoupdate": "false"}
    role.rules = [EXTRA]
    cp.client.update(role)
    revision = cp.server.store.revision
    _start(cp)
    assert cp.client.get(ClusterRole, JOB).rules == [EXTRA]
    assert cp.server.store.revision == revision


def test_a_deleted_role_and_a_lost_subject_are_restored_labels_merged() -> None:
    cp = ControlPlane(controllers=[])
    cp.client.delete(ClusterRole, "system:kube-scheduler")
    binding = edit(cp.client.get(ClusterRoleBinding, "system:public-info-viewer"))
    binding.subjects = [
        Subject(kind="Group", api_group="rbac.authorization.k8s.io", name="system:authenticated")
    ]
    binding.metadata.labels = {"team": "ops"}
    cp.client.update(binding)
    _start(cp)
    assert cp.client.get(ClusterRole, "system:kube-scheduler").rules
    restored = cp.client.get(ClusterRoleBinding, "system:public-info-viewer")
    assert [s.name for s in restored.subjects or ()] == ["system:authenticated", "system:unauthenticated"]
    assert restored.metadata.labels == {"team": "ops", "kubernetes.io/bootstrapping": "rbac-defaults"}


def test_a_binding_to_another_role_is_recreated() -> None:
    cp = ControlPlane(controllers=[])
    name = "system::leader-locking-kube-scheduler"
    old = cp.client.get(RoleBinding, name, "kube-system")
    cp.client.delete(RoleBinding, name, "kube-system")
    cp.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": "kube-system"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "other"},
            "subjects": [{"kind": "User", "name": "jane"}],
        }
    )
    _start(cp)
    new = cp.client.get(RoleBinding, name, "kube-system")
    assert new.role_ref == old.role_ref and new.subjects == old.subjects
    assert new.metadata.uid != old.metadata.uid


def test_the_policy_follows_the_gates() -> None:
    """Gated parts: GenericWorkload adds the podgroup-protection controller's role and binding, and the
    scheduler's rules on workloads and podgroups."""
    off = ControlPlane(controllers=[])
    on = ControlPlane(controllers=[], feature_gates="GenericWorkload=true")
    name = "system:controller:podgroup-protection-controller"
    assert name not in {r.metadata.name for r in off.client.list(ClusterRole).items}
    assert on.client.get(ClusterRoleBinding, name).role_ref.name == name
    scheduler = on.client.get(ClusterRole, "system:kube-scheduler").rules or []
    assert any("workloads" in (r.resources or ()) for r in scheduler)


_MUTATIONS = ("drop-first", "add-extra", "relabel", "reannotate", "delete")


def _mutate(cp: ControlPlane, doc: dict, how: str) -> None:
    model = {
        "ClusterRole": ClusterRole,
        "ClusterRoleBinding": ClusterRoleBinding,
        "Role": Role,
        "RoleBinding": RoleBinding,
    }[doc["kind"]]
    name, namespace = doc["metadata"]["name"], doc["metadata"].get("namespace")
    if how == "delete":
        cp.client.delete(model, name, namespace)
        return
    obj = edit(cp.client.get(model, name, namespace))
    if how == "relabel":
        obj.metadata.labels = {"team": "ops"}
    elif how == "reannotate":
        obj.metadata.annotations = {"note": "x"}
    elif isinstance(obj, (ClusterRoleBinding, RoleBinding)):
        obj.subjects = (
            (obj.subjects or [])[1:]
            if how == "drop-first"
            else [
                *(obj.subjects or []),
                Subject(kind="User", api_group="rbac.authorization.k8s.io", name="extra"),
            ]
        )
    elif obj.rules is not None or how == "add-extra":
        obj.rules = (obj.rules or [])[1:] if how == "drop-first" else [*(obj.rules or []), EXTRA]
    cp.client.update(obj)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(_MUTATIONS)), min_size=1, max_size=4))
def test_a_start_after_any_edits_leaves_nothing_to_reconcile(edits: list[tuple[int, str]]) -> None:
    """Invariant: whatever users did to bootstrap objects (short of ``autoupdate: "false"``), after a
    start every one of them exists and upstream's reconciliation finds nothing more to do; so the
    hook's quick in-sync check never skips an object that needs a write."""
    cp = ControlPlane(controllers=[])
    docs = bootstrap_objects(cp.server.features)
    for index, how in edits:
        _mutate(cp, docs[index % len(docs)], how)
    _start(cp)
    models = {
        "ClusterRole": ClusterRole,
        "ClusterRoleBinding": ClusterRoleBinding,
        "Role": Role,
        "RoleBinding": RoleBinding,
    }
    for doc in docs:
        stored = cp.client.get(models[doc["kind"]], doc["metadata"]["name"], doc["metadata"].get("namespace"))
        decide = reconcile_binding if "roleRef" in doc else reconcile_role
        assert decide(stored.to_dict(), doc).operation == "none", doc["metadata"]["name"]
