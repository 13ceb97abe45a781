"""A control plane's image (kbatch/runtime/image.py): saved with every built-in controller running and
objects of every kind in flight (timers pending, delayed work-queue items, back-offs), the loaded
copy continues exactly as the original does (same trace digest, same objects); a file that is not a
loadable image is refused with an :class:`ImageError` that says why and what to do, and a failed save
leaves the previous image in place.
"""

from __future__ import annotations

import gc
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kbatch
from kbatch.runtime.catalog import default_catalog
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.image import MAGIC, ImageError, load_image, read_header, save_image
from kbatch.server.backend import DeleteOptions
from kbatch.server.facade import ControlPlaneBackend

EVERY_CONTROLLER = ",".join(spec.name for spec in default_catalog().specs)


def _container(script: str, cpu: str = "250m") -> dict[str, Any]:
    return {"name": "main", "image": "busybox", "command": ["sh", "-c", script],
            "resources": {"requests": {"cpu": cpu}}}


def _pod(name: str, script: str, *, namespace: str = "default", labels: dict[str, str] | None = None,
         cpu: str = "250m", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
            "spec": {"restartPolicy": "Never", "containers": [_container(script, cpu)], **spec}}


def _job(name: str, script: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [_container(script)]}},
                     **spec}}


DRIVER = "gpu.example.com"
_AT_LEAST_40GI = f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0'
_GPU = {"devices": {"requests": [{"name": "gpu", "exactly": {
    "deviceClassName": "gpu", "selectors": [{"cel": {"expression": _AT_LEAST_40GI}}]}}]}}


def _claiming(name: str, script: str, source: dict[str, str]) -> dict[str, Any]:
    """A pod whose container uses one DRA claim (a template's or an existing one)."""
    pod = _pod(name, script, resourceClaims=[{"name": "gpu", **source}])
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return pod


KUEUE = "kueue.x-k8s.io/v1beta2"
RBAC = "rbac.authorization.k8s.io/v1"

