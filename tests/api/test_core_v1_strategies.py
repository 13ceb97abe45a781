"""Core strategies: upstream defaulting, validation messages and update rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event, Namespace, Node, Pod, PodTemplateSpec, Service, Toleration
from kbatch.api.go_equal import go_equal
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.api.strategies.core import (
    EventStrategy,
    NamespaceStrategy,
    NodeStrategy,
    PodStrategy,
    PriorityClassStrategy,
    ServiceStrategy,
    default_pod_spec,
    image_pull_policy_for,
    pod_qos_class,
    validate_pod_spec_update,
    validate_pod_template_spec,
    validate_tolerations,
)
from kbatch.api.strategies.core.scheduling_validation import _validate_toleration
from kbatch.api.wire_zeros import tree_of


def pod(spec: dict[str, Any] | None = None, **status: Any) -> Pod:
    body = {"name": "c", "image": "busybox:1.36"}
    data: dict[str, Any] = {
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": spec if spec is not None else {"containers": [body]},
    }
    if status:
        data["status"] = status
    return Pod.from_dict(data)


def defaulted(p: Pod) -> Pod:
    PodStrategy().default(p)
    return p


def errors(p: Pod) -> list[str]:
    return [str(e) for e in PodStrategy().validate(defaulted(p))]


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("busybox", "Always"),
        ("busybox:latest", "Always"),
        ("busybox:1.36", "IfNotPresent"),
        ("registry:5000/x/busybox", "Always"),
        ("registry:5000/busybox:v1", "IfNotPresent"),
        ("busybox@sha256:abcd", "IfNotPresent"),
        ("busybox:latest@sha256:abcd", "Always"),
    ],
)
def test_image_pull_policy(image: str, policy: str) -> None:
    assert image_pull_policy_for(image) == policy


def test_pod_defaults() -> None:
    p = defaulted(
        pod(
            {
                "containers": [
                    {
                        "name": "c",
                        "image": "busybox",
                        "ports": [{"containerPort": 80}],
                        "resources": {"limits": {"cpu": "1"}},
                        "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                        "readinessProbe": {"httpGet": {"port": 80}},
                    }
                ],
                "volumes": [{"name": "v"}, {"name": "s", "secret": {"secretName": "s"}}],
            }
        )
    )
    spec = p.to_dict()["spec"]
    assert {
        k: spec[k]
        for k in (
            "restartPolicy",
            "dnsPolicy",
            "schedulerName",
            "terminationGracePeriodSeconds",
            "securityContext",
            "enableServiceLinks",
        )
    } == {
        "restartPolicy": "Always",
        "dnsPolicy": "ClusterFirst",
        "schedulerName": "default-scheduler",
        "terminationGracePeriodSeconds": 30,
        "securityContext": {},
        "enableServiceLinks": True,
    }
    c = spec["containers"][0]
    assert c["imagePullPolicy"] == "Always"
    assert c["terminationMessagePath"] == "/dev/termination-log"
    assert c["terminationMessagePolicy"] == "File"
    assert c["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert c["resources"] == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    assert c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1"
    assert c["readinessProbe"] == {
        "httpGet": {"path": "/", "port": 80, "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert spec["volumes"] == [
        {"name": "v", "emptyDir": {}},
        {"name": "s", "secret": {"secretName": "s", "defaultMode": 420}},
    ]


def test_template_defaults_do_not_copy_limits_or_service_links() -> None:
    tpl = PodTemplateSpec.from_dict(
        {"spec": {"containers": [{"name": "c", "image": "x:1", "resources": {"limits": {"cpu": "1"}}}]}}
    )
    default_pod_spec(tpl.spec)
    out = tpl.to_dict()["spec"]
    assert "enableServiceLinks" not in out
    assert out["containers"][0]["resources"] == {"limits": {"cpu": "1"}}
    assert validate_pod_template_spec(tpl, "spec.template") == []


def test_defaulted_pod_is_valid_and_defaulting_is_idempotent() -> None:
    p = defaulted(pod())
    assert PodStrategy().validate(p) == []
    again = defaulted(p.clone())
    assert again == p


def test_pod_validation_messages() -> None:
    p = pod(
        {
            "containers": [
                {"name": "Bad", "image": ""},
                {"name": "Bad", "image": "x", "restartPolicy": "Sometime", "imagePullPolicy": "Sometimes"},
            ],
            "restartPolicy": "Sometimes",
            "tolerations": [
                {"operator": "Equal", "value": "x"},
                {"key": "k", "operator": "Exists", "effect": "NoRun"},
            ],
            "nodeSelector": {"a": "-"},
            "schedulingGates": [{"name": "g"}, {"name": "g"}],
            "activeDeadlineSeconds": 0,
        }
    )
    errs = errors(p)
    assert 'spec.containers[0].name: Invalid value: "Bad": a lowercase RFC 1123 label' in errs[0]
    assert "spec.containers[0].image: Required value" in errs
    assert 'spec.containers[1].name: Duplicate value: "Bad"' in errs
    assert (
        'spec.containers[1].imagePullPolicy: Unsupported value: "Sometimes": supported values: '
        '"Always", "IfNotPresent", "Never"'
    ) in errs
    assert ('spec.containers[1].restartPolicy: Unsupported value: "Sometime": supported values: '  # KEP-5307
            '"Always", "Never", "OnFailure"') in errs
    assert (
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'
    ) in errs
    assert (
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is '
        'empty, which means "match all values and all keys"'
    ) in errs
    assert (
        'spec.tolerations[1].effect: Unsupported value: "NoRun": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"'
    ) in errs
    assert any(e.startswith('spec.nodeSelector: Invalid value: "-"') for e in errs)
    assert 'spec.schedulingGates[1]: Duplicate value: "g"' in errs
    assert "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive" in errs


def test_pod_requires_containers_and_known_volumes() -> None:
    assert "spec.containers: Required value" in errors(pod({"containers": []}))
    p = pod(
        {
            "containers": [
                {"name": "c", "image": "x", "volumeMounts": [{"name": "nope", "mountPath": "/x"}]}
            ],
            "volumes": [{"name": "a", "emptyDir": {}, "hostPath": {"path": "/"}}],
        }
    )
    errs = errors(p)
    assert 'spec.containers[0].volumeMounts[0].name: Not found: "nope"' in errs
    assert "spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type" in errs


def test_affinity_validation() -> None:
    p = pod(
        {
            "containers": [{"name": "c", "image": "x"}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1", "2"]}],
                                "matchFields": [{"key": "spec.x", "operator": "In", "values": ["a"]}],
                            }
                        ]
                    }
                },
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 0, "podAffinityTerm": {"topologyKey": ""}}
                    ]
                },
            },
        }
    )
    base = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
    pref = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
    assert errors(p) == [
        f"{base}.matchExpressions[0].values: Required value: must be specified single value when `operator` "
        "is 'Lt' or 'Gt'",
        f'{base}.matchFields[0].key: Invalid value: "spec.x": not a valid field selector key',
        f"{pref}.weight: Invalid value: 0: must be in the range 1-100",
        f"{pref}.podAffinityTerm.topologyKey: Required value: can not be empty",
    ]


def test_sidecar_init_containers() -> None:
    p = pod(
        {
            "initContainers": [
                {
                    "name": "s",
                    "image": "x",
                    "restartPolicy": "Always",
                    "readinessProbe": {"exec": {"command": ["true"]}},
                },
                {
                    "name": "i",
                    "image": "x",
                    "restartPolicy": "Never",
                    "livenessProbe": {"exec": {"command": ["true"]}},
                },
            ],
            "containers": [{"name": "c", "image": "x"}],
        }
    )
    assert errors(p) == [  # an init container's own Never is valid since ContainerRestartRules (KEP-5307)
        "spec.initContainers[1].livenessProbe: Forbidden: may not be set for init containers without "
        "restartPolicy=Always",
    ]


def test_pod_create_sets_pending_and_qos() -> None:
    p = defaulted(
        pod(
            {
                "containers": [
                    {"name": "c", "image": "x", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}
                ]
            },
            phase="Running",
        )
    )
    PodStrategy().prepare_for_create(p)
    assert p.to_dict()["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}
    assert pod_qos_class(pod().spec) == "BestEffort"
    burst = pod({"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]})
    assert pod_qos_class(burst.spec) == "Burstable"


_QUANTITY = st.sampled_from(["0", "100m", "1", "64Mi", "1Gi", "1000m"])
_RESOURCE_LIST = st.dictionaries(st.sampled_from(["cpu", "memory", "ephemeral-storage"]), _QUANTITY,
                                 max_size=3)
_CONTAINER_RESOURCES = st.one_of(st.none(), st.fixed_dictionaries(
    {}, optional={"requests": _RESOURCE_LIST, "limits": _RESOURCE_LIST}))


@settings(max_examples=200, deadline=None)
@given(resources=st.lists(_CONTAINER_RESOURCES, min_size=1, max_size=3), init=st.booleans())
def test_qos_class_follows_upstream_definition(resources: list[dict[str, Any] | None], init: bool) -> None:
    """GetPodQOS (kubernetes pkg/apis/core/helper/qos): BestEffort without any non-zero cpu/memory
    request or limit; Guaranteed when every container limits both and the summed requests equal the
    summed limits; Burstable otherwise."""
    containers = [{"name": f"c{i}", "image": "x", **({"resources": r} if r is not None else {})}
                  for i, r in enumerate(resources)]
    spec = {"initContainers": containers[:1], "containers": containers[1:] or containers[:1]} if init \
        else {"containers": containers}
    p = pod(spec)
    everyone = p.spec.all_containers()

    def nonzero(c: Any, part: str) -> dict[str, Any]:
        values = getattr(c.resources, part) or {} if c.resources else {}
        return {n: q for n, q in values.items() if n in ("cpu", "memory") and not q.is_zero()}

    def total(part: str, name: str) -> int:
        return sum(nonzero(c, part)[name].scaled_value(-9) for c in everyone if name in nonzero(c, part))

    if not any(nonzero(c, "requests") or nonzero(c, "limits") for c in everyone):
        expected = "BestEffort"
    elif all(nonzero(c, "limits").keys() == {"cpu", "memory"} for c in everyone) and all(
            total("requests", n) == total("limits", n)
            and any(n in nonzero(c, "requests") for c in everyone) for n in ("cpu", "memory")):
        expected = "Guaranteed"
    else:
        expected = "Burstable"
    assert pod_qos_class(p.spec) == expected


def test_pod_update_rules() -> None:
    strategy = PodStrategy()
    old = defaulted(
        pod(
            {
                "containers": [{"name": "c", "image": "x:1"}],
                "activeDeadlineSeconds": 100,
                "tolerations": [{"key": "k", "operator": "Exists"}],
                "schedulingGates": [{"name": "a"}, {"name": "b"}],
            }
        )
    )
    ok = old.clone()
    ok.spec.containers[0].image = "x:2"
    ok.spec.active_deadline_seconds = 50
    ok.spec.scheduling_gates = ok.spec.scheduling_gates[1:]
    ok.spec.tolerations = [
        *ok.spec.tolerations,
        *pod({"tolerations": [{"operator": "Exists"}], "containers": []}).spec.tolerations,
    ]
    assert strategy.validate_update(ok, old) == []
    bad = old.clone()
    bad.spec.active_deadline_seconds = 200
    assert [str(e) for e in strategy.validate_update(bad, old)] == [
        "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value"
    ]
    bad = old.clone()
    bad.spec.restart_policy = "Never"
    bad.spec.tolerations = []
    bad.spec.scheduling_gates = [
        *(bad.spec.scheduling_gates or []),
        *pod({"schedulingGates": [{"name": "z"}], "containers": []}).spec.scheduling_gates,
    ]
    errs = [str(e) for e in strategy.validate_update(bad, old)]
    assert errs[0] == (
        "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
    )
    assert errs[1] == (
        "spec.schedulingGates[2].name: Forbidden: only deletion is allowed, "
        "but found new scheduling gate 'z'"
    )
    assert errs[2].startswith(
        "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"
    )
    assert errs[2].endswith("changed: spec.restartPolicy")
    more = old.clone()
    more.spec.containers = [*more.spec.containers, more.spec.containers[0]]
    # validate_update is the whole of upstream's ValidateUpdate: the new pod is revalidated too
    assert [str(e) for e in strategy.validate_update(more, old)] == [
        'spec.containers[1].name: Duplicate value: "c"',
        "spec.containers: Forbidden: pod updates may not add or remove containers",
    ]


def test_pod_status_update_rules() -> None:
    terminated = {"name": "c", "state": {"terminated": {"exitCode": 0}}}
    old = pod(
        {"containers": [{"name": "c", "image": "x"}], "restartPolicy": "Never"},
        phase="Succeeded",
        containerStatuses=[terminated],
    )
    new = old.clone()
    new.status = pod(phase="Running", containerStatuses=[{"name": "c", "state": {"running": {}}}]).status
    assert [str(e) for e in PodStrategy().validate_status_update(new, old)] == [
        "status.phase: Forbidden: may not be transitioned to non-terminal state",
        "status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state",
    ]


def test_node_strategy_keeps_status_and_checks_taints() -> None:
    node = Node.from_dict(
        {
            "metadata": {"name": "n"},
            "spec": {
                "taints": [
                    {"key": "k", "effect": "NoSchedule"},
                    {"key": "k", "effect": "NoSchedule"},
                    {"key": "", "effect": "Bad"},
                ]
            },
            "status": {"capacity": {"cpu": "4"}},
        }
    )
    NodeStrategy().prepare_for_create(node)
    assert node.status is not None and str(node.status.capacity["cpu"]) == "4"
    errs = [str(e) for e in NodeStrategy().validate(node)]
    assert 'spec.taints[1]: Duplicate value: "taint key k, effect NoSchedule"' in errs
    assert (
        'spec.taints[2].effect: Unsupported value: "Bad": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"'
    ) in errs
    assert any(e.startswith('spec.taints[2].key: Invalid value: ""') for e in errs)


def test_namespace_strategy() -> None:
    ns = Namespace.from_dict({"metadata": {"name": "ml"}})
    strategy = NamespaceStrategy()
    strategy.default(ns)
    strategy.prepare_for_create(ns)
    assert ns.to_dict() == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "ml", "labels": {"kubernetes.io/metadata.name": "ml"}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
    bad = Namespace.from_dict({"metadata": {"name": "x"}, "spec": {"finalizers": ["foo"]}})
    assert [str(e) for e in strategy.validate(bad)] == [
        'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully '
        "qualified"
    ]


def test_service_strategy() -> None:
    svc = Service.from_dict(
        {
            "metadata": {"name": "trainer", "namespace": "ns"},
            "spec": {"clusterIP": "None", "ports": [{"port": 80}]},
        }
    )
    strategy = ServiceStrategy()
    strategy.default(svc)
    assert svc.to_dict()["spec"] == {
        "clusterIP": "None",
        "clusterIPs": ["None"],
        "type": "ClusterIP",
        "sessionAffinity": "None",
        "internalTrafficPolicy": "Cluster",
        "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
    }
    assert strategy.validate(svc) == []
    bad = Service.from_dict(
        {
            "metadata": {"name": "1abc"},
            "spec": {
                "type": "Magic",
                "ports": [{"port": 0, "protocol": "TCP"}, {"port": 1, "protocol": "TCP"}],
            },
        }
    )
    errs = [str(e) for e in strategy.validate(bad)]
    assert errs[0].startswith('metadata.name: Invalid value: "1abc": a DNS-1035 label must consist')
    assert (
        'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", '
        '"LoadBalancer", "NodePort"' in errs
    )
    assert "spec.ports[0].name: Required value" in errs
    assert "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive" in errs


def test_event_strategy() -> None:
    ev = Event.from_dict({"metadata": {"name": "e", "namespace": "a"}, "involvedObject": {"namespace": "b"}})
    assert [str(e) for e in EventStrategy().validate(ev)] == [
        'involvedObject.namespace: Invalid value: "b": does not match event.namespace'
    ]


def test_priority_class_strategy() -> None:
    strategy = PriorityClassStrategy()
    pc = PriorityClass.from_dict({"metadata": {"name": "high"}, "value": 2_000_000_000})
    strategy.default(pc)
    assert pc.preemption_policy == "PreemptLowerPriority"
    assert [str(e) for e in strategy.validate(pc)] == [
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
    ]
    system = PriorityClass.from_dict({"metadata": {"name": "system-node-critical"}, "value": 2_000_001_000})
    assert strategy.validate(system) == []
    fake = PriorityClass.from_dict({"metadata": {"name": "system-mine"}, "value": 1})
    assert "system-mine is not a known system priority class" in str(strategy.validate(fake)[0])
    changed = pc.clone()
    changed.value = 5
    assert [str(e) for e in strategy.validate_update(changed, pc)] == [
        "value: Forbidden: may not be changed in an update."
    ]


_TOLERATION = st.builds(
    lambda key, op, value, effect, seconds: Toleration.model_validate(
        {k: v for k, v in {"key": key, "operator": op, "value": value, "effect": effect,
                           "tolerationSeconds": seconds}.items() if v is not None}),
    st.sampled_from([None, "", "k", "node.kubernetes.io/not-ready"]),
    st.sampled_from([None, "Exists", "Equal"]),
    st.sampled_from([None, "", "v"]), st.sampled_from([None, "NoExecute", "NoSchedule"]),
    st.sampled_from([None, 0, 10, 300]))


@settings(max_examples=300, deadline=None)
@given(old=_TOLERATION, new=_TOLERATION)
def test_a_toleration_is_kept_when_only_its_seconds_change(old: Toleration, new: Toleration) -> None:
    """ValidatePodUpdate's toleration rule (validateOnlyAddedTolerations compares a copy of the old
    toleration given the new one's tolerationSeconds): everything but tolerationSeconds equal."""
    strip = {"toleration_seconds": None}
    kept = old.model_copy(update=strip) == new.model_copy(update=strip)
    before = pod({"containers": [{"name": "c", "image": "x"}], "tolerations": [old.to_dict()]})
    after = pod({"containers": [{"name": "c", "image": "x"}], "tolerations": [new.to_dict()]})
    errors = validate_pod_spec_update(after.spec, before.spec)
    assert any("existing toleration can not be modified" in str(e) for e in errors) is not kept


