"""``metrics.customLabels`` (``CustomMetricLabels``, alpha, off): the Configuration's checks as upstream's
``TestValidateCustomLabels`` (kueue v0.19.2 ``pkg/config/validation_test.go``, case names below are
upstream's), the label names each family carries (``pkg/metrics/metrics.go`` ``InitMetricVectors``),
their values from ClusterQueues, LocalQueues, Cohorts and Workloads (``pkg/metrics/custom_labels_test.go``:
defaults to the name, label and annotation sources, untracked values), the series dropped when a
queue's values change, and the property that every series of a family carries exactly its kinds'
custom labels."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import Invalid
from kbatch.api.kueue_config import load
from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue
from kbatch.controllers.kueue.metrics.custom_labels import CustomLabels, parse_entries
from tests.controllers.kueue.helpers import World, cluster_queue, flavor, local_queue, quota, workload
from tests.controllers.kueue.test_kueue_metrics import _series, _value

ROLE = "standalone"
UNTRACKED = "kueue.x-k8s.io/_UNTRACKED_VALUE_"
GATE = "CustomMetricLabels=true"
QNAME_DETAIL = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def _errors(*entries: dict[str, Any]) -> list[tuple[str, str, str]]:
    doc = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
           "metrics": {"customLabels": list(entries)}}
    try:
        load(doc)
    except Invalid as err:
        causes = err.status.details.causes or []  # type: ignore[union-attr]
        return [(c.reason or "", c.field or "", c.message or "") for c in causes]
    return []


def _detail(message: str) -> str:
    """The detail after the rendered value (``Invalid value: <v>: <detail>``)."""
    return re.sub(r"^(Invalid value|Duplicate value|Too many)(: (null|\"[^\"]*\"|\[.*\]|\{.*?\}|\d+))?(: |$)",
                  "", message)


def _kinds(kind: str, n: int, prefix: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"name": f"{prefix}{i}", "sourceKind": kind, **extra} for i in range(1, n + 1)]


VALID = [
    ("valid name only", [{"name": "team"}]),
    ("name with underscore valid as k8s label key", [{"name": "has_underscore"}]),
    ("valid multiple entries", [{"name": "team"}, {"name": "env", "sourceLabelKey": "environment"},
                                {"name": "cost", "sourceAnnotationKey": "billing/cost"}]),
    ("valid with sourceLabelKey", [{"name": "team", "sourceLabelKey": "org.example.com/team"}]),
    ("valid with sourceAnnotationKey",
     [{"name": "cost_center", "sourceAnnotationKey": "billing.example.com/cost-center"}]),
    ("valid workload with tracked values",
     [{"name": "team", "sourceKind": "Workload", "trackedValues": ["a"]}]),
    ("valid cohort with tracked values",
     [{"name": "team", "sourceKind": "Cohort", "trackedValues": ["a"]}]),
]


@pytest.mark.parametrize(("case", "entries"), VALID, ids=[c for c, _ in VALID])
def test_valid_custom_labels(case: str, entries: list[dict[str, Any]]) -> None:
    assert _errors(*entries) == []


INVALID, DUP, MANY = "FieldValueInvalid", "FieldValueDuplicate", "FieldValueTooMany"
P = "metrics.customLabels"
REGEX = "must match ^[a-zA-Z][a-zA-Z0-9_]*$"
ROWS = [
    ("invalid name - special chars", [{"name": "team-name"}], [(INVALID, f"{P}[0].name", REGEX)]),
    ("invalid name - leading digit", [{"name": "1team"}], [(INVALID, f"{P}[0].name", REGEX)]),
    ("invalid name - empty", [{"name": ""}],
     [(INVALID, f"{P}[0].name", REGEX),
      (INVALID, f"{P}[0].name", "name part must be non-empty; " + QNAME_DETAIL)]),
    ("duplicate names", [{"name": "team"}, {"name": "team"}], [(DUP, f"{P}[1].name", "")]),
    ("mutually exclusive sources",
     [{"name": "team", "sourceLabelKey": "team-label", "sourceAnnotationKey": "team-annotation"}],
     [(INVALID, f"{P}[0]", "sourceLabelKey and sourceAnnotationKey are mutually exclusive")]),
    ("invalid sourceLabelKey", [{"name": "team", "sourceLabelKey": "invalid key with spaces"}],
     [(INVALID, f"{P}[0].sourceLabelKey", QNAME_DETAIL)]),
    ("invalid sourceAnnotationKey", [{"name": "team", "sourceAnnotationKey": "invalid key with spaces"}],
     [(INVALID, f"{P}[0].sourceAnnotationKey", QNAME_DETAIL)]),
    ("unknown source kind", [{"name": "team", "sourceKind": "Unknown"}],
     [(INVALID, P, "unknown source kind: Unknown")]),
    ("too many custom labels in total", [{"name": f"c{i}"} for i in range(1, 22)],
     [(MANY, P, "must have at most 20 items"),
      (INVALID, P, "too many custom labels for source kind ClusterQueue: found 21, expected <= 6")]),
    ("too many custom labels", _kinds("Cohort", 9, "c"),
     [(INVALID, P, "too many custom labels for source kind Cohort: found 9, expected <= 6")]),
    ("too many custom labels for local queue", _kinds("LocalQueue", 7, "lq"),
     [(INVALID, P, "too many custom labels for source kind LocalQueue: found 7, expected <= 6")]),
    ("too many custom labels for workload", _kinds("Workload", 3, "wl", trackedValues=["v"]),
     [(INVALID, P, "too many custom labels for source kind Workload: found 3, expected <= 2")]),
    ("workload without tracked values", [{"name": "team", "sourceKind": "Workload"}],
     [(INVALID, f"{P}[0].trackedValues", "must not be empty when sourceKind is 'Workload'")]),
    ("too many tracked values",
     [{"name": "team", "sourceKind": "Cohort", "trackedValues": [str(i) for i in range(1, 18)]}],
     [(MANY, f"{P}[0].trackedValues", "must have at most 16 items")]),
    ("too many tracked values for workload",
     [{"name": "team", "sourceKind": "Workload", "trackedValues": [str(i) for i in range(1, 14)]}],
     [(INVALID, f"{P}[0].trackedValues", "must not be greater than 12 when sourceKind is 'Workload'")]),
    ("duplicate tracked values", [{"name": "team", "trackedValues": ["a", "a"]}],
     [(INVALID, f"{P}[0].trackedValues", "must not contain duplicates")]),
]


@pytest.mark.parametrize(("case", "entries", "want"), ROWS, ids=[c for c, _, _ in ROWS])
def test_invalid_custom_labels(case: str, entries: list[dict[str, Any]],
                               want: list[tuple[str, str, str]]) -> None:
    got = [(reason, path, _detail(message)) for reason, path, message in _errors(*entries)]
    assert got == want


def test_refused_values_render_as_go_marshals_them() -> None:
    """A struct keeps its fields' order (``json.Marshal``), a nil list is ``null``."""
    (_, _, message), = _errors({"name": "team", "sourceLabelKey": "a", "sourceAnnotationKey": "b"})
    struct = '{"name":"team","sourceLabelKey":"a","sourceAnnotationKey":"b"}'
    assert message.startswith(f"Invalid value: {struct}: ")
    (_, _, message), = _errors({"name": "w", "sourceKind": "Workload"})
    assert message.startswith("Invalid value: null: ")
    (_, _, message), = _errors({"name": "team", "sourceKind": "Unknown"})
    assert message.startswith('Invalid value: [{"name":"team","sourceKind":"Unknown"}]: ')


