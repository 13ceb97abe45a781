"""Composing families: order, clashes, admission plugin selection (kube-apiserver's flags), gates."""

from __future__ import annotations

import dataclasses

import pytest
from example_family import EXAMPLE
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.features import FeatureGateError, FeatureGates, FeatureSpec, Stage, parse_feature_gates
from kbatch.families import (
    BATCH,
    BUILTIN_FAMILIES,
    CORE,
    DRA,
    STORAGE,
    AdmissionSelectionError,
    VirtualResource,
    builtin,
    compose,
)

JOBSET_HOOKS = ["mjobset.kb.io", "mpod.kb.io", "vjobset.kb.io", "vpod.kb.io"]
KUEUE_HOOKS = ["KueueWebhooks", "KueueJobWebhooks"]


def test_builtin_composition_lists_core_then_batch() -> None:
    composed = builtin()
    assert [f.name for f in composed.families] == [
        "core", "batch", "storage", "rbac", "admission-policy", "dra", "gang", "coscheduling", "jobset",
        "kueue", "autoscaling", "multicluster"]
    assert [p.name for p in composed.admission] == [
        "NamespaceLifecycle", "LimitRanger", "ServiceAccount", "DefaultTolerationSeconds", "Priority",
        "ResourceQuota", "NodeRestriction", "RuntimeClass", "DefaultStorageClass",
        "StorageObjectInUseProtection",
        "ValidatingAdmissionPolicy",
        "MutatingAdmissionPolicy",
        "DynamicResourceAllocation",
        "PodGroupProtection", *JOBSET_HOOKS, *KUEUE_HOOKS]
    names = [c.name for c in composed.controllers]
    assert names.index("scheduler") < names.index("job")
    assert [a.name for a in composed.cluster_addons()] == ["default-storage-class"]
    registry = composed.registry()
    assert registry.for_name("jobs").gc_policy == "Orphan"
    assert registry.for_name("pods").gc_policy == "Background"


def test_what_each_family_serves_without_storage() -> None:
    """Core declares the create-only reviews (kube-apiserver installs them whatever the authorization
    mode) and the APIService-aggregated metrics.k8s.io; kueue its visibility API (two APIServices,
    v1beta2 first: the preferred version); no other built-in family serves a virtual resource."""
    served = {f.name: [(v.api_version, v.plural, v.verbs, v.aggregated) for v in f.virtual]
              for f in BUILTIN_FAMILIES}
    reviews = [("authentication.k8s.io/v1", "selfsubjectreviews"),
               ("authentication.k8s.io/v1", "tokenreviews"),
               ("authorization.k8s.io/v1", "selfsubjectaccessreviews"),
               ("authorization.k8s.io/v1", "subjectaccessreviews"),
               ("authorization.k8s.io/v1", "localsubjectaccessreviews"),
               ("authorization.k8s.io/v1", "selfsubjectrulesreviews")]
    metrics = [("metrics.k8s.io/v1beta1", plural, ("get", "list"), "v1beta1.metrics.k8s.io")
               for plural in ("nodes", "pods")]
    assert served.pop("core") == [(gv, plural, ("create",), "") for gv, plural in reviews] + metrics
    visibility = [(f"visibility.kueue.x-k8s.io/{v}", plural, verbs, f"{v}.visibility.kueue.x-k8s.io")
                  for v in ("v1beta2", "v1beta1") for plural in ("clusterqueues", "localqueues")
                  for verbs in [()]]
    assert served.pop("kueue") == visibility
    assert all(not virtual for virtual in served.values())
    assert builtin().virtual[:len(CORE.virtual)] == CORE.virtual
    registry = builtin().registry()
    assert registry.virtual_for("authorization.k8s.io/v1", "LocalSubjectAccessReview").namespaced is True
    assert [v.kind for v in builtin().registry(served={("metrics.k8s.io/v1beta1", "PodMetrics")}).virtual()] \
        == ["PodMetrics"]  # a client's registry keeps what the server's discovery offers


def test_what_each_family_declares_beyond_status() -> None:
    """Subresources of stored kinds other than ``status``: core's Pod (log, eviction, ephemeral
    containers, the connect ones) and ServiceAccount (token, answered by its handler); no other."""
    declared = {(f.name, k.model.api_info.kind): [(s.name, s.handler is not None) for s in k.subresources]
                for f in BUILTIN_FAMILIES for k in f.kinds if k.subresources}
    assert declared == {
        ("core", "Pod"): [("log", False), ("eviction", False), ("ephemeralcontainers", False),
                          ("attach", False), ("exec", False), ("portforward", False), ("proxy", False)],
        ("core", "ServiceAccount"): [("token", True)]}
    token = builtin().registry().for_name("serviceaccounts").subresource("token")
    assert token is not None and (token.group, token.version, token.kind) == \
        ("authentication.k8s.io", "v1", "TokenRequest")


