"""Update ratchets of pod validation: ``PodValidationOptions`` computed from the OLD pod or pod template,
so that a value an older server stored does not make every later write of that object fail.

Sources: kubernetes ``pkg/api/pod/util.go`` ``GetValidationOptionsFromPodSpecAndMeta`` /
``GetValidationOptionsFromPodTemplate`` (stored copy with ``AllowRestartAllContainers`` and
``AllowTaintTolerationComparisonOperators``, 1.35+) and ``pkg/api/pod/util_test.go``
``TestValidateTopologySpreadConstraintLabelSelectorOption`` and
``TestValidateAllowNonLocalProjectedTokenPathOption`` (stored copy 000f2605), translated case by case
onto :func:`options_from_old`. The rest check each option end to end through kbatch's API server: the
old object is put in the store behind the server's back (as an older server left it), then a
metadata-only update must be accepted, while a create with the same spec, or an update that brings
the violation in, is refused. Pods, Jobs (``validationOptionsForJob``) and CronJobs
(pkg/registry/batch/cronjob/strategy.go) alike.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.core_v1 import Pod, PodSpec
from kbatch.api.errors import Invalid
from kbatch.api.strategies.core.pod_defaults import default_pod
from kbatch.api.strategies.core.pod_validation import validate_pod_spec
from kbatch.api.strategies.core.pod_validation_options import STRICT, options_from_old
from kbatch.apiserver import APIServer
from tests.api.upstream_pod import ctr, server

# --- pkg/api/pod/util_test.go tables, onto options_from_old --------------------------------------


def _spec(**fields: Any) -> PodSpec:
    return PodSpec.model_validate({"containers": [ctr()], **fields})


def _token(path: str) -> dict[str, Any]:
    return {"name": "foo", "projected": {"sources": [{"serviceAccountToken": {"path": path}}]}}


def test_create_uses_the_strict_options() -> None:
    """Both tables' "Create" case: no old spec, no relaxation (kbatch: the create path passes STRICT)."""
    assert not STRICT.allow_invalid_topology_spread_constraint_label_selector
    assert not STRICT.allow_non_local_projected_token_path
    assert STRICT.allow_only_recursive_selinux_change_policy


@pytest.mark.parametrize(("case", "selector", "want"), [
    ("UpdateInvalidLabelSelector", {"matchLabels": {"NoUppercaseOrSpecialCharsLike=Equals": "foo"}}, True),
    ("UpdateValidLabelSelector", {"matchLabels": {"foo": "foo"}}, False),
    ("UpdateEmptyLabelSelector", None, False),
])
def test_topology_spread_constraint_label_selector_option(case: str, selector: Any, want: bool) -> None:
    """TestValidateTopologySpreadConstraintLabelSelectorOption."""
    constraint = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                  "labelSelector": selector}
    got = options_from_old(_spec(topologySpreadConstraints=[constraint]))
    assert got.allow_invalid_topology_spread_constraint_label_selector is want, case


@pytest.mark.parametrize(("case", "volume", "want"), [
    ("UpdateInvalidProjectedTokenPath", _token("../foo"), True),
    ("UpdateValidProjectedTokenPath", _token("foo"), False),
    ("UpdateEmptyProjectedTokenPath", {"name": "foo", "hostPath": {"path": "foo"}}, False),
])
def test_allow_non_local_projected_token_path_option(case: str, volume: Any, want: bool) -> None:
    """TestValidateAllowNonLocalProjectedTokenPathOption."""
    assert options_from_old(_spec(volumes=[volume])).allow_non_local_projected_token_path is want, case


def _node_affinity(terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def _foo_in(value: str) -> list[dict[str, Any]]:
    return [{"matchExpressions": [{"key": "foo", "operator": "In", "values": [value]}]}]


@pytest.mark.parametrize(("case", "terms", "want"), [
    ("UpdateInvalidLabelSelector", _foo_in("-1"), True),
    ("UpdateValidLabelSelector", _foo_in("bar"), False),
    ("UpdateEmptyLabelSelector", [], False),
])
def test_invalid_label_value_in_node_selector_option(case: str, terms: Any, want: bool) -> None:
    """TestValidateInvalidLabelValueInNodeSelectorOption."""
    got = options_from_old(_spec(affinity=_node_affinity(terms)))
    assert got.allow_invalid_label_value_in_required_node_affinity is want, case


def test_sidecar_resize_policy_is_allowed_on_create() -> None:
    """TestValidateAllowSidecarResizePolicy: the option defaults to the InPlacePodVerticalScaling
    gate (GA, on), so a sidecar's resizePolicy is valid whatever the old pod had; kbatch models no
    option for it and accepts it on create."""
    sidecar = ctr("c1-restartable-init", restartPolicy="Always",
                  resizePolicy=[{"resourceName": "cpu", "restartPolicy": "NotRequired"}])
    assert server().create(_pod({"initContainers": [sidecar]})).metadata.uid


# --- each option end to end ----------------------------------------------------------------------

NODE_AFFINITY_BAD = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["-bad-"]}]}]}}}
POD_AFFINITY_BAD = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
    "topologyKey": "zone",
    "labelSelector": {"matchExpressions": [{"key": "k", "operator": "In", "values": ["-bad-"]}]}}]}}