WORLD: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
    # in their own namespace, so that they cap and default nothing the rest of the world runs
    {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "team", "namespace": "team"},
     "spec": {"hard": {"pods": "10", "count/jobs.batch": "5"}}},
    {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "team", "namespace": "team"},
     "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "100m"}}]}},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
     "value": 1000},
    {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "gvisor"},
     "handler": "runsc", "overhead": {"podFixed": {"cpu": "50m"}}},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
     "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
    _pod("web-0", "sleep infinity", labels={"app": "web"}, priorityClassName="high"),
    _pod("web-1", "sleep infinity", labels={"app": "web"}),
    _pod("short", "sleep 90"),
    _pod("huge", "sleep 10", cpu="64"),  # unschedulable: the scheduler backs it off and retries
    _pod("member", "sleep 600", namespace="team"),
    # failures with the pod-failure back-off, a deadline, a TTL after finishing, a failure policy
    _job("flaky", "sleep 5; exit 1", backoffLimit=5),
    _job("deadline", "sleep 1000", activeDeadlineSeconds=200),
    _job("ttl", "sleep 10", ttlSecondsAfterFinished=100),
    _job("policy", "sleep 20; exit 42", completions=3, parallelism=3, completionMode="Indexed",
         backoffLimitPerIndex=1, maxFailedIndexes=2,
         podFailurePolicy={"rules": [{"action": "FailIndex",
                                      "onExitCodes": {"operator": "In", "values": [42]}}]}),
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
     "spec": {"schedule": "*/1 * * * *", "successfulJobsHistoryLimit": 2,
              "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never",
                                                             "containers": [_container("sleep 30")]}}}}}},
    # DRA (docs/dra.md): the GPU node's two devices, one tainted, so the second claim waits for the first
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
     "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "broken"},
     "spec": {"deviceSelector": {"driver": DRIVER, "device": "gpu-1"},
              "taint": {"key": "broken", "effect": "NoSchedule"}}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
     "metadata": {"name": "one-gpu", "namespace": "default"}, "spec": {"spec": _GPU}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
     "metadata": {"name": "spare", "namespace": "default"}, "spec": _GPU},
    _claiming("dra-long", "sleep 300", {"resourceClaimName": "spare"}),
    _claiming("dra-next", "sleep 30", {"resourceClaimTemplateName": "one-gpu"}),  # its claim comes later
    # JobSet (docs/jobset.md): workers wait for the driver to be ready, a failed worker restarts the set
    {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train"},
     "spec": {"failurePolicy": {"maxRestarts": 2}, "replicatedJobs": [
         {"name": "driver", "template": {"spec": _job("driver", "sleep 40", backoffLimit=0)["spec"]}},
         {"name": "workers", "replicas": 2, "dependsOn": [{"name": "driver", "status": "Ready"}],
          "template": {"spec": _job("w", "sleep 15; exit 1", parallelism=2, completions=2,
                                    backoffLimit=0)["spec"]}}]}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token"}, "stringData": {"token": "t"}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    # storage (docs/storage.md): a class and a volume; the binder (its 15 s resync) binds "data" to it
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "standard"},
     "provisioner": "kbatch.io/simulated", "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-data"},
     "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
              "hostPath": {"path": "/data"}}},
    # gangs (docs/gang.md), both APIs: groups of two with one member so far, waiting for the second
    {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "wl"},
     "spec": {"podGroupTemplates": [{"name": "w", "schedulingPolicy": {"gang": {"minCount": 2}}}]}},
    {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "native"},
     "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}},
    _pod("native-0", "sleep 60", schedulingGroup={"podGroupName": "native"}),
    # a CompositePodGroup (v1alpha3) of two PodGroups, one with its pod: the tree waits for the other
    {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload", "metadata": {"name": "cwl"},
     "spec": {"compositePodGroupTemplates": [{
         "name": "tree", "schedulingPolicy": {"gang": {"minGroupCount": 2}},
         "podGroupTemplates": [{"name": n, "schedulingPolicy": {"gang": {"minCount": 1}}} for n in "ab"]}]}},
    {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup", "metadata": {"name": "tree"},
     "spec": {"workloadRef": {"workloadName": "cwl", "templateName": "tree"},
              "schedulingPolicy": {"gang": {"minGroupCount": 2}}}},
    *({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup", "metadata": {"name": f"tree-{n}"},
       "spec": {"parentCompositePodGroupName": "tree", "schedulingPolicy": {"gang": {"minCount": 1}},
                "workloadRef": {"workloadName": "cwl", "templateName": n}}} for n in "ab"),
    _pod("tree-a-0", "sleep 60", schedulingGroup={"podGroupName": "tree-a"}),
    {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "cosched"},
     "spec": {"minMember": 2, "scheduleTimeoutSeconds": 60}},
    _pod("cosched-0", "sleep 60", labels={"scheduling.x-k8s.io/pod-group": "cosched"}),
    # RBAC: an aggregated ClusterRole and its part, a Role, bindings of each kind
    {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "jobs-view", "labels": {"agg": "jobs"}},
     "rules": [{"verbs": ["get", "list"], "apiGroups": ["batch"], "resources": ["jobs"]}]},
    {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "jobs-all"},
     "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"agg": "jobs"}}]}},
    {"apiVersion": RBAC, "kind": "Role", "metadata": {"name": "pods-reader"},
     "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]},
    {"apiVersion": RBAC, "kind": "RoleBinding", "metadata": {"name": "read-pods"},
     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pods-reader"},
     "subjects": [{"kind": "User", "name": "jane"}]},
    {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": "jobs-all"},
     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "jobs-all"},
     "subjects": [{"kind": "Group", "name": "ops"}]},
    # admission policy: a Job must not ask for more than 100 completions (every Job here passes)
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
     "metadata": {"name": "max-completions"},
     "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["batch"], "apiVersions": ["v1"],
                                                      "operations": ["CREATE"], "resources": ["jobs"]}]},
              "validations": [{"expression": "object.spec.?completions.orValue(1) <= 100"}]}},
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
     "metadata": {"name": "max-completions"},
     "spec": {"policyName": "max-completions", "validationActions": ["Deny"]}},
    # a mutating policy: CronJobs created here carry a team label (the one CronJob gets it)
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
     "metadata": {"name": "team-label"},
     "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["batch"], "apiVersions": ["v1"],
                                                      "operations": ["CREATE"], "resources": ["cronjobs"]}]},
              "reinvocationPolicy": "Never",
              "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                  "expression": "Object{metadata: Object.metadata{labels: {'team': 'batch'}}}"}}]}},
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
     "metadata": {"name": "team-label"}, "spec": {"policyName": "team-label"}},
    # Kueue: a queued Job waiting on a quota that holds one of its two pods (its Workload pending)
    {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "flavor"}},
    {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": "all"}},
    {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "hosts"},
     "spec": {"levels": [{"nodeLabel": "kubernetes.io/hostname"}]}},
    {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": "check"},
     "spec": {"controllerName": "example.com/never"}},
    {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "batch"}, "value": 10},
    {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "cq"},
     "spec": {"namespaceSelector": {}, "cohortName": "all", "resourceGroups": [
         {"coveredResources": ["cpu"], "flavors": [{"name": "flavor", "resources": [
             {"name": "cpu", "nominalQuota": "250m"}]}]}]}},
    {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "default"},
     "spec": {"clusterQueue": "cq"}},
    {**_job("queued", "sleep 30", parallelism=2, completions=2),
     "metadata": {"name": "queued", "labels": {"kueue.x-k8s.io/queue-name": "lq"}}},
    # a ProvisioningRequest for more than the cluster holds: the simulated autoscaler retries it
    {"apiVersion": KUEUE, "kind": "ProvisioningRequestConfig", "metadata": {"name": "prov"},
     "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io"}},
    {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "capacity", "namespace": "default"},
     "template": {"spec": {"containers": [_container("sleep 1", cpu="1")]}}},
    {"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
     "metadata": {"name": "capacity", "namespace": "default"},
     "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
              "podSets": [{"podTemplateRef": {"name": "capacity"}, "count": 20}]}},
    # MultiKueue: a worker whose kubeconfig Secret does not exist (its cluster backs off)
    {"apiVersion": KUEUE, "kind": "MultiKueueCluster", "metadata": {"name": "worker"},
     "spec": {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": "worker-secret"}}}},
    {"apiVersion": KUEUE, "kind": "MultiKueueConfig", "metadata": {"name": "mk"},
     "spec": {"clusters": ["worker"]}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "csi.example.com"},
     "spec": {}},
]