def _masked_reference(new: Any, old: Any) -> Any:
    """The straightforward rule the field-by-field comparison replaced: ``old`` with every field an
    update may change taken from ``new``."""
    masked = old.model_copy(deep=True)
    pairs = ((masked.containers, new.containers), (masked.init_containers or [], new.init_containers or []))
    for mine, theirs in pairs:
        for c, n in zip(mine, theirs, strict=False):
            c.image = n.image
    masked.active_deadline_seconds = new.active_deadline_seconds
    masked.tolerations = new.tolerations
    masked.scheduling_gates = new.scheduling_gates
    if old.scheduling_gates:  # only the node affinity part may change (pod_gated_update checks how)
        masked.node_selector = new.node_selector
        node = new.affinity.node_affinity if new.affinity is not None else None
        if masked.affinity is not None:
            masked.affinity.node_affinity = node
        elif node is not None and new.affinity is not None:
            masked.affinity = new.affinity.model_copy(
                update={"pod_affinity": None, "pod_anti_affinity": None})
    old_grace = old.termination_grace_period_seconds
    if old_grace is not None and old_grace < 0 and new.termination_grace_period_seconds == 1:
        masked.termination_grace_period_seconds = 1
    return masked


_SPEC_VARIANTS: dict[str, Any] = {
    "containers": st.lists(st.fixed_dictionaries(
        {"name": st.sampled_from(["a", "b"]), "image": st.sampled_from(["x", "y"])},
        optional={"command": st.just(["sleep"]), "args": st.just(["1"])}), min_size=1, max_size=2),
    "initContainers": st.one_of(st.none(), st.lists(st.fixed_dictionaries(
        {"name": st.just("i"), "image": st.sampled_from(["x", "y"])},
        optional={"command": st.just(["true"])}), max_size=2)),
    "terminationGracePeriodSeconds": st.sampled_from([None, -1, 1, 30]),
    "nodeSelector": st.sampled_from([None, {}, {"a": "b"}]),
    "schedulingGates": st.sampled_from([None, [], [{"name": "g"}]]),
    "dnsPolicy": st.sampled_from([None, "ClusterFirst", "Default"]),
    "hostname": st.sampled_from([None, "h"]),
}


