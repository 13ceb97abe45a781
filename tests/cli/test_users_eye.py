"""A user's-eye pass (an ML platform engineer's day): what a user types with kubectl's habits and
must read as kubectl and kube-apiserver would answer it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Kbatch

JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"},
       "spec": {"template": {"spec": {"restartPolicy": "Never",
                                      "containers": [{"name": "c", "image": "busybox"}]}}}}


def _write(tmp_path: Path, name: str, doc: dict) -> str:  # type: ignore[type-arg]
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_an_unknown_kind_is_kubectls_client_side_mapping_error(kb: Kbatch, tmp_path: Path) -> None:
    """kubectl maps each document's kind before sending it (k8s.io/cli-runtime
    ``pkg/resource/mapper.go`` ``infoForData``): a kind or version the server does not serve is a
    client-side ``error: resource mapping not found for name: … namespace: … from "FILE": no matches
    for kind …`` followed by ``ensure CRDs are installed first``, not an ``Error from server``."""
    kind = _write(tmp_path, "kind.json", {**JOB, "kind": "Jobb"})
    version = _write(tmp_path, "version.json", {**JOB, "apiVersion": "batch/v2",
                                                "metadata": {"name": "x", "namespace": "team-a"}})
    for verb in ("apply", "create"):
        res = kb(verb, "-f", kind)
        assert res.code == 1
        assert res.err == (f'error: resource mapping not found for name: "x" namespace: "" from "{kind}": '
                           'no matches for kind "Jobb" in version "batch/v1"\n'
                           "ensure CRDs are installed first\n")
    res = kb("delete", "-f", version)
    assert res.code == 1
    assert res.err == (f'error: resource mapping not found for name: "x" namespace: "team-a" from '
                       f'"{version}": no matches for kind "Job" in version "batch/v2"\n'
                       "ensure CRDs are installed first\n")


def test_an_unknown_field_on_create_names_the_kind_and_version(kb: Kbatch, tmp_path: Path) -> None:
    """A misspelt field (``parallelizm``) on create: kube-apiserver's create handler passes the strict
    decoding error to ``transformDecodeError`` (k8s.io/apiserver ``pkg/endpoints/handlers/create.go``),
    so kubectl prints ``Job in version "v1" cannot be handled as a Job: strict decoding error: …``."""
    bad = _write(tmp_path, "job.json", {**JOB, "spec": {**JOB["spec"], "parallelizm": 2}})
    res = kb("apply", "-f", bad)
    assert res.code == 1
    assert res.err == ('Error from server (BadRequest): Job in version "v1" cannot be handled as a Job: '
                       'strict decoding error: unknown field "spec.parallelizm"\n')
    assert kb("get", "jobs", "-o", "name").out == ""


def test_logs_of_a_job_pick_a_pod_as_kubectl_does_and_say_so(kb: Kbatch, tmp_path: Path) -> None:
    """``kubectl logs job/NAME`` lists the Job's pods by its selector, sorts them with
    ``podutils.ByLogging`` (assigned, then Running, ready, ready longest, most restarts, oldest) and,
    when there are several, prints ``Found N pods, using pod/P`` on stderr
    (k8s.io/kubectl ``pkg/polymorphichelpers/logsforobject.go``, ``pkg/util/podutils/podutils.go``)."""
    kb.ok("nodes", "add", "--count", "1")
    job = {**JOB, "metadata": {"name": "two"},
           "spec": {"parallelism": 2, "completions": 2, "template": {"spec": {
               "restartPolicy": "Never",
               "containers": [{"name": "c", "image": "busybox",
                               "command": ["sh", "-c", "echo hi; sleep 60"]}]}}}}
    kb.ok("apply", "-f", _write(tmp_path, "job.json", job))
    kb.ok("advance", "1s")
    pods = json.loads(kb.ok("get", "pods", "-o", "json"))["items"]
    names = sorted(p["metadata"]["name"] for p in pods)
    res = kb("logs", "job/two")
    assert res.code == 0 and res.out == "hi\n"
    # equal on every ByLogging key: the list order (by name) decides, as sort.Sort keeps it here
    assert res.err == f"Found 2 pods, using pod/{names[0]}\n"
    res = kb("logs", "job/missing")
    assert res.code == 1
    assert res.err == ('error: error from server (NotFound): jobs.batch "missing" not found in namespace '
                       '"default"\n')


def test_logs_default_the_container_and_refuse_an_unknown_one(kb: Kbatch, tmp_path: Path) -> None:
    """Without ``-c``, a pod of several containers logs its first and says so on stderr
    (``podcmd.FindOrDefaultContainerByName``: ``Defaulted container "a" out of: a, b, init (init)``);
    an unknown ``-c`` is refused by kubectl itself (``logsforobject.go``), and a missing pod is the
    builder's wrapped NotFound (kubectl 1.32 against ``kbatch serve`` prints the same lines)."""
    kb.ok("nodes", "add", "--count", "1")
    def box(name: str, script: str) -> dict:  # type: ignore[type-arg]
        return {"name": name, "image": "busybox", "command": ["sh", "-c", script]}

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "two"},
           "spec": {"restartPolicy": "Never", "initContainers": [box("init", "echo I")],
                    "containers": [box("a", "echo A; sleep 5"), box("b", "echo B; sleep 5")]}}
    kb.ok("apply", "-f", _write(tmp_path, "pod.json", pod))
    kb.ok("advance", "2s")
    res = kb("logs", "two")
    assert (res.code, res.out, res.err) == (0, "A\n", 'Defaulted container "a" out of: a, b, init (init)\n')
    res = kb("logs", "two", "-c", "b")
    assert (res.code, res.out, res.err) == (0, "B\n", "")
    res = kb("logs", "two", "-c", "zz")
    assert (res.code, res.err) == (1, "error: container zz is not valid for pod two\n")
    res = kb("logs", "nope")
    assert (res.code, res.err) == (
        1, 'error: error from server (NotFound): pods "nope" not found in namespace "default"\n')