def busy_world() -> tuple[ControlPlane, ControlPlaneBackend]:
    """Every controller on, three nodes (one whose kubelet stops at 20 s) and a node with two DRA GPUs,
    the objects above."""
    cp = ControlPlane(controllers=EVERY_CONTROLLER,
                      feature_gates="GenericWorkload=true,CompositePodGroup=true")
    backend = ControlPlaneBackend(cp)
    backend.action("nodes-add", {"count": 3, "cpu": "2", "memory": "8Gi"})
    backend.action("nodes-add", {"count": 1, "cpu": "2", "memory": "8Gi", "prefix": "gpu-node",
                                 "dra": {"driver": DRIVER, "count": 2}})
    cp.apply(WORLD)
    cp.advance(20)
    backend.action("node-stop-kubelet", {"name": "node-2"})
    cp.run_until_idle()
    return cp, backend


def continue_(cp: ControlPlane, seconds: int) -> None:
    """What both copies do after the cut: a write, then time (every kind of timer fires)."""
    backend = ControlPlaneBackend(cp)
    info = cp.registry.for_name("namespaces").info
    backend.delete(info, None, "team", DeleteOptions())
    cp.apply(_job("late", "sleep 15"))
    cp.advance(seconds)


def everything(cp: ControlPlane) -> str:
    """Every object of every kind, as the wire has it (one JSON text)."""
    backend = ControlPlaneBackend(cp)
    return json.dumps({_kind(spec.info): backend.list(spec.info, None)["items"] for spec in cp.registry},
                      sort_keys=True)


