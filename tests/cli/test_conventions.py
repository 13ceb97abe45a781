"""The kubectl conventions the CLI keeps (issue 8), one test per convention, through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PI = str(EXAMPLES / "pi-job.yaml")


def _pod(name: str, **meta: Any) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta},
                       "spec": {"containers": [{"name": "c", "image": "busybox",
                                                "command": ["sleep", "600"]}]}})


def _get(kb: Any, *args: str) -> Any:
    return json.loads(kb.ok("get", *args, "-o", "json"))


def _now(kb: Any) -> str:
    return kb.ok("advance", "0s").split(" to ")[1].split()[0]


# --- durations ------------------------------------------------------------------------------------

def test_durations_accept_go_syntax(kb: Any) -> None:
    assert kb.ok("advance", "500ms").startswith("advanced 500ms to 2025-01-01T00:00:00")
    kb.ok("advance", "1500ms")
    assert _now(kb) == "2025-01-01T00:00:02Z"
    kb.ok("advance", "1m30s")
    kb.ok("advance", "1h")
    assert _now(kb) == "2025-01-01T01:01:32Z"
    kb.ok("create", "-f", "-", input_=_pod("p"))
    res = kb("wait", "pod/p", "--for", "condition=Ready", "--timeout", "1m30s")  # no node: never ready
    assert res.code == 1 and "timed out" in res.err
    assert _now(kb) == "2025-01-01T01:03:02Z"
    assert kb("get", "pods", "--request-timeout", "2s").code == 0
    assert kb("get", "pods", "--request-timeout", "0").code == 0


@pytest.mark.parametrize("args", [("advance", "90"), ("advance", "1x"), ("advance", "1h-5m"),
                                  ("wait", "pod/p", "--for", "delete", "--timeout=-1s"),
                                  ("wait", "pod/p", "--for", "delete", "--timeout", "soon"),
                                  ("get", "pods", "--request-timeout", "later")])
def test_durations_reject_what_go_rejects(kb: Any, args: tuple[str, ...]) -> None:
    res = kb(*args)
    assert res.code == 1 and "invalid duration" in res.err and "Traceback" not in res.err


# --- state directory ------------------------------------------------------------------------------

def test_state_dir_that_does_not_exist_is_created_empty(kb: Any, tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "state"
    res = kb("--state", str(deep), "get", "nodes", "-o", "json")
    assert res.code == 0 and res.json()["items"] == []
    assert deep.is_dir()
    assert json.loads(kb.ok("--state", str(deep), "get", "pods", "-A", "-o", "json"))["items"] == []


# --- namespaces -----------------------------------------------------------------------------------

def test_namespace_default_and_n_and_all_namespaces(kb: Any) -> None:
    kb.ok("create", "-f", "-", input_=json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                  "metadata": {"name": "team"}}))
    kb.ok("create", "-f", "-", input_=_pod("a"))
    kb.ok("create", "-n", "team", "-f", "-", input_=_pod("b"))
    assert _get(kb, "pod", "a")["metadata"]["namespace"] == "default"
    assert kb("get", "pod", "b").code == 1  # not in default
    assert [p["metadata"]["name"] for p in _get(kb, "pods", "-n", "team")["items"]] == ["b"]
    both = {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in _get(kb, "pods", "-A")["items"]}
    assert both == {("default", "a"), ("team", "b")}
    assert kb("delete", "pod", "b").code == 1  # -n is needed, as in kubectl
    kb.ok("delete", "pod", "b", "-n", "team")
    # cluster-scoped kinds ignore -n, as kubectl does
    assert "team" in [n["metadata"]["name"] for n in _get(kb, "namespaces", "-n", "team")["items"]]


# --- get -o json ----------------------------------------------------------------------------------

def test_get_json_one_name_is_the_object(kb: Any) -> None:
    kb.ok("apply", "-f", PI)
    for args in (("job", "pi"), ("job/pi",), ("jobs.batch", "pi")):
        obj = _get(kb, *args)
        assert obj["kind"] == "Job" and obj["apiVersion"] == "batch/v1" and obj["metadata"]["name"] == "pi"


def test_get_json_empty_is_a_list(kb: Any) -> None:
    kb.ok("apply", "-f", PI)
    empty = {"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}}
    assert _get(kb, "cronjobs") == empty
    assert _get(kb, "jobs", "-l", "team=none") == empty
    assert _get(kb, "jobs", "-n", "elsewhere") == empty
    assert _get(kb, "cronjobs", "-A") == empty
    assert _get(kb, "cronjobs,services", "-n", "elsewhere") == empty


def test_get_json_several_is_a_list_of_whole_objects(kb: Any) -> None:
    kb.ok("apply", "-f", PI)
    kb.ok("create", "-f", "-", input_=_pod("p"))
    listed = _get(kb, "pods")
    assert listed["kind"] == "List" and listed["apiVersion"] == "v1"
    assert all(i["kind"] == "Pod" and i["apiVersion"] == "v1" for i in listed["items"])
    mixed = _get(kb, "jobs,pods")
    assert [i["kind"] for i in mixed["items"]] == ["Job"] + ["Pod"] * len(listed["items"])
    res = kb("get", "pod", "p", "missing", "-o", "json")  # what was found, and an error for the rest
    assert res.code == 1 and [i["metadata"]["name"] for i in res.json()["items"]] == ["p"]
    assert 'pods "missing" not found' in res.err


# --- delete ---------------------------------------------------------------------------------------

def test_delete_unscheduled_pod_is_immediate(kb: Any) -> None:
    kb.ok("create", "-f", "-", input_=_pod("p"))  # no nodes: never scheduled
    assert kb.ok("delete", "pod", "p").strip() == 'pod "p" deleted'
    assert kb("get", "pod", "p").code == 1
    assert _now(kb) == "2025-01-01T00:00:00Z"  # no virtual time passed


def test_delete_scheduled_pod_waits_for_its_grace_period(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("create", "-f", "-", input_=_pod("p"))
    assert kb.ok("delete", "pod", "p").strip() == 'pod "p" deleted'  # returns once accepted
    pod = _get(kb, "pod", "p")
    assert pod["metadata"]["deletionTimestamp"] and pod["metadata"]["deletionGracePeriodSeconds"] == 30
    kb.ok("advance", "31s")
    assert kb("get", "pod", "p").code == 1


def test_delete_returns_once_accepted_and_propagates_in_the_background(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", PI)
    assert kb.ok("delete", "job", "pi").strip() == 'job.batch "pi" deleted'
    assert kb("get", "job", "pi").code == 1  # background: the owner goes first
    pods = _get(kb, "pods")["items"]  # its pods are being deleted (terminating), not orphaned
    assert all(p["metadata"].get("deletionTimestamp") for p in pods)


def test_delete_foreground_keeps_the_owner_until_dependents_are_gone(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", PI)
    kb.ok("delete", "job", "pi", "--cascade", "foreground")
    job = _get(kb, "job", "pi")
    assert job["metadata"]["deletionTimestamp"] and "foregroundDeletion" in job["metadata"]["finalizers"]
    kb.ok("advance", "1m")
    assert kb("get", "job", "pi").code == 1


def test_finalizer_keeps_object_terminating(kb: Any) -> None:
    kb.ok("create", "-f", "-", input_=_pod("p", finalizers=["example.com/keep"]))
    assert kb.ok("delete", "pod", "p").strip() == 'pod "p" deleted'  # accepted, not waited for
    kb.ok("advance", "10m")
    pod = _get(kb, "pod", "p")
    assert pod["metadata"]["deletionTimestamp"] and pod["metadata"]["finalizers"] == ["example.com/keep"]
    kb.ok("patch", "pod", "p", "--type", "json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    assert kb("get", "pod", "p").code == 1


# --- patch ----------------------------------------------------------------------------------------

def test_patch_finalizers_with_json_patch(kb: Any) -> None:
    kb.ok("apply", "-f", PI)
    kb.ok("patch", "job", "pi", "--type", "json",
          "-p", '[{"op":"add","path":"/metadata/finalizers","value":["example.com/a"]}]')
    kb.ok("patch", "job", "pi", "--type", "json",
          "-p", '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/b"}]')
    assert _get(kb, "job", "pi")["metadata"]["finalizers"] == ["example.com/a", "example.com/b"]
    kb.ok("patch", "job", "pi", "--type", "json", "-p", '[{"op":"remove","path":"/metadata/finalizers/0"}]')
    assert _get(kb, "job", "pi")["metadata"]["finalizers"] == ["example.com/b"]


def test_patch_finalizers_strategic_merges_and_merge_replaces(kb: Any) -> None:
    kb.ok("apply", "-f", PI)
    kb.ok("patch", "job", "pi", "--type", "merge", "-p", '{"metadata":{"finalizers":["example.com/a"]}}')
    kb.ok("patch", "job", "pi", "-p", '{"metadata":{"finalizers":["example.com/b"]}}')  # strategic: union
    assert sorted(_get(kb, "job", "pi")["metadata"]["finalizers"]) == ["example.com/a", "example.com/b"]
    kb.ok("patch", "job", "pi", "--type", "merge", "-p", '{"metadata":{"finalizers":["example.com/c"]}}')
    assert _get(kb, "job", "pi")["metadata"]["finalizers"] == ["example.com/c"]


PATCHES = {  # (patch type, patch) that each set the label, annotation or spec field below
    "merge": ('{"metadata":{"labels":{"k":"merge"},"annotations":{"a":"merge"}},"spec":{"parallelism":2}}'),
    "strategic": ('{"metadata":{"labels":{"k":"strategic"},"annotations":{"a":"strategic"}},'
                  '"spec":{"parallelism":3}}'),
    "json": ('[{"op":"add","path":"/metadata/labels","value":{"k":"json"}},'
             '{"op":"add","path":"/metadata/annotations","value":{"a":"json"}},'
             '{"op":"replace","path":"/spec/parallelism","value":4}]'),
}


@pytest.mark.parametrize("patch_type", sorted(PATCHES))
def test_patch_metadata_and_spec_with_each_type(kb: Any, patch_type: str) -> None:
    kb.ok("apply", "-f", PI)
    assert kb.ok("patch", "job", "pi", "--type", patch_type, "-p", PATCHES[patch_type]).strip() == \
        "job.batch/pi patched"
    job = _get(kb, "job", "pi")
    assert job["metadata"]["labels"]["k"] == patch_type and job["metadata"]["annotations"]["a"] == patch_type
    assert job["spec"]["parallelism"] == {"merge": 2, "strategic": 3, "json": 4}[patch_type]


OBJECTS = {
    "namespaces": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
    "pods": json.loads(_pod("p")),
    "nodes": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}},
    "services": {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                 "spec": {"ports": [{"port": 80}]}},
    "jobs": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                         "containers": [{"name": "c", "image": "i"}]}}}},
    "cronjobs": {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj"},
                 "spec": {"schedule": "0 0 1 1 *", "jobTemplate": {"spec": {"template": {"spec": {
                     "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}},
}
CONDITION = {"type": "ExampleCondition", "status": "True", "reason": "Test", "message": "set by a test",
             "lastTransitionTime": "2025-01-01T00:00:00Z"}
STATUS_PATCHES = {  # a field of each kind's status that no running controller rewrites
    "namespaces": ("conditions", [CONDITION]),
    "pods": ("conditions", [CONDITION]),
    "nodes": ("conditions", [CONDITION | {"lastHeartbeatTime": "2025-01-01T00:00:00Z"}]),
    "services": ("loadBalancer", {"ingress": [{"ip": "10.0.0.1"}]}),
    "jobs": ("conditions", [CONDITION | {"type": "Example", "lastProbeTime": "2025-01-01T00:00:00Z"}]),
    "cronjobs": ("lastScheduleTime", "2025-01-01T00:00:00Z"),
}


def _status_patch(patch_type: str, field: str, value: Any) -> str:
    if patch_type == "json":
        # a fresh object always has a status member, as kube-apiserver serializes it ("status": {})
        return json.dumps([{"op": "add", "path": f"/status/{field}", "value": value}])
    return json.dumps({"status": {field: value}})


@pytest.mark.parametrize("patch_type", ["merge", "json", "strategic"])
@pytest.mark.parametrize("plural", sorted(OBJECTS))
def test_patch_status_subresource_of_every_kind(kb: Any, plural: str, patch_type: str) -> None:
    kb.ok("--controllers", "-kubelet", "create", "-f", "-", input_=json.dumps(OBJECTS[plural]))
    name = OBJECTS[plural]["metadata"]["name"]
    field, value = STATUS_PATCHES[plural]
    assert "status" in json.loads(kb.ok("--controllers", "-kubelet", "get", plural, name, "-o", "json"))
    kb.ok("--controllers", "-kubelet", "patch", plural, name, "--subresource", "status", "--type", patch_type,
          "-p", _status_patch(patch_type, field, value))
    status = json.loads(kb.ok("--controllers", "-kubelet", "get", plural, name, "-o", "json"))["status"]
    got = status[field]
    if isinstance(value, list):
        assert any(c.get("type") == value[0]["type"] for c in got), status
    else:
        assert got == value


def test_patch_status_subresource_ignores_spec_and_main_resource_ignores_status(kb: Any) -> None:
    kb.ok("--controllers", "-kubelet", "create", "-f", "-", input_=_pod("p"))
    kb.ok("--controllers", "-kubelet", "patch", "pod", "p", "--type", "merge", "--subresource", "status",
          "-p", '{"spec":{"activeDeadlineSeconds":5},"status":{"message":"via status"}}')
    pod = json.loads(kb.ok("--controllers", "-kubelet", "get", "pod", "p", "-o", "json"))
    assert pod["status"]["message"] == "via status" and "activeDeadlineSeconds" not in pod["spec"]
    kb.ok("--controllers", "-kubelet", "patch", "pod", "p", "--type", "merge",
          "-p", '{"status":{"message":"via main"}}')
    pod = json.loads(kb.ok("--controllers", "-kubelet", "get", "pod", "p", "-o", "json"))
    assert pod["status"]["message"] == "via status"


# --- settling -------------------------------------------------------------------------------------

def _stored(kb: Any, kind: str, name: str) -> Any:
    """What the command saved, read without running any controller."""
    from kbatch.cli.state import IMAGE
    from kbatch.runtime.image import load_image

    cp, _ = load_image(kb.state / IMAGE)
    spec = cp.registry.for_name(kind)
    return cp.server.unstructured.get(spec.info.api_version, spec.info.kind, name,
                                      "default" if spec.info.namespaced else None)


def test_command_settles_before_returning(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", PI)
    # the saved state already holds every reaction due at this instant: the Job controller created
    # the pod, the scheduler bound it, the kubelet started it — and virtual time did not move
    job = _stored(kb, "jobs", "pi")
    assert job["status"]["active"] == 1 and job["status"]["startTime"] == "2025-01-01T00:00:00Z"
    pods = json.loads(kb.ok("get", "pods", "-o", "json"))["items"]
    assert len(pods) == 1 and pods[0]["status"]["phase"] == "Running"
    stored_pod = _stored(kb, "pods", pods[0]["metadata"]["name"])
    assert stored_pod["status"]["phase"] == "Running"
    kb.ok("delete", "job", "pi")
    assert _stored(kb, "pods", pods[0]["metadata"]["name"])["metadata"]["deletionTimestamp"]
    assert _now(kb) == "2025-01-01T00:00:00Z"