def test_the_checks_run_with_the_gate_off_too() -> None:
    """``Validate`` checks the section whatever ``CustomMetricLabels`` says."""
    assert _errors({"name": "team-name"})


# --- the values (custom_labels_test.go) -------------------------------------------------------------


def test_label_names_are_ordered_by_kind_then_definition() -> None:
    cl = CustomLabels(parse_entries([
        {"name": "wl", "sourceKind": "Workload", "trackedValues": ["x"]},
        {"name": "lq", "sourceKind": "LocalQueue"},
        {"name": "b"},
        {"name": "co", "sourceKind": "Cohort"},
        {"name": "a"},
    ]))
    assert cl.names("Workload", "ClusterQueue") == ("custom_b", "custom_a", "custom_wl")
    assert cl.names("LocalQueue") == ("custom_lq",)
    assert cl.names("Cohort") == ("custom_co",)


def test_values_default_to_the_name_and_read_labels_or_annotations() -> None:
    cl = CustomLabels(parse_entries([
        {"name": "team"},
        {"name": "env", "sourceLabelKey": "example.com/env"},
        {"name": "cost", "sourceAnnotationKey": "billing/cost"},
        {"name": "tier", "trackedValues": ["gold"]},
    ]))
    labels = {"team": "ml", "example.com/env": "prod", "cost": "label-ignored", "tier": "bronze"}
    assert cl.values("ClusterQueue", labels, {"billing/cost": "42"}) == ("ml", "prod", "42", UNTRACKED)
    assert cl.values("ClusterQueue", {}, {}) == ("", "", "", UNTRACKED)  # "" is not a tracked value
    assert cl.values("LocalQueue", labels, {}) == ()


