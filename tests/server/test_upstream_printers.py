"""Upstream's printer table tests, translated: the cells ``kubectl get`` shows for each kind kbatch serves.

Source: k8s.io/kubernetes ``pkg/printers/internalversion/printers_test.go`` (the copy read is the one
with restartable-init-container cases and without the Job Status column, ~1.29; the Job Status column
and CronJob Timezone follow ``printers.go`` as of 1.32, which is what 1.37 prints). Each case names
its upstream test and case (the comment or the pod/node name upstream gives it). Upstream builds its
objects at ``time.Now()`` offsets; here they are offsets from a fixed virtual ``NOW``. Upstream
compares the whole row; here the row's cells (kbatch's printers return the wide cells, so the short
form is the first columns).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch.api.base import format_time
from kbatch.api.printing import Printer
from kbatch.families import builtin_registry
from kbatch.server.table import build_table

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
_REGISTRY = builtin_registry()


def _printer(api_version: str, kind: str) -> Printer:
    return _REGISTRY.for_gvk(api_version, kind).table_printer


def ago(**delta: float) -> str:
    return format_time(NOW - timedelta(**delta))


def cells(api_version: str, kind: str, obj: dict[str, Any], short: int | None = None) -> list[Any]:
    row = _printer(api_version, kind).cells(obj, NOW)
    return row[:short] if short is not None else row


# --- TestPrintPod ----------------------------------------------------------------------------

def _pod(name: str, status: dict[str, Any], containers: int = 2, init: list[dict[str, Any]] | None = None,
         **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [{"name": f"c{i}"} for i in range(containers)], **spec}
    if init is not None:
        body["initContainers"] = init
    return {"metadata": {"name": name}, "spec": body, "status": status}


RUNNING = {"running": {}}
WAITING: dict[str, Any] = {"waiting": {}}


def _restarted(seconds_ago: float) -> dict[str, Any]:
    return {"terminated": {"finishedAt": ago(seconds=seconds_ago)}}


POD_CASES = [
    ("test1: name, containers, restarts, ready", _pod("test1", {
        "phase": "podPhase", "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": RUNNING}, {"restartCount": 3}]}),
     ["test1", "1/2", "podPhase", "6", "<unknown>"]),
    ("test2: container error overwrites pod phase", _pod("test2", {
        "phase": "podPhase", "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": RUNNING},
        {"restartCount": 3, "state": {"waiting": {"reason": "ContainerWaitingReason"}}}]}),
     ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"]),
    ("test3: the first container overwrites the rest", _pod("test3", {
        "phase": "podPhase", "containerStatuses": [
        {"restartCount": 3, "state": {"waiting": {"reason": "ContainerWaitingReason"}}},
        {"restartCount": 3, "state": {"terminated": {"reason": "ContainerTerminatedReason"}}}]}),
     ["test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"]),
    ("test4: ready is not enough for reporting running", _pod("test4", {
        "phase": "podPhase", "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": RUNNING}, {"ready": True, "restartCount": 3}]}),
     ["test4", "1/2", "podPhase", "6", "<unknown>"]),
    ("test5: pod reason over phase", _pod("test5", {
        "reason": "podReason", "phase": "podPhase", "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": RUNNING}, {"ready": True, "restartCount": 3}]}),
     ["test5", "1/2", "podReason", "6", "<unknown>"]),
    ("test6: one running one completed, no Ready condition", _pod("test6", {
        "phase": "Running", "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": {"terminated": {"reason": "Completed", "exitCode": 0}}},
        {"ready": True, "restartCount": 3, "state": RUNNING}]}),
     ["test6", "1/2", "NotReady", "6", "<unknown>"]),
    ("test6: one running one completed, Ready condition", _pod("test6", {
        "phase": "Running", "conditions": [{"type": "Ready", "status": "True"}], "containerStatuses": [
            {"ready": True, "restartCount": 3, "state": {"terminated": {"reason": "Completed"}}},
            {"ready": True, "restartCount": 3, "state": RUNNING}]}),
     ["test6", "1/2", "Running", "6", "<unknown>"]),
    ("test7: 1 init container restarting, 1 container not running", _pod("test7", {
        "phase": "podPhase",
        "initContainerStatuses": [{"restartCount": 3, "state": RUNNING, "lastState": _restarted(10)}],
        "containerStatuses": [{"restartCount": 0, "state": WAITING}]}, containers=1, init=[{"name": "i0"}]),
     ["test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"]),
    ("test8: 2 init containers, one restarting, one not running", _pod("test8", {
        "phase": "podPhase",
        "initContainerStatuses": [{"restartCount": 3, "state": RUNNING, "lastState": _restarted(10)},
                                  {"state": WAITING}],
        "containerStatuses": [{"state": WAITING}]}, containers=1, init=[{"name": "i0"}, {"name": "i1"}]),
     ["test8", "0/1", "Init:0/2", "3 (10s ago)", "<unknown>"]),
    ("test9: 2 init containers, one completed, one restarting", _pod("test9", {
        "phase": "podPhase",
        "initContainerStatuses": [{"state": {"terminated": {}}},
                                  {"restartCount": 3, "state": RUNNING, "lastState": _restarted(10)}],
        "containerStatuses": [{"state": WAITING}]}, containers=1, init=[{"name": "i0"}, {"name": "i1"}]),
     ["test9", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"]),
    ("test10: 2 init containers, one completed with restarts, one restarting", _pod("test10", {
        "phase": "podPhase",
        "initContainerStatuses": [
            {"restartCount": 2, "state": {"terminated": {}}, "lastState": _restarted(120)},
            {"restartCount": 3, "state": RUNNING, "lastState": _restarted(10)}],
        "containerStatuses": [{"state": WAITING}]}, containers=1, init=[{"name": "i0"}, {"name": "i1"}]),
     ["test10", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"]),
    ("test11: init completed with restarts, container restarting", _pod("test11", {
        "phase": "Running",
        "initContainerStatuses": [
            {"restartCount": 2, "state": {"terminated": {}}, "lastState": _restarted(120)}],
        "containerStatuses": [{"restartCount": 4, "state": RUNNING, "lastState": _restarted(20)}]},
        containers=1, init=[{"name": "i0"}]),
     ["test11", "0/1", "Running", "4 (20s ago)", "<unknown>"]),
    ("test12: 1 container restarted 5d ago", _pod("test12", {
        "phase": "Running", "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": RUNNING, "lastState": _restarted(5 * 86400)}]},
        containers=1),
     ["test12", "1/1", "Running", "3 (5d ago)", "<unknown>"]),
    ("test13: one never restarted, other restarted 10d ago", _pod("test13", {
        "phase": "Running", "containerStatuses": [
        {"ready": True, "restartCount": 0, "state": RUNNING},
        {"ready": True, "restartCount": 3, "state": RUNNING, "lastState": _restarted(10 * 86400)}]}),
     ["test13", "2/2", "Running", "3 (10d ago)", "<unknown>"]),
    ("test14: restarted 5d and 20d ago", _pod("test14", {
        "phase": "Running", "containerStatuses": [
        {"ready": True, "restartCount": 6, "state": RUNNING, "lastState": _restarted(5 * 86400)},
        {"ready": True, "restartCount": 3, "state": RUNNING, "lastState": _restarted(20 * 86400)}]}),
     ["test14", "2/2", "Running", "9 (5d ago)", "<unknown>"]),
    ("test15: PodScheduled reason SchedulingGated", _pod("test15", {"phase": "podPhase", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}),
     ["test15", "0/2", "SchedulingGated", "0", "<unknown>"]),
]


@pytest.mark.parametrize(("case", "pod", "want"), POD_CASES, ids=[c[0].split(":")[0] + f"-{i}"
                                                                 for i, c in enumerate(POD_CASES)])
def test_print_pod(case: str, pod: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintPod."""
    assert cells("v1", "Pod", pod, 5) == want, case