SPREAD_BAD = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchExpressions": [{"key": "k", "operator": "In", "values": ["-bad-"]}]}}]

# (option, the spec fields a 1.37 create refuses, the field of the error)
RATCHETS: list[tuple[str, dict[str, Any], str]] = [
    ("AllowNamespacedSysctlsForHostNetAndHostIPC (hostNetwork)",
     {"hostNetwork": True, "securityContext": {"sysctls": [{"name": "net.ipv4.ip_forward", "value": "1"}]}},
     "securityContext.sysctls[0].name"),
    ("AllowNamespacedSysctlsForHostNetAndHostIPC (hostIPC)",
     {"hostIPC": True, "securityContext": {"sysctls": [{"name": "kernel.shmmax", "value": "1"}]}},
     "securityContext.sysctls[0].name"),
    ("AllowInvalidLabelValueInRequiredNodeAffinity", {"affinity": NODE_AFFINITY_BAD},
     "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
     ".matchExpressions[0].values[0]"),
    ("AllowInvalidLabelValueInSelector", {"affinity": POD_AFFINITY_BAD},
     "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
     ".matchExpressions[0].values[0]"),
    ("AllowInvalidTopologySpreadConstraintLabelSelector", {"topologySpreadConstraints": SPREAD_BAD},
     "topologySpreadConstraints[0].labelSelector.matchExpressions[0].values[0]"),
    ("AllowNonLocalProjectedTokenPath", {"volumes": [_token("../foo")]}, "volumes[0].projected.path"),
    ("AllowOnlyRecursiveSELinuxChangePolicy", {"securityContext": {"seLinuxChangePolicy": "MountOption"}},
     "securityContext.seLinuxChangePolicy"),
    ("OldPodViolatesMatchLabelKeysValidation",
     {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                     "whenUnsatisfiable": "ScheduleAnyway", "matchLabelKeys": ["app"]}]},
     "topologySpreadConstraints[0].matchLabelKeys"),
]
IDS = [case[0] for case in RATCHETS]


def _pod(spec: dict[str, Any]) -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                               "spec": {"containers": [ctr()], **spec}})


def _job(spec: dict[str, Any]) -> Job:
    template = {"spec": {"restartPolicy": "Never", "containers": [ctr()], **spec}}
    return Job.model_validate({"metadata": {"name": "j", "namespace": "default"},
                               "spec": {"template": template}})


def _cronjob(spec: dict[str, Any]) -> CronJob:
    template = {"spec": {"restartPolicy": "Never", "containers": [ctr()], **spec}}
    return CronJob.model_validate({"metadata": {"name": "c", "namespace": "default"},
                                   "spec": {"schedule": "* * * * *",
                                            "jobTemplate": {"spec": {"template": template}}}})


def _pod_spec_of(wire: dict[str, Any]) -> dict[str, Any]:
    """The pod spec inside a Pod, Job or CronJob wire form."""
    if wire["kind"] == "Pod":
        return dict(wire["spec"])
    if wire["kind"] == "Job":
        return dict(wire["spec"]["template"]["spec"])
    return dict(wire["spec"]["jobTemplate"]["spec"]["template"]["spec"])


def _set_pod_spec(wire: dict[str, Any], spec: dict[str, Any]) -> None:
    if wire["kind"] == "Pod":
        wire["spec"] = spec
    elif wire["kind"] == "Job":
        wire["spec"]["template"]["spec"] = spec
    else:
        wire["spec"]["jobTemplate"]["spec"]["template"]["spec"] = spec