@pytest.mark.parametrize("clash", [
    dataclasses.replace(EXAMPLE, name="core"),
    dataclasses.replace(EXAMPLE, name="x", kinds=BATCH.kinds[:1]),
    dataclasses.replace(EXAMPLE, name="x", admission=CORE.admission[:1]),
    dataclasses.replace(EXAMPLE, name="x", controllers=BATCH.controllers[1:2]),
    dataclasses.replace(EXAMPLE, name="x", scheduler_plugins=CORE.scheduler_plugins[:1]),
    dataclasses.replace(EXAMPLE, name="x", cluster_addons=STORAGE.cluster_addons),
    dataclasses.replace(EXAMPLE, name="x", virtual=CORE.virtual[:1]),
    dataclasses.replace(EXAMPLE, name="x", virtual=(dataclasses.replace(CORE.virtual[0], kind="Other"),)),
    dataclasses.replace(EXAMPLE, name="x", virtual=(VirtualResource("batch", "v1", "x", "Job", "m:f"),)),
])
def test_two_families_may_not_declare_the_same_thing(clash: object) -> None:
    with pytest.raises(ValueError, match="two families declare the"):
        compose((*BUILTIN_FAMILIES, clash))  # type: ignore[arg-type]


def test_admission_selection_follows_kube_apiservers_flags() -> None:
    composed = compose((CORE, BATCH, DRA, EXAMPLE))  # the admission plugins of these families only
    default = [p.name for p in composed.admission_plugins()]
    assert default == ["NamespaceLifecycle", "LimitRanger", "ServiceAccount", "DefaultTolerationSeconds",
                       "Priority", "ResourceQuota", "NodeRestriction", "RuntimeClass",
                       "DynamicResourceAllocation", "GizmoLabels"]
    assert [p.name for p in composed.admission_plugins(disable="Priority,GizmoLabels")] == \
        ["NamespaceLifecycle", "LimitRanger", "ServiceAccount", "DefaultTolerationSeconds", "ResourceQuota",
         "NodeRestriction", "RuntimeClass", "DynamicResourceAllocation"]
    # enabling an already-enabled plugin changes nothing; the order is the recommended one, not the flag's
    assert [p.name for p in composed.admission_plugins(enable=["Priority", "NamespaceLifecycle"])] == default
    with pytest.raises(AdmissionSelectionError, match=r"\[Priority\] in enable-admission-plugins and "
                                                      "disable-admission-plugins overlapped"):
        composed.admission_plugins(enable="Priority", disable="Priority")
    with pytest.raises(AdmissionSelectionError, match='disable-admission-plugins plugin "Nope" is unknown'):
        composed.admission_plugins(disable="Nope")


def test_a_plugin_off_by_default_runs_only_when_enabled() -> None:
    off = dataclasses.replace(EXAMPLE, admission=(dataclasses.replace(EXAMPLE.admission[0],
                                                                      enabled_by_default=False),))
    composed = compose((*BUILTIN_FAMILIES, off))
    assert "GizmoLabels" not in [p.name for p in composed.admission_plugins()]
    assert "GizmoLabels" in [p.name for p in composed.admission_plugins(enable="GizmoLabels")]


gate_names = st.sampled_from(["A", "B", "C"])


@given(st.dictionaries(gate_names, st.booleans()))
def test_feature_gates_round_trip_through_the_flag(overrides: dict[str, bool]) -> None:
    specs = [FeatureSpec("A", False, Stage.ALPHA), FeatureSpec("B", True, Stage.BETA),
             FeatureSpec("C", False, Stage.BETA)]
    gates = FeatureGates(specs, overrides)
    for name in "ABC":
        assert gates.enabled(name) is overrides.get(name, next(s.default for s in specs if s.name == name))
    again = FeatureGates(specs, gates.as_flag())
    assert [again.enabled(n) for n in "ABC"] == [gates.enabled(n) for n in "ABC"]
    assert parse_feature_gates(gates.as_flag()) == gates.overridden()


@pytest.mark.parametrize(("flag", "message"), [
    ("A", "missing bool value for A"),
    ("A=yes", 'invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'),
])
def test_malformed_gate_flags_are_refused(flag: str, message: str) -> None:
    with pytest.raises(FeatureGateError, match=message):
        FeatureGates([FeatureSpec("A", False, Stage.ALPHA)], flag)