def _kind(info: Any) -> str:
    """A kind's name in :func:`everything`: its plural and group, as two groups may share a kind name
    (scheduling.k8s.io's and scheduling.x-k8s.io's PodGroup)."""
    return f"{info.plural}.{info.group}" if info.group else info.plural


def test_busy_world_is_in_flight_at_the_cut() -> None:
    """The fixture is what the tests claim: every controller, every kind, pending timers, delayed
    queue items, job and scheduler back-offs."""
    cp, _ = busy_world()
    cp.advance(10)
    assert sorted(cp.enabled) == sorted(EVERY_CONTROLLER.split(","))
    objects = json.loads(everything(cp))
    assert all(objects[_kind(spec.info)] for spec in cp.registry), [k for k, v in objects.items() if not v]
    assert cp.timers.has_pending_work() and len(cp.timers) > 10
    assert sum(c.queue.waiting_count for c in cp.manager.controllers) > 0  # delayed requeues
    flaky = [p for p in objects["pods"] if p["metadata"]["name"].startswith("flaky-")]
    assert any(p["status"]["phase"] == "Failed" for p in flaky)  # the Job is backing off
    huge = next(p for p in objects["pods"] if p["metadata"]["name"] == "huge")
    assert huge["status"]["conditions"][0]["reason"] == "Unschedulable"
    phases = {p["metadata"]["name"]: p["status"].get("phase") for p in objects["pods"]}
    assert (phases["dra-long"], phases["dra-next"]) == ("Running", "Pending")  # one untainted GPU
    assert (phases["native-0"], phases["cosched-0"]) == ("Pending", "Pending")  # gangs short of a member
    assert phases["tree-a-0"] == "Pending"  # its composite short of a ready child
    allocated = {c["metadata"]["name"]: bool((c.get("status") or {}).get("allocation"))
                 for c in objects["resourceclaims.resource.k8s.io"]}
    assert allocated.pop("spare") and list(allocated.values()) == [False]  # dra-next's generated claim


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(0, 120), after=st.integers(1, 400))
def test_a_loaded_image_continues_as_the_original(cut: int, after: int) -> None:
    """Save at any instant, load, continue: the same trace digest and objects as continuing the
    original, which saving did not disturb."""
    cp, _ = busy_world()
    cp.advance(cut) if cut else cp.run_until_idle()
    with _scratch() as path:
        header = save_image(cp, path, {"controllers": EVERY_CONTROLLER})
        loaded, read = load_image(path)
    gc.unfreeze()
    assert read == header and read.digest == cp.trace.digest() and read.revision == cp.store.revision
    assert loaded.trace.digest() == cp.trace.digest() and everything(loaded) == everything(cp)
    continue_(cp, after)
    continue_(loaded, after)
    assert loaded.now() == cp.now()
    assert everything(loaded) == everything(cp)
    assert loaded.trace.digest() == cp.trace.digest()
    cp.close()
    loaded.close()


def test_an_image_of_a_loaded_image_continues_too(tmp_path: Path) -> None:
    """Two hops (what the second and third CLI commands do) change nothing either."""
    cp, _ = busy_world()
    save_image(cp, tmp_path / "one")
    once, _ = load_image(tmp_path / "one")
    once.advance(30)
    save_image(once, tmp_path / "two")
    twice, _ = load_image(tmp_path / "two")
    gc.unfreeze()
    cp.advance(30)
    for copy in (cp, twice):
        copy.advance(300)
    assert everything(twice) == everything(cp) and twice.trace.digest() == cp.trace.digest()


