"""The structural schemas of Kueue's CRDs (kueue.x-k8s.io/v1beta2), as :class:`~.schema.Node` values.

A transcription of the constraints of kubernetes-sigs/kueue
``config/components/crd/bases/kueue.x-k8s.io_*.yaml`` at v0.19.2 (generated from the ``+kubebuilder``
markers of ``apis/kueue/v1beta2/*_types.go``): required fields, enums, patterns, lengths, list sizes,
list-map keys, defaults, and every ``x-kubernetes-validations`` rule, each written as a Python
predicate over the typed object with the CEL rule's message. The pod template of a Workload's pod
set is checked only for what its schema requires (``containers``, container names); the rest of a
pod template has no schema constraints upstream either.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.kueue_v1beta2 import constants as kc
from kbatch.api.strategies.kueue.schema import MISSING, Node, Rule

__all__ = [
    "ADMISSION_CHECK",
    "CLUSTER_QUEUE",
    "COHORT",
    "LOCAL_QUEUE",
    "MULTIKUEUE_CLUSTER",
    "MULTIKUEUE_CONFIG",
    "RESOURCE_FLAVOR",
    "TOPOLOGY",
    "WORKLOAD",
    "WORKLOAD_PRIORITY_CLASS",
]

DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
QUALIFIED = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
)
REASON = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"

S = Node("string")
I32 = Node("integer")
Q = Node("quantity")
BOOL = Node("boolean")


def _str(**kw: Any) -> Node:
    return Node("string", **kw)


def _ref(max_length: int = 253) -> Node:
    """A DNS-subdomain reference to another object (``ClusterQueueReference``, ``CohortReference``...)."""
    return _str(pattern=DNS_SUBDOMAIN, max_length=max_length)


def _list(items: Node, **kw: Any) -> Node:
    return Node("array", items=items, **kw)


def _map(values: Node, **kw: Any) -> Node:
    return Node("map", values=values, **kw)


def _obj(
    required: tuple[str, ...] = (), rules: tuple[Rule, ...] = (), default: Any = None, **props: Node
) -> Node:
    return Node(
        "object", props=props, required=required, rules=rules, default=MISSING if default is None else default
    )


def _immutable(message: str = "field is immutable") -> Rule:
    return Rule(lambda new, old: new == old, message, transition=True)


# --- shared parts ------------------------------------------------------------------------------

CONDITIONS = _list(
    _obj(
        required=("lastTransitionTime", "message", "reason", "status", "type"),
        type=_str(pattern=QUALIFIED, max_length=316),
        status=_str(enum=("True", "False", "Unknown")),
        observedGeneration=Node("integer", minimum=0),
        reason=_str(pattern=REASON, max_length=1024, min_length=1),
        message=_str(max_length=32768),
    ),
    max_items=16,
    map_keys=("type",),
)

FAIR_SHARING = _obj(weight=Node("quantity", default=1))

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _tolerations_rules() -> tuple[Rule, ...]:
    def each(pred: Any) -> Any:
        return lambda items, _old: all(pred(t) for t in items)

    return (
        Rule(
            each(lambda t: t.operator == "Exists" if not t.key else True),
            "operator must be Exists when 'key' is empty, which means 'match all values and all keys'",
        ),
        Rule(
            each(lambda t: t.effect == "NoExecute" if t.toleration_seconds is not None else True),
            "effect must be 'NoExecute' when 'tolerationSeconds' is set",
        ),
        Rule(
            each(lambda t: t.operator is None or t.operator in ("Equal", "Exists")),
            "supported toleration values: 'Equal'(default), 'Exists'",
        ),
        Rule(
            each(lambda t: t.value is None if t.operator == "Exists" else True),
            "a value must be empty when 'operator' is 'Exists'",
        ),
        Rule(
            each(lambda t: t.effect is None or t.effect in _EFFECTS),
            "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'",
        ),
    )


TOLERATIONS = _list(_obj(), max_items=8, rules=_tolerations_rules())


def _same_resource_count(rg: Any, _old: Any) -> bool:
    covered = len(rg.covered_resources or ())
    return all(len(f.resources or ()) == covered for f in rg.flavors or ())


RESOURCE_GROUPS = _list(
    _obj(
        required=("coveredResources", "flavors"),
        rules=(
            Rule(
                _same_resource_count, "flavors must have the same number of resources as the coveredResources"
            ),
        ),
        coveredResources=_list(S, max_items=64, min_items=1),
        flavors=_list(
            _obj(
                required=("name", "resources"),
                name=_ref(),
                resources=_list(
                    _obj(
                        required=("name", "nominalQuota"),
                        name=S,
                        nominalQuota=Q,
                        borrowingLimit=Q,
                        lendingLimit=Q,
                    ),
                    max_items=64,
                    min_items=1,
                    map_keys=("name",),
                ),
            ),
            max_items=64,
            min_items=1,
            map_keys=("name",),
        ),
    ),
    max_items=16,
)

LABEL_SELECTOR = _obj(
    matchLabels=_map(S),
    matchExpressions=_list(_obj(required=("key", "operator"), key=S, operator=S, values=_list(S))),
)

USAGE = _list(
    _obj(
        required=("name", "resources"),
        name=_ref(),
        resources=_list(
            _obj(required=("name",), name=S, total=Q, borrowed=Q), max_items=64, map_keys=("name",)
        ),
    ),
    max_items=64,
    map_keys=("name",),
)

FAIR_SHARING_STATUS = _obj(required=("weightedShare",), weightedShare=Node("integer"))


# --- ResourceFlavor ----------------------------------------------------------------------------


def _rf_topology_needs_labels(spec: Any, _old: Any) -> bool:
    return not spec.topology_name or len(spec.node_labels or {}) >= 1


def _rf_frozen_when_topology(attr: str) -> Any:
    def check(spec: Any, old: Any) -> bool:
        if not old.topology_name:
            return True
        return getattr(spec, attr) == getattr(old, attr)

    return check


def _rf_topology_name_fixed(spec: Any, old: Any) -> bool:
    return not old.topology_name or (bool(spec.topology_name) and spec.topology_name == old.topology_name)


RESOURCE_FLAVOR = _obj(
    spec=_obj(
        rules=(
            Rule(_rf_topology_needs_labels, "at least one nodeLabel is required when topology is set"),
            Rule(
                _rf_frozen_when_topology("node_labels"),
                "nodeLabels are immutable when topologyName is set",
                transition=True,
            ),
            Rule(
                _rf_frozen_when_topology("tolerations"),
                "tolerations are immutable when topologyName is set",
                transition=True,
            ),
            Rule(
                _rf_topology_name_fixed, "topologyName is immutable when topologyName is set", transition=True
            ),
        ),
        nodeLabels=_map(S, max_properties=8),
        nodeTaints=_list(
            _obj(required=("effect", "key")),
            max_items=8,
            rules=(
                Rule(
                    lambda taints, _old: all(t.effect in _EFFECTS for t in taints),
                    "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'",
                ),
            ),
        ),
        tolerations=TOLERATIONS,
        topologyName=_ref(),
    )
)


# --- ClusterQueue ------------------------------------------------------------------------------


def _no_borrowing_limit_without_cohort(spec: Any, _old: Any) -> bool:
    if spec.cohort_name or not spec.resource_groups:
        return True
    return all(
        r.borrowing_limit is None
        for rg in spec.resource_groups
        for f in rg.flavors or ()
        for r in f.resources or ()
    )


def _preference_needs_try_next(ff: Any, _old: Any) -> bool:
    return ff.preference is None or (
        ff.when_can_borrow == "TryNextFlavor" and ff.when_can_preempt == "TryNextFlavor"
    )


def _reclaim_never_forbids_borrow(p: Any, _old: Any) -> bool:
    bwc = p.borrow_within_cohort
    return not (p.reclaim_within_cohort == "Never" and bwc is not None and bwc.policy != "Never")


CLUSTER_QUEUE = _obj(
    spec=_obj(
        rules=(Rule(_no_borrowing_limit_without_cohort, "borrowingLimit must be nil when cohort is empty"),),
        resourceGroups=RESOURCE_GROUPS,
        cohortName=_ref(),
        queueingStrategy=_str(enum=kc.QUEUEING_STRATEGIES, default="BestEffortFIFO"),
        namespaceSelector=LABEL_SELECTOR,
        flavorFungibility=_obj(
            default={},
            rules=(
                Rule(
                    _preference_needs_try_next,
                    "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor",
                ),
            ),
            whenCanBorrow=_str(enum=kc.FUNGIBILITY_POLICIES, default="MayStopSearch"),
            whenCanPreempt=_str(enum=kc.FUNGIBILITY_POLICIES, default="TryNextFlavor"),
            preference=_str(enum=kc.FUNGIBILITY_PREFERENCES),
        ),
        preemption=_obj(
            default={},
            rules=(
                Rule(
                    _reclaim_never_forbids_borrow,
                    "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
                ),
            ),
            reclaimWithinCohort=_str(enum=kc.RECLAIM_POLICIES, default="Never"),
            borrowWithinCohort=_obj(
                default={},
                policy=_str(enum=kc.BORROW_WITHIN_COHORT_POLICIES, default="Never"),
                maxPriorityThreshold=I32,
            ),
            withinClusterQueue=_str(enum=kc.WITHIN_CQ_POLICIES, default="Never"),
        ),
        admissionChecksStrategy=_obj(
            required=("admissionChecks",),
            admissionChecks=_list(
                _obj(
                    required=("name",),
                    name=_str(max_length=316, min_length=1),
                    onFlavors=_list(_ref(), max_items=64, set_list=True),
                ),
                max_items=64,
                min_items=1,
                map_keys=("name",),
            ),
        ),
        stopPolicy=_str(enum=kc.STOP_POLICIES, default="None"),
        fairSharing=FAIR_SHARING,
        admissionScope=_obj(
            required=("admissionMode",),
            admissionMode=_str(enum=("UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing")),
        ),
        concurrentAdmissionPolicy=_obj(
            required=("migration",),
            migration=_obj(
                required=("mode",),
                mode=_str(enum=("TryPreferredFlavors", "RetainFirstAdmission"), max_length=253),
                constraints=_obj(lastAcceptableFlavorName=_ref()),
            ),
        ),
    ),
    status=_obj(
        conditions=CONDITIONS, flavorsReservation=USAGE, flavorsUsage=USAGE, fairSharing=FAIR_SHARING_STATUS
    ),
)


# --- LocalQueue and Cohort ---------------------------------------------------------------------

LQ_USAGE = _list(
    _obj(
        required=("name", "resources"),
        name=_ref(),
        resources=_list(_obj(required=("name",), name=S, total=Q), max_items=64, map_keys=("name",)),
    ),
    max_items=64,
    map_keys=("name",),
)

LOCAL_QUEUE = _obj(
    spec=_obj(
        clusterQueue=Node("string", pattern=DNS_SUBDOMAIN, max_length=253, rules=(_immutable(),)),
        stopPolicy=_str(enum=kc.STOP_POLICIES, default="None"),
        fairSharing=FAIR_SHARING,
    ),
    status=_obj(
        conditions=CONDITIONS,
        flavorsReservation=LQ_USAGE,
        flavorsUsage=LQ_USAGE,
        fairSharing=_obj(
            required=("weightedShare",),
            weightedShare=Node("integer"),
            admissionFairSharingStatus=_obj(required=("consumedResources", "lastUpdate")),
        ),
    ),
)

COHORT = _obj(
    spec=_obj(parentName=_ref(), resourceGroups=RESOURCE_GROUPS, fairSharing=FAIR_SHARING),
    status=_obj(fairSharing=FAIR_SHARING_STATUS),
)


# --- WorkloadPriorityClass, AdmissionCheck, Topology ----------------------------------------------

WORKLOAD_PRIORITY_CLASS = _obj(required=("value",), value=I32, description=_str(max_length=2048))

ADMISSION_CHECK = _obj(
    spec=_obj(
        required=("controllerName",),
        controllerName=Node("string", max_length=253, min_length=1, rules=(_immutable(),)),
        parameters=_obj(
            required=("apiGroup", "kind", "name"),
            apiGroup=_str(pattern=DNS_SUBDOMAIN, max_length=253, min_length=1),
            kind=_str(pattern=r"^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$", max_length=63, min_length=1),
            name=_str(pattern=DNS_LABEL, max_length=63, min_length=1),
        ),
    ),
    status=_obj(conditions=CONDITIONS),
)

# --- MultiKueueCluster, MultiKueueConfig (kueue.x-k8s.io_multikueue{clusters,configs}.yaml) -------


def _exactly_one_source(source: Any, _old: Any) -> bool:
    """``+kubebuilder:validation:ExactlyOneOf=kubeConfig;clusterProfileRef``."""
    return (source.kube_config is not None) + (source.cluster_profile_ref is not None) == 1


_EXACTLY_ONE_SOURCE = "exactly one of the fields in [kubeConfig clusterProfileRef] must be set"


def _unique(items: Any, _old: Any) -> bool:
    return len(items) == len(set(items))


MULTIKUEUE_CLUSTER = _obj(
    spec=_obj(
        required=("clusterSource",),
        clusterSource=_obj(
            rules=(Rule(_exactly_one_source, _EXACTLY_ONE_SOURCE),),
            kubeConfig=_obj(
                required=("location",),
                location=_str(max_length=256, min_length=1),
                locationType=_str(enum=("Secret", "Path"), default="Secret"),
            ),
            clusterProfileRef=_obj(required=("name",), name=_str(max_length=256, min_length=1)),
        ),
    ),
    status=_obj(conditions=CONDITIONS),
)

MULTIKUEUE_CONFIG = _obj(
    spec=_obj(
        required=("clusters",),
        clusters=_list(
            _str(max_length=256),
            max_items=20,
            min_items=1,
            rules=(Rule(_unique, "must be unique"),),
        ),
        quotaManagement=_str(enum=("Manual", "Automated")),
    ),
)

_HOSTNAME = "kubernetes.io/hostname"


def _levels_unique(levels: Any, _old: Any) -> bool:
    labels = [lv.node_label for lv in levels]
    return len(labels) == len(set(labels))


def _hostname_lowest(levels: Any, _old: Any) -> bool:
    labels = [lv.node_label for lv in levels]
    return _HOSTNAME not in labels or labels[-1] == _HOSTNAME


TOPOLOGY = _obj(
    spec=_obj(
        required=("levels",),
        levels=_list(
            _obj(required=("nodeLabel",), nodeLabel=_str(pattern=QUALIFIED, max_length=316, min_length=1)),
            max_items=16,
            min_items=1,
            rules=(
                _immutable(),
                Rule(_levels_unique, "must be unique"),
                Rule(
                    _hostname_lowest,
                    "the kubernetes.io/hostname label can only be used at the lowest level of topology",
                ),
            ),
        ),
    )
)


# --- Workload ----------------------------------------------------------------------------------


def _true(conditions: Any, kind: str) -> bool:
    return any(c.type == kind and c.status == "True" for c in conditions or ())


def _quota_reserved(wl: Any) -> bool:
    return wl.status is not None and _true(wl.status.conditions, kc.Cond.QUOTA_RESERVED)


def _admitted(wl: Any) -> bool:
    return wl.status is not None and _true(wl.status.conditions, kc.Cond.ADMITTED)


def _ref_of(wl: Any) -> Any:
    return wl.spec.priority_class_ref if wl.spec is not None else None


def _assignments_match(wl: Any, _old: Any) -> bool:
    if not (_quota_reserved(wl) and wl.status.admission is not None):
        return True
    return len(wl.spec.pod_sets or ()) == len(wl.status.admission.pod_set_assignments or ())


def _ref_presence_fixed(wl: Any, old: Any) -> bool:
    return not _quota_reserved(old) or (_ref_of(old) is None) == (_ref_of(wl) is None)


def _ref_field_fixed(attr: str) -> Any:
    def check(wl: Any, old: Any) -> bool:
        new_ref, old_ref = _ref_of(wl), _ref_of(old)
        # the references first: without both, the answer is the same and the conditions go unread
        if not (new_ref is not None and old_ref is not None and _quota_reserved(old)):
            return True
        return bool(getattr(new_ref, attr) == getattr(old_ref, attr))

    return check


def _pod_priority_name_fixed(wl: Any, old: Any) -> bool:
    new_ref, old_ref = _ref_of(wl), _ref_of(old)
    if not (new_ref is not None and old_ref is not None and _quota_reserved(old)):
        return True
    if (new_ref.group, new_ref.kind) != ("scheduling.k8s.io", "PriorityClass"):
        return True
    return bool(new_ref.name == old_ref.name)


def _queue_name_fixed(wl: Any, old: Any) -> bool:
    if not (_quota_reserved(old) and _quota_reserved(wl)):
        return True
    return (old.spec.queue_name or None) == (wl.spec.queue_name or None)


def _max_exec_fixed(wl: Any, old: Any) -> bool:
    if not (_admitted(old) and _admitted(wl)):
        return True
    return (old.spec.maximum_execution_time_seconds or 0) == (wl.spec.maximum_execution_time_seconds or 0)


WORKLOAD_ROOT_RULES = (
    Rule(_assignments_match, "podSetAssignments must have the same number of podSets as the spec"),
    Rule(_ref_presence_fixed, "priorityClassRef is immutable while workload quota reserved", transition=True),
    Rule(
        _ref_field_fixed("group"),
        "priorityClassRef.group is immutable while workload quota reserved",
        transition=True,
    ),
    Rule(
        _ref_field_fixed("kind"),
        "priorityClassRef.kind is immutable while workload quota reserved",
        transition=True,
    ),
    Rule(
        _pod_priority_name_fixed,
        "priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass "
        "while workload quota reserved",
        transition=True,
    ),
    Rule(_queue_name_fixed, "queueName is immutable while workload quota reserved", transition=True),
    Rule(
        _max_exec_fixed,
        "maximumExecutionTimeSeconds is immutable while workload quota reserved",
        transition=True,
    ),
)


def _min_count_ok(ps: Any, _old: Any) -> bool:
    return ps.min_count is None or ps.min_count <= (ps.count if ps.count is not None else 0)


TOPOLOGY_REQUEST = Node(
    "object",
    props={
        "required": _str(max_length=63),
        "preferred": _str(max_length=63),
        "podIndexLabel": _str(max_length=317),
        "subGroupIndexLabel": _str(max_length=317),
        "subGroupCount": I32,
        "podSetGroupName": _str(max_length=256),
        "podSetSliceRequiredTopology": _str(max_length=63),
        "podSetSliceSize": I32,
        "podsetSliceRequiredTopologyConstraints": _list(
            _obj(
                required=("size", "topology"),
                topology=_str(max_length=63, min_length=1),
                size=Node("integer", minimum=1),
            ),
            max_items=3,
        ),
    },
)

POD_SET = _obj(
    required=("template",),
    rules=(Rule(_min_count_ok, "minCount should be positive and less or equal to count"),),
    name=_str(pattern=DNS_LABEL, max_length=63, default=kc.DEFAULT_POD_SET),
    template=_obj(
        spec=_obj(
            required=("containers",),
            containers=_list(_obj(required=("name",)), map_keys=("name",)),
            initContainers=_list(_obj(required=("name",)), map_keys=("name",)),
        )
    ),
    count=Node("integer", minimum=0, default=1),
    minCount=Node("integer", minimum=1),
    topologyRequest=TOPOLOGY_REQUEST,
)


def _values_per_level(ta: Any, _old: Any) -> bool:
    return all(len(s.values_per_level or ()) == len(ta.levels or ()) for s in ta.slices or ())


def _pod_counts_len(s: Any, _old: Any) -> bool:
    pc = s.pod_counts
    return pc is None or pc.individual is None or len(pc.individual) == s.domain_count


def _roots_len(s: Any, _old: Any) -> bool:
    return all(
        v.individual is None or len(v.individual.roots or ()) == s.domain_count
        for v in s.values_per_level or ()
    )


_EXACTLY_ONE = "exactly one of the fields in [universal individual] must be set"

TOPOLOGY_ASSIGNMENT = _obj(
    required=("levels", "slices"),
    rules=(
        Rule(
            _values_per_level,
            "valuesPerLevel must have the same length as the number of levels in this TopologyAssignment",
        ),
    ),
    levels=_list(_str(max_length=317), max_items=16, min_items=1),
    slices=_list(
        _obj(
            required=("domainCount", "podCounts", "valuesPerLevel"),
            rules=(
                Rule(_pod_counts_len, "podCounts.individual must have length equal to domainCount"),
                Rule(
                    _roots_len,
                    "valuesPerLevel.individual, if set, must have roots of length equal to "
                    "domainCount of this TopologyAssignmentSlice",
                ),
            ),
            domainCount=Node("integer", minimum=1),
            valuesPerLevel=_list(
                _obj(
                    rules=(
                        Rule(lambda v, _o: (v.universal is None) != (v.individual is None), _EXACTLY_ONE),
                    ),
                    universal=_str(max_length=63),
                    individual=_obj(
                        required=("roots",),
                        prefix=_str(max_length=63),
                        suffix=_str(max_length=63),
                        roots=_list(_str(max_length=63), max_items=100000, min_items=1),
                    ),
                ),
                max_items=16,
                min_items=1,
            ),
            podCounts=_obj(
                rules=(Rule(lambda p, _o: (p.universal is None) != (p.individual is None), _EXACTLY_ONE),),
                universal=Node("integer", minimum=1),
                individual=_list(Node("integer", minimum=1), max_items=100000, min_items=1),
            ),
        ),
        max_items=1000,
    ),
)

ADMISSION = _obj(
    clusterQueue=_ref(),
    podSetAssignments=_list(
        _obj(
            name=_str(pattern=DNS_LABEL, max_length=63, default=kc.DEFAULT_POD_SET),
            flavors=_map(_ref()),
            resourceUsage=_map(Q),
            count=Node("integer", minimum=0),
            topologyAssignment=TOPOLOGY_ASSIGNMENT,
            delayedTopologyRequest=_str(enum=("Pending", "Ready"), max_length=7),
        ),
        max_items=18,
        map_keys=("name",),
    ),
)


def _cluster_name_fixed(st: Any, old: Any) -> bool:
    return old.cluster_name is None or st.cluster_name is None or old.cluster_name == st.cluster_name


def _cluster_name_exclusive(st: Any, _old: Any) -> bool:
    return st.cluster_name is None or not st.nominated_cluster_names


WORKLOAD_STATUS = _obj(
    rules=(
        Rule(_cluster_name_fixed, "clusterName is immutable once set", transition=True),
        Rule(_cluster_name_exclusive, "clusterName and nominatedClusterNames are mutually exclusive"),
    ),
    conditions=CONDITIONS,
    admission=ADMISSION,
    requeueState=_obj(count=Node("integer", minimum=0)),
    reclaimablePods=_list(
        _obj(
            required=("count", "name"),
            name=_str(pattern=DNS_LABEL, max_length=63),
            count=Node("integer", minimum=0),
        ),
        max_items=18,
        map_keys=("name",),
    ),
    admissionChecks=_list(
        _obj(
            required=("lastTransitionTime", "message", "name", "state"),
            name=_str(max_length=316, min_length=1),
            state=_str(enum=kc.CHECK_STATES),
            message=_str(max_length=32768),
            requeueAfterSeconds=Node("integer", minimum=0),
            retryCount=Node("integer", minimum=0),
            podSetUpdates=_list(
                _obj(
                    required=("name",), name=_str(pattern=DNS_LABEL, max_length=63), tolerations=TOLERATIONS
                ),
                max_items=18,
            ),
        ),
        max_items=8,
        map_keys=("name",),
    ),
    resourceRequests=_list(
        _obj(required=("name",), name=_str(pattern=DNS_LABEL, max_length=63), resources=_map(Q)),
        max_items=18,
        map_keys=("name",),
    ),
    schedulingStats=_obj(
        evictions=_list(
            _obj(
                required=("count", "reason", "underlyingCause"),
                reason=_str(max_length=316),
                underlyingCause=_str(max_length=316),
                count=Node("integer", minimum=0),
            ),
            max_items=256,
            map_keys=("reason", "underlyingCause"),
        )
    ),
    nominatedClusterNames=_list(_str(max_length=256), max_items=20),
    clusterName=_str(max_length=256),
    unhealthyNodes=_list(_obj(required=("name",), name=_str(max_length=63)), max_items=8, map_keys=("name",)),
    preemptionGates=_list(
        _obj(
            required=("lastTransitionTime", "name", "position"),
            name=_str(max_length=63, min_length=1),
            position=_str(enum=("Closed", "Open")),
        ),
        max_items=8,
        map_keys=("name",),
    ),
)


def _ref_group_kind(group: str, kind: str) -> Any:
    return lambda ref, _old: ref.group != group or ref.kind == kind


WORKLOAD_SPEC = _obj(
    rules=(
        Rule(
            lambda s, _o: s.priority_class_ref is None or s.priority is not None,
            "priority should not be nil when priorityClassRef is set",
        ),
    ),
    podSets=_list(POD_SET, max_items=18, min_items=1, map_keys=("name",)),
    queueName=_ref(),
    priorityClassRef=_obj(
        required=("group", "kind", "name"),
        rules=(
            Rule(
                _ref_group_kind("scheduling.k8s.io", "PriorityClass"),
                "only the PriorityClass kind is allowed for the scheduling.k8s.io group",
            ),
            Rule(
                _ref_group_kind("kueue.x-k8s.io", "WorkloadPriorityClass"),
                "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group",
            ),
        ),
        group=_str(enum=("kueue.x-k8s.io", "scheduling.k8s.io")),
        kind=_str(enum=("WorkloadPriorityClass", "PriorityClass")),
        name=_str(pattern=DNS_SUBDOMAIN, max_length=253, min_length=1),
    ),
    priority=I32,
    active=Node("boolean", default=True),
    maximumExecutionTimeSeconds=Node("integer", minimum=1),
    preemptionGates=_list(
        _obj(required=("name",), name=_str(max_length=63, min_length=1)), max_items=8, map_keys=("name",)
    ),
)

WORKLOAD = _obj(rules=WORKLOAD_ROOT_RULES, spec=WORKLOAD_SPEC, status=WORKLOAD_STATUS)