# --- through the manager ----------------------------------------------------------------------------


ENTRIES = [
    {"name": "team"},
    {"name": "cost", "sourceAnnotationKey": "billing/cost", "trackedValues": ["a", "b"]},
    {"name": "lq_team", "sourceKind": "LocalQueue", "sourceLabelKey": "team"},
    {"name": "org", "sourceKind": "Cohort"},
    {"name": "prio", "sourceKind": "Workload", "sourceLabelKey": "prio", "trackedValues": ["high"]},
]


def _config(entries: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
            "metrics": {"customLabels": entries, **more}}


def _world(gate: bool = True, entries: list[dict[str, Any]] | None = None, **metrics: Any) -> World:
    cq = cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "2")])]), cohort="root")
    cq["metadata"]["labels"] = {"team": "ml"}
    cq["metadata"]["annotations"] = {"billing/cost": "zzz"}
    lq = local_queue("lq", "cq")
    lq["metadata"]["labels"] = {"team": "lq-owner"}
    cohort = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
              "metadata": {"name": "root", "labels": {"org": "research"}}, "spec": {}}
    config = _config(ENTRIES if entries is None else entries, **metrics)
    return World(flavor("default"), cohort, cq, lq, kueue_config=config, feature_gates=GATE if gate else None)


def _wl(name: str, cpu: str = "1", prio: str | None = None) -> dict[str, Any]:
    obj = workload(name, "lq", cpu=cpu)
    if prio is not None:
        obj["metadata"]["labels"] = {"prio": prio}
    return obj


CQ = ("ml", UNTRACKED)  # custom_team, custom_cost (an untracked annotation)


def test_the_families_carry_the_values_of_their_source_objects() -> None:
    w = _world()
    w.apply(_wl("a", prio="high"), _wl("b", prio="low"), _wl("c"))
    w.cp.advance(2)
    assert _value(w, "kueue_admitted_workloads_total", "cq", "", ROLE, *CQ) == 2
    assert _value(w, "kueue_quota_reserved_workloads_total", "cq", "", ROLE, *CQ) == 2
    assert _value(w, "kueue_pending_workloads", "cq", "inadmissible", ROLE, *CQ) == 1
    assert _value(w, "kueue_reserving_active_workloads", "cq", ROLE, *CQ) == 2
    assert _value(w, "kueue_cluster_queue_status", "cq", "active", ROLE, *CQ) == 1
    # the ClusterQueue's and then the Workload's labels; a value outside trackedValues is untracked
    assert _value(w, "kueue_admitted_active_workloads", "cq", ROLE, *CQ, "high") == 1
    assert _value(w, "kueue_admitted_active_workloads", "cq", ROLE, *CQ, UNTRACKED) == 1
    lq = ("lq", "default")
    assert _value(w, "kueue_local_queue_admitted_workloads_total", *lq, "", ROLE, "lq-owner") == 2
    assert _value(w, "kueue_local_queue_pending_workloads", *lq, "inadmissible", ROLE, "lq-owner") == 1
    assert _value(w, "kueue_cohort_subtree_admitted_workloads_total", "root", "", ROLE, "research") == 2
    assert _value(w, "kueue_cohort_info", "root", "", "root", ROLE, "research") == 1
    assert _value(w, "kueue_cluster_queue_info", "cq", "root", "root", ROLE, *CQ) == 1
    # the subtree's admitted count under its ClusterQueues' labels (InitMetricVectors)
    assert _value(w, "kueue_cohort_subtree_admitted_active_workloads", "root", ROLE, *CQ) == 2
    family = w.cp.metrics.get("kueue_admission_attempts_total")
    assert family is not None and family.label_names == ("result", "replica_role")


def test_with_the_gate_off_the_families_keep_their_plain_labels() -> None:
    w = _world(gate=False)
    w.apply(_wl("a", prio="high"))
    w.cp.advance(2)
    assert _value(w, "kueue_admitted_workloads_total", "cq", "", ROLE) == 1
    assert _value(w, "kueue_admitted_active_workloads", "cq", ROLE) == 1
    assert "custom_" not in w.cp.metrics.render()


