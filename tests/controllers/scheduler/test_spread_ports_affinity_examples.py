"""Example tests for PodTopologySpread, NodePorts and InterPodAffinity scoring: the documented
cases of upstream's "Pod Topology Spread Constraints" page, KEP-3022 and KEP-3094, and the
upstream reason strings."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.controllers.scheduler.convert import pod_info
from kbatch.controllers.scheduler.framework import SKIPPED_SCORES
from kbatch.controllers.scheduler.plugins.inter_pod_affinity import InterPodAffinity
from kbatch.controllers.scheduler.plugins.pod_topology_spread import HOSTNAME, PodTopologySpread
from kbatch.controllers.scheduler.types import (
    HostPort,
    LabelSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinityTerm,
    SpreadConstraint,
    Taint,
    Toleration,
)

from .sched_builders import cluster, node, place, pod

ZONE = "topology.kubernetes.io/zone"
WEB = LabelSelector((("app", "web"),))


def web(name: str, *constraints: SpreadConstraint, **kw: object) -> object:
    return pod(name, labels={"app": "web"}, spread_constraints=constraints, **kw)


def zoned(*zones: str, **kw: object):
    return cluster(*[node(f"n{i}", labels={ZONE: z}) for i, z in enumerate(zones)], preemption=False, **kw)


# -- PodTopologySpread: filter ---------------------------------------------------------------------
def test_max_skew_sends_the_next_pod_to_the_emptier_zone() -> None:
    algo = zoned("a", "b")
    algo.assume(web("w0"), "n0")
    spread = SpreadConstraint(1, ZONE, "DoNotSchedule", WEB)
    assert place(algo, web("w1", spread)) == "n1"
    assert algo.schedule(web("w2", spread)).node in ("n0", "n1")


def test_skew_rejection_reason_is_upstreams() -> None:
    algo = zoned("a", "b")
    algo.assume(web("w0"), "n0")
    algo.assume(web("w1"), "n0")
    algo.snapshot.set_node(node("n1", labels={ZONE: "b"}, cpu=0))  # zone b is full
    decision = algo.schedule(web("w2", SpreadConstraint(1, ZONE, "DoNotSchedule", WEB), cpu_m=100))
    assert decision.node is None and decision.diagnosis is not None
    assert decision.diagnosis.message() == (
        "0/2 nodes are available: 1 Insufficient cpu, "
        "1 node(s) didn't match pod topology spread constraints.")


def test_node_without_the_topology_key_is_unresolvable_with_missing_label_reason() -> None:
    algo = cluster(node("n0"), preemption=False)  # no zone label
    decision = algo.schedule(web("w", SpreadConstraint(1, ZONE, "DoNotSchedule", WEB)))
    assert decision.node is None and decision.diagnosis is not None
    status = decision.diagnosis.statuses["n0"]
    assert status.reasons == (
        "node(s) didn't match pod topology spread constraints (missing required label)",)
    assert status.code.name == "UNRESOLVABLE"


def test_min_domains_treats_the_global_minimum_as_zero_while_domains_are_too_few() -> None:
    """KEP-3022: two eligible zones with one matching pod each; minDomains 3 makes the global
    minimum 0, so a third pod would make skew 2 > maxSkew 1 anywhere."""
    algo = zoned("a", "b")
    algo.assume(web("w0"), "n0")
    algo.assume(web("w1"), "n1")
    three = SpreadConstraint(1, ZONE, "DoNotSchedule", WEB, min_domains=3)
    assert algo.schedule(web("w2", three)).node is None
    assert algo.schedule(web("w3", SpreadConstraint(1, ZONE, "DoNotSchedule", WEB, min_domains=2))).node


def _ab_only() -> tuple[NodeSelectorTerm, ...]:
    return (NodeSelectorTerm((NodeSelectorRequirement(ZONE, "In", ("a", "b")),)),)


def test_node_affinity_policy_honor_excludes_zones_the_pod_cannot_use() -> None:
    """KEP-3094: zone c (no matching pods) is outside the pod's node affinity. Honor (the default)
    leaves it out of the skew, Ignore counts it as the global minimum 0."""
    algo = zoned("a", "b", "c")
    algo.assume(web("w0"), "n0")
    algo.assume(web("w1"), "n1")
    honor = SpreadConstraint(1, ZONE, "DoNotSchedule", WEB)
    ignore = SpreadConstraint(1, ZONE, "DoNotSchedule", WEB, node_affinity_policy="Ignore")
    assert algo.schedule(web("w2", honor, required_terms=_ab_only())).node in ("n0", "n1")
    assert algo.schedule(web("w3", ignore, required_terms=_ab_only())).node is None


def test_node_taints_policy_honor_excludes_untolerated_tainted_nodes() -> None:
    tainted = node("n2", labels={ZONE: "c"}, taints=(Taint("dedicated", "NoSchedule"),))
    algo = cluster(node("n0", labels={ZONE: "a"}), node("n1", labels={ZONE: "b"}), tainted, preemption=False)
    algo.assume(web("w0"), "n0")
    algo.assume(web("w1"), "n1")
    ignore = SpreadConstraint(1, ZONE, "DoNotSchedule", WEB)  # the default: tainted c is the minimum
    honor = SpreadConstraint(1, ZONE, "DoNotSchedule", WEB, node_taints_policy="Honor")
    assert algo.schedule(web("w2", ignore)).node is None
    assert algo.schedule(web("w3", honor)).node in ("n0", "n1")
    tolerant = web("w4", honor, tolerations=(Toleration("dedicated", "Exists"),))
    assert algo.schedule(tolerant).node == "n2"


def test_pods_in_other_namespaces_or_not_selected_do_not_count() -> None:
    algo = zoned("a", "b")
    algo.assume(web("w0", namespace="other"), "n0")
    algo.assume(pod("x", labels={"app": "db"}), "n0")
    algo.assume(web("w1"), "n1")
    assert place(algo, web("w2", SpreadConstraint(1, ZONE, "DoNotSchedule", WEB))) == "n0"


def test_a_pod_its_own_selector_does_not_match_adds_no_self_match() -> None:
    """Both pods may only use zone a (zone b still counts: nodeAffinityPolicy Ignore), which has
    one matching pod against zone b's none: 1 + selfMatch - 0 exceeds maxSkew 1 only for a pod
    its own selector matches."""
    algo = zoned("a", "b")
    algo.assume(web("w0"), "n0")
    spread = SpreadConstraint(1, ZONE, "DoNotSchedule", WEB, node_affinity_policy="Ignore")
    only_a = ((ZONE, "a"),)
    assert algo.schedule(web("w1", spread, node_selector=only_a)).node is None
    other = pod("o", labels={"app": "other"}, spread_constraints=(spread,), node_selector=only_a)
    assert algo.schedule(other).node == "n0"


def test_match_label_keys_are_merged_into_the_selector_at_conversion() -> None:
    model = Pod.model_validate({
        "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web", "rev": "2"}},
        "spec": {"containers": [{"name": "c", "image": "i"}], "topologySpreadConstraints": [{
            "maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["rev", "absent"]}]},
    })
    (c,) = pod_info(model).spread_constraints
    assert c.selector is not None
    assert c.selector.matches({"app": "web", "rev": "2"})
    assert not c.selector.matches({"app": "web", "rev": "1"})
    assert (c.min_domains, c.node_affinity_policy, c.node_taints_policy) == (1, "Honor", "Ignore")


# -- PodTopologySpread: score and system defaults -------------------------------------------------
def test_schedule_anyway_prefers_the_less_loaded_zone_against_most_allocated() -> None:
    algo = zoned("a", "b", scoring_strategy="MostAllocated")
    algo.assume(web("w0", cpu_m=1000), "n0")
    spread = SpreadConstraint(1, ZONE, "ScheduleAnyway", WEB)
    assert place(algo, web("w1", spread, cpu_m=1000)) == "n1"


def test_system_default_constraints_need_a_selecting_service() -> None:
    """Upstream defaults only apply with a non-empty DefaultSelector: a bare (Job) pod no Service
    selects gets none; one a Service selects is spread on hostname (and zone) with its selector."""
    plugin = PodTopologySpread()
    assert plugin.soft_constraints(web("bare")) == ()
    plugin.services.set("default", "svc", {"app": "web"})
    constraints = plugin.soft_constraints(web("selected"))
    assert [(c.topology_key, c.max_skew) for c in constraints] == [(HOSTNAME, 3), (ZONE, 5)]
    assert all(c.selector == WEB for c in constraints)
    assert plugin.soft_constraints(web("elsewhere", namespace="other")) == ()
    plugin.services.set("default", "none", None)  # a nil selector selects nothing
    assert plugin.soft_constraints(pod("db", labels={"app": "db"})) == ()


def test_system_defaults_spread_service_pods_over_hosts_without_zone_labels() -> None:
    algo = cluster(node("n0"), node("n1"), scoring_strategy="MostAllocated", preemption=False)
    where = [place(algo, web(f"w{i}")) for i in range(4)]
    assert len(set(where)) == 1  # no Service: MostAllocated packs
    algo2 = cluster(node("n0"), node("n1"), scoring_strategy="MostAllocated", preemption=False)
    next(p for p in algo2.profile.pre_filter if isinstance(p, PodTopologySpread)).services.set(
        "default", "svc", {"app": "web"})
    where = [place(algo2, web(f"w{i}")) for i in range(4)]
    assert sorted(where) == ["n0", "n0", "n1", "n1"]


def test_score_normalization_reverses_and_zeroes_ignored_nodes() -> None:
    plugin = PodTopologySpread()
    assert plugin.normalize([2, 3, -1]) == [100, 66, 0]
    assert plugin.normalize([0, 0]) == [100, 100]


# -- NodePorts -------------------------------------------------------------------------------------
def test_host_port_conflict_reason_and_coexistence_rules() -> None:
    algo = cluster(node("n0"), preemption=False)
    algo.assume(pod("a", host_ports=(HostPort("10.0.0.1", "TCP", 80),)), "n0")
    assert algo.schedule(pod("udp", host_ports=(HostPort("0.0.0.0", "UDP", 80),))).node == "n0"
    assert algo.schedule(pod("other-ip", host_ports=(HostPort("10.0.0.2", "TCP", 80),))).node == "n0"
    decision = algo.schedule(pod("all", host_ports=(HostPort("0.0.0.0", "TCP", 80),)))
    assert decision.node is None and decision.diagnosis is not None
    assert decision.diagnosis.message() == (
        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.")


def test_host_ports_of_sidecars_count_and_defaults_are_sanitized() -> None:
    model = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": {
        "initContainers": [{"name": "side", "image": "i", "restartPolicy": "Always",
                            "ports": [{"containerPort": 9, "hostPort": 9000}]},
                           {"name": "init", "image": "i", "ports": [{"containerPort": 8, "hostPort": 8000}]}],
        "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80, "hostPort": 8080,
                                                               "protocol": "UDP", "hostIP": "10.0.0.1"},
                                                              {"containerPort": 81}]}]}})
    assert pod_info(model).host_ports == (HostPort("0.0.0.0", "TCP", 9000), HostPort("10.0.0.1", "UDP", 8080))


def test_preemption_frees_a_host_port() -> None:
    algo = cluster(node("n0"))
    algo.assume(pod("low", priority=0, host_ports=(HostPort("0.0.0.0", "TCP", 80),)), "n0")
    decision = algo.schedule(pod("high", priority=10, host_ports=(HostPort("0.0.0.0", "TCP", 80),)))
    assert decision.preemption is not None and decision.preemption.nominated_node == "n0"
    assert [v.name for v in decision.preemption.victims] == ["low"]


# -- InterPodAffinity scoring ----------------------------------------------------------------------
def test_existing_pods_required_affinity_attracts_with_hard_pod_affinity_weight() -> None:
    algo = cluster(node("n0"), node("n1"), node("n2"), preemption=False)
    term = PodAffinityTerm(LabelSelector((("app", "web"),)), HOSTNAME)
    algo.assume(pod("cache", affinity=(term,)), "n1")
    assert place(algo, pod("w", labels={"app": "web"})) == "n1"


def test_plain_pods_skip_the_new_scores_and_stay_batched() -> None:
    algo = cluster(node("n0"), node("n1"), preemption=False)
    decision = algo.schedule(pod("p", cpu_m=100))
    assert {"PodTopologySpread", "InterPodAffinity"} <= decision.state[SKIPPED_SCORES].keys()
    assert algo._batch is not None  # the heap fast path was taken


def test_inter_pod_affinity_normalization_is_min_max() -> None:
    assert InterPodAffinity().normalize([-5, 0, 5]) == [0, 50, 100]
    assert InterPodAffinity().normalize([3, 3]) == [0, 0]