@settings(max_examples=300, deadline=None)
@given(old=st.fixed_dictionaries({}, optional=_SPEC_VARIANTS),
       new=st.fixed_dictionaries({}, optional=_SPEC_VARIANTS))
def test_changed_spec_fields_match_the_masked_copy_rule(old: dict[str, Any], new: dict[str, Any]) -> None:
    base = {"containers": [{"name": "a", "image": "x"}]}
    before, after = pod({**base, **old}).spec, pod({**base, **new}).spec
    if len(before.containers) != len(after.containers):
        return
    masked = _masked_reference(after, before)
    # compared as upstream's Semantic.DeepEqual: nil and empty lists and maps alike (go_equal)
    spec_node = tree_of("v1", "Pod").fields["spec"]  # type: ignore[union-attr]
    expected = sorted(f.alias or name for name, f in type(after).model_fields.items()
                      if not go_equal(getattr(masked, name), getattr(after, name),
                                      spec_node.fields.get(f.alias or name)))
    got = [e for e in validate_pod_spec_update(after, before) if "may not change fields" in str(e)]
    assert [str(e).split("\nchanged: ")[1] for e in got] == (
        [", ".join(f"spec.{c}" for c in expected)] if expected else [])


@settings(max_examples=200, deadline=None)
@given(tolerations=st.lists(_TOLERATION, max_size=4))
def test_remembered_valid_tolerations_validate_as_fresh_ones(tolerations: list[Toleration]) -> None:
    """validate_tolerations skips tolerations whose fields it found valid before: the same errors,
    at the same paths, on the first call and on a repeat."""
    fresh = [e for i, t in enumerate(tolerations)
             for e in _validate_toleration(t, f"spec.tolerations[{i}]")]
    assert validate_tolerations(tolerations, "spec.tolerations") == fresh
    assert validate_tolerations(tolerations, "spec.tolerations") == fresh