def test_a_changed_cluster_queue_label_drops_its_counters_and_counts_anew() -> None:
    """``resyncClusterQueueGaugeMetrics``: ``ClearClusterQueueMetrics`` on a label change; the gauges
    follow the new value at once."""
    w = _world()
    w.apply(_wl("a"))
    w.cp.advance(2)
    assert _value(w, "kueue_admitted_workloads_total", "cq", "", ROLE, *CQ) == 1
    w.cp.client.patch(ClusterQueue, "cq", {"metadata": {"labels": {"team": "infra"}}})
    w.cp.run_until_idle()
    assert 'custom_team="ml"' not in "".join(_series(w, "kueue_admitted_workloads_total"))
    assert _value(w, "kueue_reserving_active_workloads", "cq", ROLE, "infra", UNTRACKED) == 1
    assert _value(w, "kueue_reserving_active_workloads", "cq", ROLE, *CQ) is None
    w.apply(_wl("b"))
    w.cp.advance(2)
    assert _value(w, "kueue_admitted_workloads_total", "cq", "", ROLE, "infra", UNTRACKED) == 1


def test_a_changed_local_queue_label_drops_its_counters() -> None:
    """The LocalQueue controller's ``clearLocalQueueMetrics`` when its custom values change; the
    ClusterQueue's counters stay."""
    w = _world()
    w.apply(_wl("a"))
    w.cp.advance(2)
    lq = ("lq", "default", "", ROLE)
    assert _value(w, "kueue_local_queue_admitted_workloads_total", *lq, "lq-owner") == 1
    w.cp.client.patch(LocalQueue, "lq", {"metadata": {"labels": {"team": "other"}}}, "default")
    w.cp.run_until_idle()
    assert not _series(w, "kueue_local_queue_admitted_workloads_total")
    assert _value(w, "kueue_local_queue_reserving_active_workloads", "lq", "default", ROLE, "other") == 1
    assert _value(w, "kueue_admitted_workloads_total", "cq", "", ROLE, *CQ) == 1


def test_an_unchanged_value_keeps_the_counters() -> None:
    w = _world()
    w.apply(_wl("a"))
    w.cp.advance(2)
    w.cp.client.patch(ClusterQueue, "cq", {"metadata": {"labels": {"unrelated": "x"}}})
    w.cp.run_until_idle()
    assert _value(w, "kueue_admitted_workloads_total", "cq", "", ROLE, *CQ) == 1