def _merge(spec: dict[str, Any], bad: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(spec)
    for key, value in copy.deepcopy(bad).items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _stored_with(api: APIServer, obj: Pod | Job | CronJob, bad: dict[str, Any]) -> dict[str, Any]:
    """Create ``obj`` (valid), then put it back with ``bad`` merged into its pod spec behind the
    server's back, as an older server would have stored it; the wire form of what is stored."""
    stored = api.create(obj)
    wire = copy.deepcopy(stored.to_dict())
    wire.setdefault("kind", type(obj).__name__)
    _set_pod_spec(wire, _merge(_pod_spec_of(wire), bad))
    del wire["metadata"]["resourceVersion"]
    kind = api.kind(type(obj))
    old = type(obj).model_validate(wire)
    kind.strategy.default(old)  # stored as the server defaulted it then
    api.store.put(kind.keys.key("default", obj.metadata.name), old.to_json())
    return api.get(type(obj), obj.metadata.name, "default").to_dict()


def _relabelled(cls: type[Pod | Job | CronJob], wire: dict[str, Any]) -> Pod | Job | CronJob:
    new = copy.deepcopy(wire)
    new["metadata"]["labels"] = {**(new["metadata"].get("labels") or {}), "touched": "yes"}
    return cls.model_validate(new)


MAKERS = [("Pod", _pod), ("Job", _job), ("CronJob", _cronjob)]


@pytest.mark.parametrize(("kind", "make"), MAKERS, ids=[m[0] for m in MAKERS])
@pytest.mark.parametrize(("option", "bad", "field"), RATCHETS, ids=IDS)
def test_a_create_with_the_violation_is_refused(kind: str, make: Any, option: str, bad: dict[str, Any],
                                               field: str) -> None:
    with pytest.raises(Invalid) as err:
        server().create(make(bad))
    fields = [c["field"] for c in err.value.status.to_dict()["details"]["causes"]]
    assert any(f.endswith(field) for f in fields), (option, fields)


@pytest.mark.parametrize(("kind", "make"), MAKERS, ids=[m[0] for m in MAKERS])
@pytest.mark.parametrize(("option", "bad", "field"), RATCHETS, ids=IDS)
def test_an_update_keeps_what_the_stored_object_already_had(kind: str, make: Any, option: str,
                                                            bad: dict[str, Any], field: str) -> None:
    """The stored object already broke the rule: a metadata-only update is accepted (upstream's
    option for the rule is true, computed from the old object)."""
    api = server()
    base = {k: v for k, v in bad.items() if k in ("hostNetwork", "hostIPC")}
    wire = _stored_with(api, make(base), bad)
    updated = api.update(_relabelled(type(make({})), wire))
    assert (updated.metadata.labels or {})["touched"] == "yes", option


@pytest.mark.parametrize(("option", "bad", "field"), RATCHETS, ids=IDS)
def test_a_job_update_that_brings_the_violation_in_is_refused(option: str, bad: dict[str, Any],
                                                              field: str) -> None:
    """The old template was valid, so the option stays off: the violation the update brings in (a
    suspended, never started Job may change its template's scheduling directives; elsewhere the
    immutable template is refused too) is reported at its field."""
    api = server()
    base = {k: v for k, v in bad.items() if k in ("hostNetwork", "hostIPC")}
    stored = api.create(_job(base)).to_dict()
    new = copy.deepcopy(stored)
    new["spec"]["template"]["spec"] = _merge(new["spec"]["template"]["spec"], bad)
    with pytest.raises(Invalid) as err:
        api.update(Job.model_validate(new))
    fields = [c["field"] for c in err.value.status.to_dict()["details"]["causes"]]
    assert any(f.endswith(field) for f in fields), (option, fields)


def test_mount_option_is_kept_but_another_value_still_is_not() -> None:
    """With the old MountOption the supported values are Recursive and MountOption, not any value
    (``validateSELinuxChangePolicy`` with ``AllowOnlyRecursiveSELinuxChangePolicy`` false)."""
    api = server()
    wire = _stored_with(api, _cronjob({}), {"securityContext": {"seLinuxChangePolicy": "MountOption"}})
    spec = wire["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    spec["securityContext"]["seLinuxChangePolicy"] = "Never"
    with pytest.raises(Invalid) as err:
        api.update(CronJob.model_validate(wire))
    causes = err.value.status.to_dict()["details"]["causes"]
    assert [(c["field"], c["reason"]) for c in causes] == [
        ("spec.jobTemplate.spec.template.spec.securityContext.seLinuxChangePolicy", "FieldValueNotSupported")]
    assert "MountOption" in causes[0]["message"] and "Recursive" in causes[0]["message"]


def test_options_of_a_plain_old_spec_are_the_strict_ones() -> None:
    """Most pods set nothing an option looks at: the update path answers the shared strict options
    without scanning (the pod update path is hot)."""
    assert options_from_old(_spec()) is STRICT


# --- the invariant: options only relax, and an object is always valid against itself as old -----

_FRAGMENTS = [bad for _, bad, _ in RATCHETS]


def _spec_errors(spec: dict[str, Any], relaxed: bool) -> set[str]:
    obj = _pod(spec)
    default_pod(obj)
    opts = options_from_old(obj.spec) if relaxed else STRICT
    return {str(e) for e in validate_pod_spec(obj.spec, "spec", opts)}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(range(len(_FRAGMENTS))), unique=True, max_size=4))
def test_a_spec_validated_against_itself_as_old_has_no_ratcheted_error(chosen: list[int]) -> None:
    """Whatever mix of rules the stored spec broke, validating it with the options computed from
    itself finds none of them (a no-op update always passes), and the relaxed errors are a subset
    of the strict ones (an option never adds an error)."""
    spec: dict[str, Any] = {}
    for i in chosen:
        spec = _merge(spec, _FRAGMENTS[i])
    relaxed, strict = _spec_errors(spec, True), _spec_errors(spec, False)
    assert relaxed == set()
    assert relaxed <= strict
    assert bool(strict) == bool(chosen)