# --- files that are not loadable images ---------------------------------------------------------------

class _scratch:
    """A temporary image path (hypothesis examples cannot share pytest's tmp_path)."""

    def __enter__(self) -> Path:
        import tempfile

        self._dir = tempfile.TemporaryDirectory(prefix="kbatch-image-")
        return Path(self._dir.name) / "state.kbatch"

    def __exit__(self, *exc: object) -> None:
        self._dir.cleanup()


@pytest.fixture(scope="module")
def image_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    cp, _ = busy_world()
    path = tmp_path_factory.mktemp("image") / "state.kbatch"
    save_image(cp, path)
    cp.close()
    return path.read_bytes()


def _with_header(data: bytes, **changes: Any) -> bytes:
    head, _, body = data[len(MAGIC):].partition(b"\n")
    header = json.loads(head) | changes
    return MAGIC + json.dumps(header).encode() + b"\n" + body


def _refused(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    enabled = gc.isenabled()
    with pytest.raises(ImageError) as err:
        load_image(path)
    assert gc.isenabled() == enabled  # loading switches the collector off while it unpickles
    assert path.read_bytes() == data  # nothing written
    message = str(err.value)
    assert str(path) in message and "\n" not in message
    return message


def test_a_file_that_is_not_an_image_is_refused(tmp_path: Path, image_bytes: bytes) -> None:
    path = tmp_path / "state.kbatch"
    assert "is not a kbatch control-plane image" in _refused(path, b"KBATCH-STATE 1\n{}\n")
    assert "is not a kbatch control-plane image" in _refused(path, b"")
    assert "bad header" in _refused(path, MAGIC + b"{not json\n" + image_bytes[len(MAGIC):])
    assert "bad header" in _refused(path, MAGIC + b'{"format": 1}\n')
    zipped = tmp_path / "other"
    zipped.write_bytes(b"PK\x03\x04")
    with pytest.raises(ImageError, match="is not a kbatch control-plane image"):
        read_header(zipped)


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.999])
def test_a_truncated_image_is_refused(tmp_path: Path, image_bytes: bytes, cut: float) -> None:
    message = _refused(tmp_path / "state.kbatch", image_bytes[:int(len(image_bytes) * cut)])
    assert message.startswith(f"cannot load the image {tmp_path / 'state.kbatch'}: ")


def test_a_corrupt_body_is_refused(tmp_path: Path, image_bytes: bytes) -> None:
    head_end = image_bytes.index(b"\n", len(MAGIC)) + 1
    body = bytearray(image_bytes[head_end:])
    body[0:2] = b"\xff\xff"  # not a pickle opcode
    corrupt = image_bytes[:head_end] + bytes(body)
    assert "cannot load the image" in _refused(tmp_path / "state.kbatch", corrupt)


@pytest.mark.parametrize("field, value", [("kbatch", "0.0.0-other"), ("python", "2.7"), ("format", 99)])
def test_an_image_of_another_version_is_refused_with_what_to_do(tmp_path: Path, image_bytes: bytes,
                                                               field: str, value: Any) -> None:
    message = _refused(tmp_path / "state.kbatch", _with_header(image_bytes, **{field: value}))
    assert f"this is kbatch {kbatch.__version__}" in message and str(value) in message
    assert "kbatch reset" in message and "--objects-only" in message


def test_a_failed_save_keeps_the_previous_image(tmp_path: Path) -> None:
    """Saving is atomic: a control plane that cannot be pickled leaves the old image and no
    temporary file behind."""
    cp, _ = busy_world()
    path = tmp_path / "state.kbatch"
    save_image(cp, path)
    before = path.read_bytes()
    cp.advance(5)
    cp.unpicklable = lambda: None  # type: ignore[attr-defined]
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        save_image(cp, path)
    assert gc.isenabled()
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["state.kbatch"]
    loaded, _ = load_image(path)
    gc.unfreeze()
    assert loaded.now() < cp.now()