def test_an_unserved_resource_is_named_without_its_group(kb: Kbatch) -> None:
    """kubectl names the resource part alone (cli-runtime ``resource/builder.go`` ``mappingFor``
    formats ``schema.ParseGroupResource(arg).Resource``): ``kubectl get workloads.scheduling.k8s.io``
    with GenericWorkload off says ``the server doesn't have a resource type "workloads"`` (kubectl
    1.32 against ``kbatch serve`` prints exactly this)."""
    for arg in ("workloads.scheduling.k8s.io", "widgets.example.com", "widgets"):
        res = kb("get", arg)
        assert res.code == 1
        assert res.err == f'error: the server doesn\'t have a resource type "{arg.split(".")[0]}"\n'


def _scheduled_pod(kb: Kbatch, tmp_path: Path, name: str) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "600"]}]}}
    kb.ok("apply", "-f", _write(tmp_path, f"{name}.json", pod))


def test_grace_period_zero_needs_force_as_in_kubectl(kb: Kbatch, tmp_path: Path) -> None:
    """kubectl ``pkg/cmd/delete/delete.go``: ``--grace-period=0`` without ``--force`` is sent as 1
    ("to prevent accidental data loss"); ``--force`` sends 0, warns that the resource may keep running
    and prints ``force deleted``; ``--force`` with a positive grace period is refused; an empty match
    prints ``No resources found`` on stdout."""
    kb.ok("nodes", "add")
    _scheduled_pod(kb, tmp_path, "a")
    _scheduled_pod(kb, tmp_path, "b")
    res = kb("delete", "pod", "a", "--grace-period", "0")
    assert (res.code, res.out, res.err) == (0, 'pod "a" deleted\n', "")
    pod = json.loads(kb.ok("get", "pod", "a", "-o", "json"))
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 1  # terminating, not gone
    res = kb("delete", "pod", "b", "--grace-period", "0", "--force")
    assert res.code == 0 and res.out == 'pod "b" force deleted\n'
    assert res.err == ("warning: Immediate deletion does not wait for confirmation that the running resource "
                       "has been terminated. The resource may continue to run on the cluster indefinitely.\n")
    assert kb("get", "pod", "b").code == 1  # gone at once
    res = kb("delete", "pod", "a", "--grace-period", "5", "--force")
    assert (res.code, res.err) == (1, "error: --force and --grace-period greater than 0 cannot be specified "
                                      "together\n")
    res = kb("delete", "pods", "-l", "app=none")
    assert (res.code, res.out, res.err) == (0, "No resources found\n", "")


def test_an_unknown_flag_is_worded_as_pflag_words_it(kb: Kbatch) -> None:
    """kubectl's flags are spf13/pflag's: ``unknown flag: --foo`` and ``unknown shorthand flag: 'z' in
    -z`` (``flag.go`` ``parseLongArg`` / ``parseSingleShortArg``), printed by kubectl's flag error
    function as ``error: …`` with the usage hint (kubectl 1.32 prints exactly these lines)."""
    for args, line in ((("get", "pods", "--foo"), "unknown flag: --foo"),
                       (("get", "pods", "--foo=1"), "unknown flag: --foo"),
                       (("get", "pods", "-z"), "unknown shorthand flag: 'z' in -z")):
        res = kb(*args)
        assert (res.code, res.err) == (1, f"error: {line}\nSee 'kbatch get --help' for usage.\n")


def test_deleting_cluster_scoped_objects_with_a_namespace_warns_once(kb: Kbatch, tmp_path: Path) -> None:
    """kubectl ``pkg/cmd/delete/delete.go`` ``WarnClusterScope``: with ``-n`` given, the first
    cluster-scoped object deleted prints one warning on stderr; without ``-n``, none."""
    for name in ("p1", "p2", "p3"):
        kb.ok("create", "-f", _write(tmp_path, f"{name}.json", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": 10}))
    res = kb("delete", "priorityclass", "p1", "p2", "-n", "default")
    assert (res.code, res.out) == (0, 'priorityclass.scheduling.k8s.io "p1" deleted\n'
                                      'priorityclass.scheduling.k8s.io "p2" deleted\n')
    assert res.err == "Warning: deleting cluster-scoped resources, not scoped to the provided namespace\n"
    res = kb("delete", "priorityclass", "p3")
    assert (res.code, res.err) == (0, "")
