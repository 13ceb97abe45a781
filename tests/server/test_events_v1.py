"""events.k8s.io/v1 Event served beside core/v1 Event over one storage (docs/apiserver.md, "Events in
two groups"): what is written in one group reads back in the other under the other's field names
(upstream ``pkg/apis/events/v1/conversion.go``), events.k8s.io/v1 writes are validated by the strict
rules and core/v1 writes by the legacy ones (``pkg/apis/core/validation/events.go``), and the event TTL
deletes an Event whichever group wrote it."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from kbatch.runtime.event_ttl import EVENT_TTL
from kbatch.server.facade import ControlPlaneBackend

KUBECTL = shutil.which("kubectl")
V1 = "/apis/events.k8s.io/v1/namespaces/default/events"
CORE = "/api/v1/namespaces/default/events"


def _v1(name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
            "eventTime": "2025-01-01T00:00:00.000001Z", "reportingController": "example.com/ctl",
            "reportingInstance": "ctl-1", "action": "Testing", "reason": "Tested", "note": "it works",
            "type": "Normal", "regarding": {"kind": "Pod", "name": "p", "namespace": "default",
                                            "apiVersion": "v1"}, **fields}


def test_an_event_written_in_one_group_reads_back_in_the_other(api: Any) -> None:
    assert api.post(V1, json=_v1("a.1")).status_code == 201
    core = api.get(f"{CORE}/a.1").json()
    assert (core["apiVersion"], core["involvedObject"]["name"], core["message"], core["reportingComponent"],
            core["action"], core["eventTime"]) == ("v1", "p", "it works", "example.com/ctl", "Testing",
                                                   "2025-01-01T00:00:00.000001Z")
    assert "regarding" not in core and "note" not in core
    legacy = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "b.1"}, "reason": "Old",
              "message": "legacy", "count": 3, "type": "Warning", "source": {"component": "kubelet"},
              "firstTimestamp": "2025-01-01T00:00:00Z", "lastTimestamp": "2025-01-01T00:00:00Z",
              "involvedObject": {"kind": "Pod", "name": "q", "namespace": "default"}}
    assert api.post(CORE, json=legacy).status_code == 201
    v1 = api.get(f"{V1}/b.1").json()
    assert (v1["apiVersion"], v1["regarding"]["name"], v1["note"], v1["deprecatedCount"],
            v1["deprecatedSource"], v1["deprecatedFirstTimestamp"], v1["eventTime"]) == (
        "events.k8s.io/v1", "q", "legacy", 3, {"component": "kubelet"}, "2025-01-01T00:00:00Z", None)
    listed = api.get(V1).json()
    assert listed["apiVersion"] == "events.k8s.io/v1"
    assert sorted(i["metadata"]["name"] for i in listed["items"]) == ["a.1", "b.1"]
    assert {i["apiVersion"] for i in listed["items"]} == {"events.k8s.io/v1"}


def _causes(response: Any) -> list[tuple[str, str]]:
    assert response.status_code == 422, response.text
    details = response.json()["details"]
    return [(c["field"], c["message"]) for c in details["causes"]]


def test_an_events_v1_create_is_held_to_the_strict_rules(api: Any) -> None:
    bad = _v1("bad.1", type="Odd", deprecatedCount=2, deprecatedSource={"component": "x"},
              series={"count": 1}, action="", reportingController="not a name")
    del bad["eventTime"]
    out = api.post(V1, json=bad)
    assert out.json()["message"].startswith('Event "bad.1" is invalid: [')
    # without eventTime the legacy rules are the ones for old Events; then the strict ones
    assert _causes(out) == [
        ("series.count", 'Invalid value: "": should be at least 2'),
        ("series.lastObservedTime", "Required value"),
        ("eventTime", "Required value"),
        ("type", 'Invalid value: "": has invalid value: Odd'),
        ("count", 'Invalid value: "": needs to be unset'),
        ("source", 'Invalid value: "": needs to be unset'),
    ]


def test_an_event_with_an_event_time_needs_its_reporting_fields_in_either_group(api: Any) -> None:
    sparse = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "c.1"},
              "eventTime": "2025-01-01T00:00:00.000000Z", "reportingComponent": "a b",
              "involvedObject": {"kind": "Node", "name": "n1"}}
    fields = [f for f, _ in _causes(api.post(CORE, json=sparse))]
    assert fields == ["reportingController", "reportingInstance", "action", "reason"]
    # a cluster-scoped object's event with an eventTime may be in default (or kube-system) only
    elsewhere = _v1("d.1", regarding={"kind": "Node", "name": "n1"})
    ns = "/apis/events.k8s.io/v1/namespaces/kube-system/events"
    assert api.post(ns, json=elsewhere).status_code == 201
    assert api.post(V1, json=_v1("d.2", regarding={"kind": "Node", "name": "n1"})).status_code == 201
    api.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "t"}})
    assert _causes(api.post("/apis/events.k8s.io/v1/namespaces/t/events", json=_v1(
        "d.3", regarding={"kind": "Node", "name": "n1"}))) == [
        ("involvedObject.namespace", 'Invalid value: "": does not match event.namespace')]


def test_an_events_v1_update_may_change_only_the_series(api: Any) -> None:
    created = api.post(V1, json=_v1("e.1")).json()
    series = {"count": 2, "lastObservedTime": "2025-01-01T00:05:00.000000Z"}
    renewed = api.request("PUT", f"{V1}/e.1", json={**created, "series": series})
    assert renewed.status_code == 200 and renewed.json()["series"] == series
    changed = api.request("PUT", f"{V1}/e.1", json={**renewed.json(), "note": "other", "action": "Else"})
    assert _causes(changed) == [("message", 'Invalid value: "other": field is immutable'),
                                ("action", 'Invalid value: "Else": field is immutable')]
    patched = api.patch(f"{V1}/e.1", json={"reportingInstance": "ctl-2"},
                        headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert _causes(patched) == [("reportingInstance", 'Invalid value: "ctl-2": field is immutable')]
    # core/v1 keeps the legacy rules only: its update may change the message
    core = api.get(f"{CORE}/e.1").json()
    assert api.request("PUT", f"{CORE}/e.1", json={**core, "message": "other"}).status_code == 200


def test_the_event_ttl_deletes_an_events_v1_event(api: Any, backend: ControlPlaneBackend) -> None:
    assert api.post(V1, json=_v1("f.1")).status_code == 201
    backend.advance(EVENT_TTL - 1)
    assert api.get(f"{V1}/f.1").status_code == 200
    backend.advance(1)
    assert api.get(f"{V1}/f.1").status_code == 404


EVENT_YAML = """\
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: hello.1}
eventTime: "2025-01-01T00:00:00.000000Z"
reportingController: example.com/ctl
reportingInstance: ctl-1
action: Testing
reason: Tested
note: it works
type: Normal
regarding: {kind: Pod, name: p, namespace: default, apiVersion: v1}
"""


def _kubectl(served: Any, *args: str, input_: str | None = None, ok: bool = True) -> str:
    out = subprocess.run([KUBECTL, *args], env=served.env(), capture_output=True, text=True, timeout=30,
                         input=input_)
    assert (out.returncode == 0) == ok, out.stderr + out.stdout
    return out.stdout + out.stderr


@pytest.mark.skipif(KUBECTL is None, reason="kubectl not installed")
def test_kubectl_and_the_official_client_use_both_groups(served: Any) -> None:
    assert _kubectl(served, "create", "-f", "-", input_=EVENT_YAML) == "event.events.k8s.io/hello.1 created\n"
    resources = _kubectl(served, "api-resources", "--api-group=events.k8s.io")
    assert resources.splitlines()[1].split() == ["events", "ev", "events.k8s.io/v1", "true", "Event"]
    wide = _kubectl(served, "get", "events.events.k8s.io", "-o", "wide").splitlines()
    assert wide[0].split()[:5] == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT"]
    assert "example.com/ctl, ctl-1" in wide[1] and "it works" in wide[1]
    # both resources carry the short name (one REST storage), so kubectl warns as on a cluster
    out = _kubectl(served, "get", "ev", "hello.1", "-o", "name")
    assert out == ("event/hello.1\nWarning: short name \"ev\" could also match lower priority resource "
                   "events.events.k8s.io\n")
    core = json.loads(_kubectl(served, "get", "events", "hello.1", "-o", "json"))
    assert (core["apiVersion"], core["message"], core["reportingComponent"]) == ("v1", "it works",
                                                                                 "example.com/ctl")
    refused = _kubectl(served, "create", "-f", "-", ok=False,
                       input_=EVENT_YAML.replace("hello.1", "bad.1").replace("action: Testing\n", ""))
    assert 'The Event "bad.1" is invalid: action: Required value' in refused
    kubernetes = pytest.importorskip("kubernetes", reason="the official Python client")
    api = kubernetes.client.EventsV1Api(kubernetes.config.new_client_from_config(
        config_file=str(served.kubeconfig)))
    listed = api.list_namespaced_event("default")
    assert [(e.metadata.name, e.note, e.regarding.name) for e in listed.items] == [
        ("hello.1", "it works", "p")]
    made = api.create_namespaced_event("default", kubernetes.client.EventsV1Event(
        metadata=kubernetes.client.V1ObjectMeta(name="via-client.1"),
        event_time=datetime(2025, 1, 1, tzinfo=UTC), reporting_controller="example.com/client",
        reporting_instance="c-1", action="Calling", reason="Called", type="Warning", note="from python",
        regarding=kubernetes.client.V1ObjectReference(kind="Pod", name="p", namespace="default")))
    assert made.event_time == datetime(2025, 1, 1, tzinfo=UTC)
    assert "Warning   Called   pod/p" in _kubectl(served, "get", "events", "--field-selector",
                                                  "reason=Called")


UNSCHEDULABLE = """\
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: '64'}}}]
"""


@pytest.mark.skipif(KUBECTL is None, reason="kubectl not installed")
def test_kubectl_shows_the_scheduler_s_events_k8s_io_events(served: Any) -> None:
    """kubectl's describe (From: ``reportingController``; a series ``(xN over ...)``), ``kubectl
    events`` and ``get events`` read the scheduler's events.k8s.io/v1 Events as on a cluster."""
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1},
                       timeout=30)
    assert reply.status_code == 200, reply.text
    _kubectl(served, "apply", "-f", "-", input_=UNSCHEDULABLE)
    clock = f"{served.url}/apis/kbatch.dev/v1alpha1/clock"
    assert httpx.post(clock, json={"advance": "11m"}, timeout=30).status_code == 200
    page = _kubectl(served, "describe", "pod", "huge")
    # the first failure a singleton, the retries at 5 and 10 minutes a series (docs/runtime.md); ages
    # are the real kubectl's, against the wall clock: only the shape is checked
    [single, series] = [line.split() for line in page.splitlines() if "FailedScheduling" in line]
    assert (single[:2], single[3]) == (["Warning", "FailedScheduling"], "default-scheduler")
    assert (series[:2], series[3:5], series[6]) == (["Warning", "FailedScheduling"], ["(x2", "over"],
                                                    "default-scheduler")
    listed = _kubectl(served, "events", "--for", "pod/huge").splitlines()
    cells = listed[-1].split()  # oldest first: the series, last observed at 00:10, last
    assert (cells[1:3], cells[4:7]) == (["(x2", "over"], ["Warning", "FailedScheduling", "Pod/huge"])
    selector = "regarding.name=huge,reportingController=default-scheduler"  # events.k8s.io's labels
    v1 = json.loads(_kubectl(served, "get", "events.events.k8s.io", "--field-selector", selector,
                             "-o", "json"))["items"]
    assert sorted((e["reportingController"], e["action"], (e.get("series") or {}).get("count", 1))
                  for e in v1) == [("default-scheduler", "Scheduling", 1),
                                                          ("default-scheduler", "Scheduling", 2)]