def test_a_jobs_labels_and_annotations_reach_its_workload_for_workload_labels() -> None:
    """``getLabelsAndAnnotationsToCopy``: with the gate on, a Workload entry's source is copied from
    the job to its Workload."""
    entries = [{"name": "prio", "sourceKind": "Workload", "sourceLabelKey": "prio",
                "trackedValues": ["high"]},
               {"name": "owner", "sourceKind": "Workload", "sourceAnnotationKey": "example.com/owner",
                "trackedValues": ["me"]}]
    w = World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])),
              local_queue("lq", "cq"), controllers="*", kueue_config=_config(entries), feature_gates=GATE)
    container = {"name": "c", "image": "busybox", "args": ["sleep", "30"],
                 "resources": {"requests": {"cpu": "1"}}}
    w.apply({"apiVersion": "batch/v1", "kind": "Job",
             "metadata": {"name": "j", "namespace": "default",
                          "labels": {"kueue.x-k8s.io/queue-name": "lq", "prio": "high", "other": "x"},
                          "annotations": {"example.com/owner": "me"}},
             "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}})
    w.cp.run_until_idle()
    wl, = w.cp.client.list(w.wl_model(), "default").items
    assert (wl.metadata.labels or {}).get("prio") == "high" and "other" not in (wl.metadata.labels or {})
    assert (wl.metadata.annotations or {}).get("example.com/owner") == "me"
    assert _value(w, "kueue_admitted_active_workloads", "cq", ROLE, "high", "me") == 1


# --- the invariant ----------------------------------------------------------------------------------

# family -> (plain label names, the kinds whose custom labels follow them)
FAMILIES = {
    "kueue_admitted_workloads_total": (("cluster_queue", "priority_class", "replica_role"),
                                       ("ClusterQueue",)),
    "kueue_pending_workloads": (("cluster_queue", "status", "replica_role"), ("ClusterQueue",)),
    "kueue_admitted_active_workloads": (("cluster_queue", "replica_role"), ("ClusterQueue", "Workload")),
    "kueue_local_queue_admitted_workloads_total": (("name", "namespace", "priority_class", "replica_role"),
                                                   ("LocalQueue",)),
    "kueue_cohort_subtree_admitted_workloads_total": (("cohort", "priority_class", "replica_role"),
                                                      ("Cohort",)),
    "kueue_cohort_subtree_admitted_active_workloads": (("cohort", "replica_role"), ("ClusterQueue",)),
    "kueue_cohort_info": (("cohort", "parent_cohort", "root_cohort", "replica_role"), ("Cohort",)),
    "kueue_admission_attempts_total": (("result", "replica_role"), ()),
    "kueue_cluster_queue_nominal_quota": (("cohort", "cluster_queue", "flavor", "resource", "replica_role"),
                                          ("ClusterQueue",)),
    "kueue_cluster_queue_resource_pending": (("cluster_queue", "resource", "replica_role"),
                                             ("ClusterQueue",)),
    "kueue_local_queue_resource_usage": (("name", "namespace", "flavor", "resource", "replica_role"),
                                         ("LocalQueue",)),
    "kueue_quota_reserved_wait_time_seconds_bucket": (("cluster_queue", "priority_class", "replica_role"),
                                                      ("ClusterQueue",)),
}
_SAMPLE = re.compile(r"^(\w+)\{(.*)\} ")


def _label_names(line: str) -> tuple[str, tuple[str, ...]] | None:
    m = _SAMPLE.match(line)
    if m is None:
        return None
    names = tuple(part.split("=", 1)[0] for part in re.findall(r'(\w+="(?:[^"\\]|\\.)*")', m.group(2)))
    return m.group(1), names


_entry = st.fixed_dictionaries(
    {"kind": st.sampled_from(["ClusterQueue", "Cohort", "LocalQueue", "Workload"]),
     "annotation": st.booleans()})


@settings(max_examples=15, deadline=None)
@given(st.lists(_entry, min_size=1, max_size=6))
def test_every_series_carries_exactly_its_kinds_custom_labels(spec: list[dict[str, Any]]) -> None:
    per_kind: dict[str, int] = {}
    entries = []
    for i, s in enumerate(spec):
        if per_kind.get(s["kind"], 0) >= (2 if s["kind"] == "Workload" else 6):
            continue
        per_kind[s["kind"]] = per_kind.get(s["kind"], 0) + 1
        entry: dict[str, Any] = {"name": f"l{i}", "sourceKind": s["kind"]}
        if s["annotation"]:
            entry["sourceAnnotationKey"] = f"example.com/l{i}"
        if s["kind"] == "Workload":
            entry["trackedValues"] = ["v"]
        entries.append(entry)
    w = _world(entries=entries, enableClusterQueueResources=True)
    w.apply(_wl("a"), _wl("b"), _wl("c"))
    w.cp.advance(2)
    w.cp.metrics.collect()
    kinds = CustomLabels(parse_entries(entries))
    seen = set()
    for line in w.cp.metrics.render().splitlines():
        parsed = _label_names(line)
        if parsed is None or parsed[0] not in FAMILIES:
            continue
        family, names = parsed
        plain, sources = FAMILIES[family]
        le = ("le",) if family.endswith("_bucket") else ()
        assert names == plain + kinds.names(*sources) + le, line
        seen.add(family)
    assert seen == set(FAMILIES)


def test_the_custom_labels_go_with_their_control_plane() -> None:
    """The labels are kept with the metrics registry: an image of the control plane has them (a
    later CLI command's scheduler reads them per preemption), and a dropped control plane is freed
    (a module-wide table keyed weakly by the registry held it through the labels' cache)."""
    import gc
    import pickle
    import weakref

    from kbatch.controllers.kueue.metrics import custom_labels_of
    from kbatch.controllers.kueue.metrics.custom_labels import CLUSTER_QUEUE

    world = _world()
    names = custom_labels_of(world.cp.metrics).names(CLUSTER_QUEUE)
    assert names
    loaded = pickle.loads(pickle.dumps(world.cp.metrics))
    assert custom_labels_of(loaded).names(CLUSTER_QUEUE) == names
    registry = weakref.ref(world.cp.metrics)
    world.cp.close()
    del world, loaded
    gc.collect()
    assert registry() is None