# --- TestPrintPodWithRestartableInitContainer --------------------------------------------------

SIDECARS = [{"name": "restartable-init-1", "restartPolicy": "Always"},
            {"name": "restartable-init-2", "restartPolicy": "Always"}]

SIDECAR_CASES = [
    ("test1: first running but not started", _pod("test1", {
        "phase": "Pending", "conditions": [{"type": "Initialized", "status": "False"}],
        "initContainerStatuses": [
            {"name": "restartable-init-1", "restartCount": 3, "state": RUNNING, "started": False,
             "lastState": _restarted(10)},
            {"name": "restartable-init-2", "state": WAITING, "started": False}],
        "containerStatuses": [{"restartCount": 0, "state": WAITING}]}, containers=1, init=SIDECARS),
     ["test1", "0/3", "Init:0/2", "3 (10s ago)", "<unknown>"]),
    ("test1: first started, second running but not started", _pod("test1", {
        "phase": "Pending", "conditions": [{"type": "Initialized", "status": "False"}],
        "initContainerStatuses": [
            {"name": "restartable-init-1", "restartCount": 3, "state": RUNNING, "started": True,
             "lastState": _restarted(10)},
            {"name": "restartable-init-2", "state": RUNNING, "started": False}],
        "containerStatuses": [{"restartCount": 0, "state": WAITING}]}, containers=1, init=SIDECARS),
     ["test1", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"]),
    ("test2: both started, 1 container running", _pod("test2", {
        "phase": "Running", "conditions": [{"type": "Initialized", "status": "True"}],
        "initContainerStatuses": [
            {"name": "restartable-init-1", "restartCount": 3, "state": RUNNING, "started": True,
             "lastState": _restarted(10)},
            {"name": "restartable-init-2", "state": RUNNING, "started": True}],
        "containerStatuses": [
            {"ready": True, "restartCount": 4, "state": RUNNING, "lastState": _restarted(20)}]},
        containers=1, init=SIDECARS),
     ["test2", "1/3", "Running", "7 (10s ago)", "<unknown>"]),
    ("test3: both completed non-zero, container completed", _pod("test3", {
        "phase": "Succeeded", "conditions": [{"type": "Initialized", "status": "True"}],
        "initContainerStatuses": [
            {"name": "restartable-init-1", "restartCount": 3, "started": False, "lastState": _restarted(10),
             "state": {"terminated": {"reason": "Error", "exitCode": 137}}},
            {"name": "restartable-init-2", "started": False,
             "state": {"terminated": {"reason": "Error", "exitCode": 137}}}],
        "containerStatuses": [{"restartCount": 4, "lastState": _restarted(20),
                               "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]},
        containers=1, init=SIDECARS),
     ["test3", "0/3", "Completed", "7 (10s ago)", "<unknown>"]),
    ("test4: statuses for non-existent init containers and containers", {
        "metadata": {"name": "test4"},
        "spec": {"initContainers": [{"name": "init1", "image": "initimage"},
                                    {"name": "sidecar1", "image": "sidecarimage", "restartPolicy": "Always"}],
                 "containers": [{"name": "container1", "image": "containerimage"}]},
        "status": {"phase": "Running",
                   "initContainerStatuses": [{"name": "initinvalid"}, {"name": "init1"},
                                             {"name": "sidecar1"}],
                   "containerStatuses": [{"name": "containerinvalid"}, {"name": "container1"}]}},
     ["test4", "0/2", "Init:0/2", "0", "<unknown>"]),
]


@pytest.mark.parametrize(("case", "pod", "want"), SIDECAR_CASES,
                         ids=[f"{c[0].split(':')[0]}-{i}" for i, c in enumerate(SIDECAR_CASES)])
def test_print_pod_with_restartable_init_container(case: str, pod: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintPodWithRestartableInitContainer."""
    assert cells("v1", "Pod", pod, 5) == want, case


# --- TestPrintPodwide, TestPrintPodConditions, TestPrintPodList, TestPrintNonTerminatedPod ---------

def _gated(pod_ips: list[str]) -> dict[str, Any]:
    pod = _pod("test1", {"phase": "podPhase", "podIPs": [{"ip": ip} for ip in pod_ips], "podIP": pod_ips[0],
                         "nominatedNodeName": "node1",
                         "conditions": [{"type": "condition1", "status": "False"},
                                        {"type": "condition2", "status": "True"}],
                         "containerStatuses": [{"ready": True, "restartCount": 3, "state": RUNNING},
                                               {"restartCount": 3}]},
               nodeName="test1", readinessGates=[{"conditionType": f"condition{i}"} for i in (1, 2, 3)])
    return pod


@pytest.mark.parametrize(("pod", "want"), [
    (_gated(["1.1.1.1"]), ["test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"]),
    (_gated(["1.1.1.1", "2001:db8::"]),
     ["test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"]),
    (_pod("test2", {
        "phase": "podPhase", "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": RUNNING},
        {"restartCount": 3, "state": {"waiting": {"reason": "ContainerWaitingReason"}}}]}),
     ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>", "<none>", "<none>", "<none>", "<none>"]),
], ids=["node-ip-gates", "dual-stack", "none"])
def test_print_pod_wide(pod: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintPodwide: IP, Node, Nominated Node, Readiness Gates."""
    assert cells("v1", "Pod", pod) == want


def _phase_pod(name: str, phase: str, second_ready: bool = False) -> dict[str, Any]:
    return _pod(name, {"phase": phase, "containerStatuses": [
        {"ready": True, "restartCount": 3, "state": RUNNING}, {"ready": second_ready, "restartCount": 3}]})


@pytest.mark.parametrize(("pod", "want"), [
    (_phase_pod("test1", "Running"), ["test1", "1/2", "Running", "6", "<unknown>"]),
    (_phase_pod("test2", "Pending"), ["test2", "1/2", "Pending", "6", "<unknown>"]),
    (_phase_pod("test3", "Unknown"), ["test3", "1/2", "Unknown", "6", "<unknown>"]),
    (_phase_pod("test4", "Succeeded"), ["test4", "1/2", "Succeeded", "6", "<unknown>"]),
    (_phase_pod("test5", "Failed", second_ready=True), ["test5", "1/2", "Failed", "6", "<unknown>"]),
], ids=["running", "pending", "unknown", "succeeded", "failed"])
def test_print_non_terminated_pod_and_conditions(pod: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintNonTerminatedPod and TestPrintPodConditions (cells; the row
    conditions upstream adds for Succeeded/Failed pods are not part of kbatch's rows)."""
    assert cells("v1", "Pod", pod, 5) == want


def test_print_pod_list() -> None:
    """printers_test.go TestPrintPodList: one row per pod, in list order."""
    pods = [_pod("test1", {
        "phase": "podPhase", "containerStatuses": [
                {"ready": True, "restartCount": 3, "state": RUNNING},
                {"ready": True, "restartCount": 3, "state": RUNNING}]}),
            _pod("test2", {
        "phase": "podPhase", "containerStatuses": [
                {"ready": True, "restartCount": 1, "state": RUNNING}]}, containers=1)]
    table = build_table(pods, _printer("v1", "Pod"), NOW)
    assert [r["cells"][:5] for r in table["rows"]] == [["test1", "2/2", "podPhase", "6", "<unknown>"],
                                                       ["test2", "1/1", "podPhase", "1", "<unknown>"]]


def test_pod_column_definitions() -> None:
    """printers.go AddHandlers podColumnDefinitions: names, types, wide priority."""
    cols = [(c.name, c.type, c.priority) for c in _printer("v1", "Pod").columns]
    assert cols == [("Name", "string", 0), ("Ready", "string", 0), ("Status", "string", 0),
                    ("Restarts", "string", 0), ("Age", "string", 0), ("IP", "string", 1),
                    ("Node", "string", 1), ("Nominated Node", "string", 1), ("Readiness Gates", "string", 1)]


# --- TestPrintEvent, TestPrintEventsResultSorted ----------------------------------------------

def _event(name: str, **fields: Any) -> dict[str, Any]:
    return {"metadata": {"name": name},
            "involvedObject": {"kind": "Deployment", "name": "Deployment Name",
                               "fieldPath": "spec.containers{foo}"},
            "source": {"component": "kubelet", "host": "Node1"}, "reason": "Event Reason",
            "message": "Message Data", "type": "Warning", **fields}


WIDE_EVENT = ["deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data"]

EVENT_CASES = [
    ("basic event, no options", {
        "metadata": {"name": "event1"}, "source": {"component": "kubelet"},
        "involvedObject": {"kind": "Pod", "name": "Pod Name", "fieldPath": "spec.containers{foo}"},
        "reason": "Event Reason", "message": "Message Data", "firstTimestamp": ago(days=3),
        "lastTimestamp": ago(days=2), "count": 6, "type": "Normal"},
     None, ["2d", "Normal", "Event Reason", "pod/Pod Name", "Message Data"]),
    ("basic event, wide", _event("event2", involvedObject={
        "kind": "Deployment", "name": "Deployment Name", "fieldPath": "spec.containers{foo}"},
        firstTimestamp=ago(days=3), lastTimestamp=ago(days=2), count=6),
     ["2d", "Warning", "Event Reason", *WIDE_EVENT, "3d", 6, "event2"], None),
    ("w/o FirstTimestamp", _event("event3", eventTime=ago(days=3), lastTimestamp=ago(days=3), count=1),
     ["3d", "Warning", "Event Reason", *WIDE_EVENT, "3d", 1, "event3"], None),
    ("w/o LastTimestamp", _event("event4", eventTime=ago(days=3), firstTimestamp=ago(days=3), count=1),
     ["3d", "Warning", "Event Reason", *WIDE_EVENT, "3d", 1, "event4"], None),
    ("w/o FirstTimestamp and LastTimestamp", _event("event5", eventTime=ago(days=3), count=1),
     ["3d", "Warning", "Event Reason", *WIDE_EVENT, "3d", 1, "event5"], None),
    ("event series w/o FirstTimestamp, LastTimestamp and Count", _event(
        "event6", eventTime=ago(days=3), series={"count": 2, "lastObservedTime": ago(days=2)}),
     ["2d", "Warning", "Event Reason", *WIDE_EVENT, "3d", 2, "event6"], None),
    ("singleton w/o FirstTimestamp, LastTimestamp and Count", _event("event7", eventTime=ago(days=3)),
     ["3d", "Warning", "Event Reason", *WIDE_EVENT, "3d", 1, "event7"], None),
    ("empty Source, wide", _event("event2", source={}, reportingComponent="kubelet",
                                  reportingInstance="test", firstTimestamp=ago(days=3),
                                  lastTimestamp=ago(days=2), count=6),
     ["2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, test",
      "Message Data", "3d", 6, "event2"], None),
]


@pytest.mark.parametrize(("case", "event", "wide", "short"), EVENT_CASES, ids=[c[0] for c in EVENT_CASES])
def test_print_event(case: str, event: dict[str, Any], wide: list[Any] | None,
                     short: list[Any] | None) -> None:
    """printers_test.go TestPrintEvent. kbatch's row carries every column; the short form is the
    columns without priority (Last Seen, Type, Reason, Object, Message)."""
    printer = _printer("v1", "Event")
    row = printer.cells(event, NOW)
    if wide is not None:
        assert row == wide, case
    if short is not None:
        short_row = [cell for cell, col in zip(row, printer.columns, strict=True) if not col.priority]
        assert short_row == short, case


def test_print_event_involved_object_without_name() -> None:
    """printers.go printEvent: the Object cell is the lowercase kind alone when the name is empty."""
    event = _event("e", involvedObject={"kind": "Node"}, lastTimestamp=ago(seconds=5))
    assert cells("v1", "Event", event)[3] == "node"


def test_print_events_keep_list_order() -> None:
    """printers_test.go TestPrintEventsResultSorted: the rows keep the list's order (the messages
    come back Item 1, Item 2, Item 3 although their timestamps are 2014, 1987, 2002)."""
    events = [{"metadata": {"name": f"e{i}"}, "source": {"component": src}, "message": f"Item {i}",
               "firstTimestamp": when, "lastTimestamp": when, "count": 1, "type": "Normal"}
              for i, src, when in [(1, "kubelet", "2014-01-15T00:00:00Z"),
                                   (2, "scheduler", "1987-06-17T00:00:00Z"),
                                   (3, "kubelet", "2002-12-25T00:00:00Z")]]
    table = build_table(events, _printer("v1", "Event"), NOW)
    assert [r["cells"][6] for r in table["rows"]] == ["Item 1", "Item 2", "Item 3"]


# --- TestPrintNamespace -----------------------------------------------------------------------

@pytest.mark.parametrize(("namespace", "want"), [
    ({"metadata": {"name": "namespace1", "creationTimestamp": format_time(NOW)},
      "status": {"phase": "FooStatus"}},
     ["namespace1", "FooStatus", "0s"]),
    ({"metadata": {"name": "namespace2"}}, ["namespace2", "", "<unknown>"]),
], ids=["status-and-age", "no-status-no-age"])
def test_print_namespace(namespace: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintNamespace."""
    assert cells("v1", "Namespace", namespace) == want


# --- TestPrintNode* ---------------------------------------------------------------------------

def _node(name: str, conditions: list[dict[str, Any]] | None = None, unschedulable: bool = False,
          labels: dict[str, str] | None = None, **status: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"metadata": {"name": name, **({"labels": labels} if labels else {})},
                            "spec": {"unschedulable": True} if unschedulable else {},
                            "status": {**({"conditions": conditions} if conditions is not None else {}),
                                       **status}}
    return node


READY_TRUE = [{"type": "Ready", "status": "True"}]
READY_FALSE = [{"type": "Ready", "status": "False"}]
INVALID = [{"type": "InvalidValue", "status": "True"}]


@pytest.mark.parametrize(("node", "want"), [
    (_node("foo1", READY_TRUE), ["foo1", "Ready", "<none>", "<unknown>", ""]),
    (_node("foo2", READY_TRUE, True), ["foo2", "Ready,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (_node("foo3", READY_TRUE * 2), ["foo3", "Ready", "<none>", "<unknown>", ""]),
    (_node("foo4", READY_FALSE), ["foo4", "NotReady", "<none>", "<unknown>", ""]),
    (_node("foo5", READY_FALSE, True), ["foo5", "NotReady,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (_node("foo6", INVALID), ["foo6", "Unknown", "<none>", "<unknown>", ""]),
    (_node("foo7", [{}]), ["foo7", "Unknown", "<none>", "<unknown>", ""]),
    (_node("foo8", INVALID, True), ["foo8", "Unknown,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (_node("foo9", [{}], True), ["foo9", "Unknown,SchedulingDisabled", "<none>", "<unknown>", ""]),
], ids=lambda v: v["metadata"]["name"] if isinstance(v, dict) else "")
def test_print_node_status(node: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintNodeStatus."""
    assert cells("v1", "Node", node, 5) == want


@pytest.mark.parametrize(("node", "want"), [
    (_node("foo9"), ["foo9", "Unknown", "<none>", "<unknown>", ""]),
    (_node("foo10", labels={"node-role.kubernetes.io/master": "",
                            "node-role.kubernetes.io/control-plane": "",
                            "node-role.kubernetes.io/proxy": "", "kubernetes.io/role": "node"}),
     ["foo10", "Unknown", "control-plane,master,node,proxy", "<unknown>", ""]),
    (_node("foo11", labels={"kubernetes.io/role": "node"}), ["foo11", "Unknown", "node", "<unknown>", ""]),
    (_node("127.0.0.1"), ["127.0.0.1", "Unknown", "<none>", "<unknown>", ""]),
    (_node(""), ["", "Unknown", "<none>", "<unknown>", ""]),
], ids=["no-labels", "many-roles", "kubernetes.io-role", "name-ip", "name-empty"])
def test_print_node_role_and_name(node: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintNodeRole and TestPrintNodeName."""
    assert cells("v1", "Node", node, 5) == want


def _addr(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"type": kind, "address": ip} for kind, ip in pairs]


EXT = _addr(("ExternalIP", "1.1.1.1"))
UNK = "<unknown>"


@pytest.mark.parametrize(("node", "want"), [
    (_node("foo1", nodeInfo={"osImage": "fake-os-image"}, addresses=EXT),
     ["foo1", "Unknown", "<none>", UNK, "", "<none>", "1.1.1.1", "fake-os-image", UNK, UNK]),
    (_node("foo2", nodeInfo={"kernelVersion": "fake-kernel-version"}, addresses=EXT),
     ["foo2", "Unknown", "<none>", UNK, "", "<none>", "1.1.1.1", UNK, "fake-kernel-version", UNK]),
    (_node("foo1", nodeInfo={"containerRuntimeVersion": "foo://1.2.3"}, addresses=EXT),
     ["foo1", "Unknown", "<none>", UNK, "", "<none>", "1.1.1.1", UNK, UNK, "foo://1.2.3"]),
    (_node("foo2", nodeInfo={}, addresses=EXT),
     ["foo2", "Unknown", "<none>", UNK, "", "<none>", "1.1.1.1", UNK, UNK, UNK]),
    (_node("foo2", addresses=_addr(("InternalIP", "1.1.1.1"))),
     ["foo2", "Unknown", "<none>", UNK, "", "1.1.1.1", "<none>", UNK, UNK, UNK]),
    (_node("foo3", addresses=_addr(("ExternalIP", "2.2.2.2"), ("InternalIP", "3.3.3.3"),
                                   ("ExternalIP", "4.4.4.4"))),
     ["foo3", "Unknown", "<none>", UNK, "", "3.3.3.3", "2.2.2.2", UNK, UNK, UNK]),
    (_node("foo3", addresses=_addr(("InternalIP", "2.2.2.2"), ("ExternalIP", "3.3.3.3"),
                                   ("InternalIP", "4.4.4.4"))),
     ["foo3", "Unknown", "<none>", UNK, "", "2.2.2.2", "3.3.3.3", UNK, UNK, UNK]),
], ids=["os-image", "kernel", "runtime", "runtime-empty", "internal-ip", "external-first", "internal-first"])
def test_print_node_wide(node: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintNodeOSImage, TestPrintNodeKernelVersion,
    TestPrintNodeContainerRuntimeVersion, TestPrintNodeExternalIP, TestPrintNodeInternalIP."""
    assert cells("v1", "Node", node) == want


# --- TestPrintJob, TestPrintJobList (1.37 columns: Name, Status, Completions, Duration, Age) -----

def _job(name: str, created: str | None, completions: int | None = None, **status: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"template": {"spec": {"containers": [
        {"name": "fake-job-container1", "image": "fake-job-image1"},
        {"name": "fake-job-container2", "image": "fake-job-image2"}]}},
        "selector": {"matchLabels": {"job-label": "job-label-value"}}}
    if completions is not None:
        spec["completions"] = completions
    return {"metadata": {"name": name, **({"creationTimestamp": created} if created else {})},
            "spec": spec, "status": status}


TEN_YEARS = format_time(NOW.replace(year=NOW.year - 10))


@pytest.mark.parametrize(("job", "want"), [
    (_job("job1", format_time(NOW), 2, succeeded=1), ["job1", "Running", "1/2", "", "0s"]),
    (_job("job2", TEN_YEARS, succeeded=0), ["job2", "Running", "0/1", "", "10y"]),
    (_job("job3", TEN_YEARS, succeeded=0, startTime=format_time(NOW + timedelta(minutes=1)),
          completionTime=format_time(NOW + timedelta(minutes=31))), ["job3", "Running", "0/1", "30m", "10y"]),
    (_job("job4", TEN_YEARS, succeeded=0, startTime=ago(minutes=20)),
     ["job4", "Running", "0/1", "20m", "10y"]),
], ids=["no-options", "ten-year-age", "duration", "running-duration"])
def test_print_job(job: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintJob (the Status cell is Running for a job without conditions)."""
    assert cells("batch/v1", "Job", job, 5) == want


def test_print_job_wide() -> None:
    """printers_test.go TestPrintJob, generate options Wide: containers, images, selector."""
    job = _job("job1", format_time(NOW), 2, succeeded=1)
    assert cells("batch/v1", "Job", job)[5:] == ["fake-job-container1,fake-job-container2",
                                                "fake-job-image1,fake-job-image2",
                                                "job-label=job-label-value"]


def test_print_job_list() -> None:
    """printers_test.go TestPrintJobList."""
    jobs = [_job("job1", format_time(NOW), 2, succeeded=1),
            _job("job2", format_time(NOW), 2, succeeded=2, startTime=ago(minutes=20))]
    table = build_table(jobs, _printer("batch/v1", "Job"), NOW)
    assert [r["cells"][:5] for r in table["rows"]] == [["job1", "Running", "1/2", "", "0s"],
                                                       ["job2", "Running", "2/2", "20m", "0s"]]


# --- TestPrintCronJob, TestPrintCronJobList (1.37 adds Timezone after Schedule) ---------------------

def _cronjob(name: str, created: str, last: str | None, schedule: str = "0/5 * * * ?",
             template: bool = True) -> dict[str, Any]:
    job_spec: dict[str, Any] = {"completions": 2, "selector": {"matchLabels": {"a": "b"}}}
    if template:
        job_spec["template"] = {"spec": {"containers": [
            {"name": "fake-job-container1", "image": "fake-job-image1"},
            {"name": "fake-job-container2", "image": "fake-job-image2"}]}}
    return {"metadata": {"name": name, "creationTimestamp": created},
            "spec": {"schedule": schedule, "suspend": False, "jobTemplate": {"spec": job_spec}},
            "status": {"lastScheduleTime": last} if last else {}}


@pytest.mark.parametrize(("cronjob", "want"), [
    (_cronjob("cronjob1", format_time(NOW), format_time(NOW)),
     ["cronjob1", "0/5 * * * ?", "<none>", "False", 0, "0s", "0s", "fake-job-container1,fake-job-container2",
      "fake-job-image1,fake-job-image2", "a=b"]),
    (_cronjob("cronjob2", ago(minutes=5), ago(seconds=30), template=False),
     ["cronjob2", "0/5 * * * ?", "<none>", "False", 0, "30s", "5m", "", "", "a=b"]),
    (_cronjob("cronjob3", ago(minutes=5), None, template=False),
     ["cronjob3", "0/5 * * * ?", "<none>", "False", 0, "<none>", "5m", "", "", "a=b"]),
], ids=["basic-and-wide", "last-schedule-and-age", "no-last-schedule"])
def test_print_cronjob(cronjob: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintCronJob and TestPrintCronJobList (upstream's cronjob2/3 have no job
    template; its selector case is translated with one)."""
    assert cells("batch/v1", "CronJob", cronjob) == want


def test_print_cronjob_time_zone() -> None:
    """printers.go printCronJob: the Timezone cell is spec.timeZone, <none> when unset."""
    cronjob = _cronjob("tz", format_time(NOW), None)
    cronjob["spec"]["timeZone"] = "Etc/UTC"
    assert cells("batch/v1", "CronJob", cronjob)[2] == "Etc/UTC"


# --- TestPrintLease, TestPrintPriorityClass, TestPrintConfigMap, TestPrintPodDisruptionBudgetList ---

@pytest.mark.parametrize(("lease", "want"), [
    ({"metadata": {"name": "lease1", "creationTimestamp": format_time(NOW)},
      "spec": {"holderIdentity": "holder1"}},
     ["lease1", "holder1", "0s"]),
    ({"metadata": {"name": "lease2", "creationTimestamp": ago(minutes=5)},
      "spec": {"holderIdentity": "holder2"}},
     ["lease2", "holder2", "5m"]),
], ids=["lease1", "lease2"])
def test_print_lease(lease: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintLease."""
    assert cells("coordination.k8s.io/v1", "Lease", lease) == want


@pytest.mark.parametrize(("pc", "want"), [
    ({"metadata": {"name": "pc1", "creationTimestamp": format_time(NOW)}, "value": 1},
     ["pc1", 1, False, "0s"]),
    ({"metadata": {"name": "pc2", "creationTimestamp": ago(minutes=5)}, "value": 1000000000,
      "globalDefault": True},
     ["pc2", 1000000000, True, "5m"]),
], ids=["pc1", "pc2"])
def test_print_priority_class(pc: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintPriorityClass (the PreemptionPolicy column is later than that copy)."""
    assert cells("scheduling.k8s.io/v1", "PriorityClass", pc, 4) == want


@pytest.mark.parametrize(("cm", "want"), [
    ({"metadata": {"name": "configmap1", "creationTimestamp": format_time(NOW)}}, ["configmap1", 0, "0s"]),
    ({"metadata": {"name": "configmap2", "creationTimestamp": format_time(NOW)}, "data": {"foo": "bar"}},
     ["configmap2", 1, "0s"]),
    ({"metadata": {"name": "configmap3", "creationTimestamp": format_time(NOW)}, "data": {"foo": "bar"},
      "binaryData": {"bin": "YmluYXJ5IGRhdGE="}}, ["configmap3", 2, "0s"]),
], ids=["empty", "data", "data-and-binary"])
def test_print_config_map(cm: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintConfigMap."""
    assert cells("v1", "ConfigMap", cm) == want


def test_print_pod_disruption_budget_list() -> None:
    """printers_test.go TestPrintPodDisruptionBudgetList."""
    pdbs = [{"metadata": {"name": "pdb1", "namespace": "ns1", "creationTimestamp": format_time(NOW)},
             "spec": {"maxUnavailable": 11}, "status": {"disruptionsAllowed": 5}},
            {"metadata": {"name": "pdb2", "namespace": "ns2", "creationTimestamp": format_time(NOW)},
             "spec": {"minAvailable": 22}, "status": {"disruptionsAllowed": 3}}]
    table = build_table(pdbs, _printer("policy/v1", "PodDisruptionBudget"), NOW)
    assert [r["cells"] for r in table["rows"]] == [["pdb1", "N/A", "11", 5, "0s"],
                                                   ["pdb2", "22", "N/A", 3, "0s"]]


# --- TestPrintPersistentVolumeClaim (1.37 adds VolumeAttributesClass before Age) -----------------

def _pvc(name: str, phase: str, modes: list[str], storage: str, volume: str = "", scn: str | None = None,
         mode: str | None = "Filesystem") -> dict[str, Any]:
    spec: dict[str, Any] = {**({"volumeName": volume} if volume else {}),
                            **({"storageClassName": scn} if scn else {}),
                            **({"volumeMode": mode} if mode else {})}
    return {"metadata": {"name": name}, "spec": spec,
            "status": {"phase": phase, "accessModes": modes, "capacity": {"storage": storage}}}


@pytest.mark.parametrize(("pvc", "want"), [
    (_pvc("test1", "Bound", ["ReadOnlyMany"], "4Gi", "my-volume"),
     ["test1", "Bound", "my-volume", "4Gi", "ROX", "", "<unset>", "<unknown>", "Filesystem"]),
    (_pvc("test2", "Lost", ["ReadOnlyMany"], "4Gi"),
     ["test2", "Lost", "", "", "", "", "<unset>", "<unknown>", "Filesystem"]),
    (_pvc("test3", "Pending", ["ReadWriteMany"], "10Gi", "my-volume"),
     ["test3", "Pending", "my-volume", "10Gi", "RWX", "", "<unset>", "<unknown>", "Filesystem"]),
    (_pvc("test4", "Pending", ["ReadWriteOnce"], "10Gi", "my-volume", "my-scn"),
     ["test4", "Pending", "my-volume", "10Gi", "RWO", "my-scn", "<unset>", "<unknown>", "Filesystem"]),
    (_pvc("test5", "Pending", ["ReadWriteOnce"], "10Gi", "my-volume", "my-scn", None),
     ["test5", "Pending", "my-volume", "10Gi", "RWO", "my-scn", "<unset>", "<unknown>", "<unset>"]),
], ids=["bound", "lost", "pending", "storage-class", "no-volume-mode"])
def test_print_persistent_volume_claim(pvc: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintPersistentVolumeClaim."""
    assert cells("v1", "PersistentVolumeClaim", pvc) == want


# --- TestPrintServiceLoadBalancer ------------------------------------------------------------

def _lb(name: str, cluster_ip: str, ports: list[tuple[int, str]], ingress: list[dict[str, str]] | None = None,
        **spec: Any) -> dict[str, Any]:
    svc: dict[str, Any] = {"metadata": {"name": name}, "spec": {
        "clusterIPs": [cluster_ip], "clusterIP": cluster_ip, "type": "LoadBalancer",
        "ports": [{"port": p, "protocol": proto} for p, proto in ports], **spec}}
    if ingress is not None:
        svc["status"] = {"loadBalancer": {"ingress": ingress}}
    return svc


THREE_PORTS = [(80, "TCP"), (8090, "UDP"), (8000, "TCP")]


@pytest.mark.parametrize(("svc", "want"), [
    (_lb("service1", "1.2.3.4", [(80, "TCP")], [{"ip": "2.3.4.5"}, {"ip": "3.4.5.6"}]),
     ["service1", "LoadBalancer", "1.2.3.4", "2.3.4.5,3.4.5.6", "80/TCP", "<unknown>", "<none>"]),
    (_lb("service2", "1.3.4.5", [(80, "TCP"), (8090, "UDP"), (8000, "TCP"), (7777, "SCTP")]),
     ["service2", "LoadBalancer", "1.3.4.5", "<pending>", "80/TCP,8090/UDP,8000/TCP,7777/SCTP", "<unknown>",
      "<none>"]),
    (_lb("service3", "1.4.5.6", THREE_PORTS, [{"ip": "2.3.4.5"}]),
     ["service3", "LoadBalancer", "1.4.5.6", "2.3.4.5", "80/TCP,8090/UDP,8000/TCP", "<unknown>", "<none>"]),
    (_lb("service4", "1.5.6.7", THREE_PORTS,
         [{"ip": "2.3.4.5"}, {"ip": "3.4.5.6"}, {"ip": "5.6.7.8", "hostname": "host5678"}],
         selector={"foo": "bar"}),
     ["service4", "LoadBalancer", "1.5.6.7", "2.3.4.5,3.4.5.6,5.6.7.8", "80/TCP,8090/UDP,8000/TCP",
      "<unknown>", "foo=bar"]),
], ids=["multiple-ips", "pending", "multiple-ports", "wide-selector"])
def test_print_service_load_balancer(svc: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintServiceLoadBalancer. kube-apiserver's Table is generated wide
    (pkg/printers/storage TableConvertor), so the non-wide elision case ("2.3.4.5,3.4.5...") is what
    a client-side short print shows, not a server Table cell; its wide twin is translated."""
    assert cells("v1", "Service", svc) == want


def test_print_service_load_balancer_with_external_ips() -> None:
    """printers.go getServiceExternalIP: a LoadBalancer lists its ingress IPs then spec.externalIPs."""
    svc = _lb("s", "1.2.3.4", [(80, "TCP")], [{"hostname": "lb.example"}], externalIPs=["9.9.9.9"])
    assert cells("v1", "Service", svc)[3] == "lb.example,9.9.9.9"


# --- printPod deletion rules (printers.go; no table case upstream names them) ----------------------

@pytest.mark.parametrize(("phase", "reason", "want"), [
    ("Running", "NodeLost", "Unknown"),
    ("Running", None, "Terminating"),
    ("Pending", None, "Terminating"),
    ("Succeeded", None, "Succeeded"),
    ("Failed", None, "Failed"),
], ids=["node-lost", "running", "pending", "succeeded", "failed"])
def test_print_deleted_pod(phase: str, reason: str | None, want: str) -> None:
    """A deleted pod whose node is unreachable (status.reason NodeLost) prints Unknown; any other
    deleted pod prints Terminating unless its phase is terminal (podutil.IsPodPhaseTerminal)."""
    status: dict[str, Any] = {"phase": phase, **({"reason": reason} if reason else {})}
    pod = _pod("p", status)
    pod["metadata"]["deletionTimestamp"] = ago(seconds=5)
    assert cells("v1", "Pod", pod)[2] == want


def test_print_job_success_criteria_met() -> None:
    """kubernetes/kubernetes#132832 (1.34): a Job with SuccessCriteriaMet but not yet Complete
    prints SuccessCriteriaMet."""
    job = _job("job10", format_time(NOW), succeeded=1)
    job["status"]["conditions"] = [{"type": "SuccessCriteriaMet", "status": "True"}]
    assert cells("batch/v1", "Job", job)[1] == "SuccessCriteriaMet"


# --- printResourceQuota (printers.go; no table case in the copy read) -----------------------------

@pytest.mark.parametrize(("status", "want"), [
    (None, ["rq", "0s", "", ""]),
    ({"hard": {"cpu": "1", "limits.cpu": "2", "pods": "3"}, "used": {"cpu": "500m", "pods": "1"}},
     ["rq", "0s", "cpu: 500m/1, pods: 1/3", "limits.cpu: 0/2"]),
], ids=["not-yet-synced", "synced"])
def test_print_resource_quota(status: dict[str, Any] | None, want: list[Any]) -> None:
    """printResourceQuota lists the resources of ``status.hard`` (sorted; ``limits.*`` in LIMIT, the
    rest in REQUEST) as ``name: used/hard``; a quota the controller has not synced yet prints
    empty cells, whatever ``spec.hard`` says."""
    rq: dict[str, Any] = {"metadata": {"name": "rq", "creationTimestamp": format_time(NOW)},
                          "spec": {"hard": {"cpu": "1", "limits.cpu": "2", "pods": "3"}}}
    if status is not None:
        rq["status"] = status
    assert cells("v1", "ResourceQuota", rq) == want


def test_print_priority_class_preemption_policy() -> None:
    """printPriorityClass: the PreemptionPolicy cell is the field as stored, empty when unset (the
    API defaults it to PreemptLowerPriority on create, so only an object that never went through
    defaulting shows the empty cell)."""
    pc = {"metadata": {"name": "pc", "creationTimestamp": format_time(NOW)}, "value": 5}
    assert cells("scheduling.k8s.io/v1", "PriorityClass", pc)[4] == ""
    pc["preemptionPolicy"] = "Never"
    assert cells("scheduling.k8s.io/v1", "PriorityClass", pc)[4] == "Never"


@pytest.mark.parametrize(("rc", "want"), [
    ({"metadata": {"name": "rc1", "creationTimestamp": format_time(NOW)}, "handler": "h1"},
     ["rc1", "h1", "0s"]),
    ({"metadata": {"name": "rc2", "creationTimestamp": ago(minutes=5)}, "handler": "h2",
      "overhead": {"podFixed": {"cpu": "250m"}}}, ["rc2", "h2", "5m"]),
], ids=["rc1", "rc2"])
def test_print_runtime_class(rc: dict[str, Any], want: list[Any]) -> None:
    """printers_test.go TestPrintRuntimeClass: the handler only, overhead and scheduling are no column."""
    assert cells("node.k8s.io/v1", "RuntimeClass", rc) == want


# --- AddHandlers column definitions (printers.go, 1.32 copy; the -o wide columns are priority 1) ----

S, INT, B = "string", "integer", "boolean"
COLUMN_DEFS = [
    ("v1", "Event", [("Last Seen", S, 0), ("Type", S, 0), ("Reason", S, 0), ("Object", S, 0),
                     ("Subobject", S, 1), ("Source", S, 1), ("Message", S, 0), ("First Seen", S, 1),
                     ("Count", S, 1), ("Name", S, 1)]),
    ("v1", "ConfigMap", [("Name", S, 0), ("Data", S, 0), ("Age", S, 0)]),
    ("v1", "Namespace", [("Name", S, 0), ("Status", S, 0), ("Age", S, 0)]),
    ("v1", "Node", [("Name", S, 0), ("Status", S, 0), ("Roles", S, 0), ("Age", S, 0), ("Version", S, 0),
                    ("Internal-IP", S, 1), ("External-IP", S, 1), ("OS-Image", S, 1),
                    ("Kernel-Version", S, 1), ("Container-Runtime", S, 1)]),
    ("v1", "Service", [("Name", S, 0), ("Type", S, 0), ("Cluster-IP", S, 0), ("External-IP", S, 0),
                       ("Port(s)", S, 0), ("Age", S, 0), ("Selector", S, 1)]),
    ("v1", "PersistentVolumeClaim", [("Name", S, 0), ("Status", S, 0), ("Volume", S, 0), ("Capacity", S, 0),
                                     ("Access Modes", S, 0), ("StorageClass", S, 0),
                                     ("VolumeAttributesClass", S, 0), ("Age", S, 0), ("VolumeMode", S, 1)]),
    ("v1", "ResourceQuota", [("Name", S, 0), ("Age", S, 0), ("Request", S, 0), ("Limit", S, 0)]),
    ("batch/v1", "Job", [("Name", S, 0), ("Status", S, 0), ("Completions", S, 0), ("Duration", S, 0),
                         ("Age", S, 0), ("Containers", S, 1), ("Images", S, 1), ("Selector", S, 1)]),
    ("batch/v1", "CronJob", [("Name", S, 0), ("Schedule", S, 0), ("Timezone", S, 0), ("Suspend", B, 0),
                             ("Active", INT, 0), ("Last Schedule", S, 0), ("Age", S, 0), ("Containers", S, 1),
                             ("Images", S, 1), ("Selector", S, 1)]),
    ("policy/v1", "PodDisruptionBudget", [("Name", S, 0), ("Min Available", S, 0), ("Max Unavailable", S, 0),
                                          ("Allowed Disruptions", INT, 0), ("Age", S, 0)]),
    ("coordination.k8s.io/v1", "Lease", [("Name", S, 0), ("Holder", S, 0), ("Age", S, 0)]),
    ("scheduling.k8s.io/v1", "PriorityClass", [("Name", S, 0), ("Value", INT, 0), ("Global-Default", B, 0),
                                               ("Age", S, 0), ("PreemptionPolicy", S, 0)]),
    ("node.k8s.io/v1", "RuntimeClass", [("Name", S, 0), ("Handler", S, 0), ("Age", S, 0)]),
]


@pytest.mark.parametrize(("api_version", "kind", "want"), COLUMN_DEFS, ids=[c[1] for c in COLUMN_DEFS])
def test_column_definitions(api_version: str, kind: str, want: list[tuple[str, str, int]]) -> None:
    """printers.go AddHandlers: each kind's TableColumnDefinitions (name, type, priority)."""
    assert [(c.name, c.type, c.priority) for c in _printer(api_version, kind).columns] == want


# --- printResourceClaim / resourceClaimState, printResourceSlice (printers.go, 1.32 copy) -----------

@pytest.mark.parametrize(("deleted", "status", "want"), [
    (False, {}, "pending"),
    (True, {}, "deleted"),
    (False, {"allocation": {"devices": {}}}, "allocated"),
    (False, {"allocation": {"devices": {}}, "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]},
     "allocated,reserved"),
    (True, {"allocation": {"devices": {}}, "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]},
     "deleted,allocated,reserved"),
], ids=["pending", "deleted", "allocated", "reserved", "deleted-reserved"])
def test_print_resource_claim_state(deleted: bool, status: dict[str, Any], want: str) -> None:
    claim: dict[str, Any] = {"metadata": {"name": "c", "creationTimestamp": format_time(NOW)}, "spec": {},
                             "status": status}
    if deleted:
        claim["metadata"]["deletionTimestamp"] = format_time(NOW)
    assert cells("resource.k8s.io/v1", "ResourceClaim", claim) == ["c", want, "0s"]


def test_print_resource_slice() -> None:
    rs = {"metadata": {"name": "s", "creationTimestamp": ago(minutes=5)},
          "spec": {"nodeName": "node-0", "driver": "gpu.example.com", "pool": {"name": "node-0"}}}
    want = ["s", "node-0", "gpu.example.com", "node-0", "5m"]
    assert cells("resource.k8s.io/v1", "ResourceSlice", rs) == want
