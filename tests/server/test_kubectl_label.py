"""``kbatch label``/``annotate`` and the real kubectl against one ``kbatch serve``: byte for byte.

Each step runs kubectl on job ``pa`` and kbatch on job ``pb`` (twins, created alike), so both see the
same history; kbatch's output, with ``pb`` read as ``pa``, must be kubectl's (exit code, stdout, stderr).
kubectl v1.32 is installed here; the words compared are the same in k8s.io/kubectl v0.37.0-beta.0
``pkg/cmd/label/label.go`` and ``pkg/cmd/annotate/annotate.go``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def _job(name: str) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "labels": {"app": "x"}},
            "spec": {"suspend": True, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}


STEPS = [
    ("label", "job", "NAME", "tier=a"),
    ("label", "job", "NAME", "tier=b"),  # refused: --overwrite is false
    ("label", "job", "NAME", "tier=b", "--overwrite"),
    ("label", "job/NAME", "tier=b"),  # not labeled
    ("label", "job", "NAME", "tier-", "gone-"),  # label "gone" not found., unlabeled
    ("label", "job", "NAME", "m=1", "app-"),  # modified
    ("label", "job", "NAME", "x=a b"),  # invalid label value
    ("label", "job", "NAME", "a b=c"),  # the server's Invalid
    ("label", "job", "NAME", "a=b=c"),  # invalid label spec
    ("label", "job", "NAME", "m=2", "m-"),  # both modify and remove
    ("label", "job", "NAME", "z=1", "--dry-run=server"),
    ("label", "job", "NAME", "z=1", "--dry-run=client"),
    ("label", "job", "NAME", "z=1", "--resource-version", "1"),  # Conflict
    ("label", "job", "NAME", "k=v", "-o", "name"),
    ("label", "job", "NAME", "--list", "-o", "name"),
    ("label", "job", "NAME"),  # at least one label update
    ("label", "job", "NAME", "q=1", "other"),  # all resources before changes
    ("label", "job", "NAME", "--list"),
    ("label", "job", "missing", "q=1"),  # NotFound
    ("label", "job", "q=1"),  # no name
    ("annotate", "job", "NAME", "note=hi"),
    ("annotate", "job", "NAME", "note=ho"),  # refused
    ("annotate", "job", "NAME", "note=ho", "--overwrite"),
    ("annotate", "job", "NAME", "note-", "--dry-run=client"),
    ("annotate", "job", "NAME", "note-"),
    ("annotate", "job", "NAME", "a=1", "a-"),
    ("annotate", "job", "NAME", "x", "=y"),  # ParsePairs: "=y" is a resource, x too: no update
    ("annotate", "job", "NAME", "-o", "json", "w=1"),
]

# kubectl 1.33 (commit a2858d15e "kubectl label: Add 'modified' output version") words a change that
# both adds and removes "modified"; the installed 1.32 guessed from the patch's length ("unlabeled").
# kbatch follows 1.37: the step's stdout is checked against 1.37's words instead.
SINCE_1_33 = {("label", "job", "NAME", "m=1", "app-"): ("unlabeled", "modified")}


def _kbatch(url: str, capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = 0
    try:
        main(["--server", url, *args])
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def _same_json(kubectl_out: str, kbatch_out: str) -> None:
    """``-o json`` of an annotate reply: the same object but for the twin's own identity fields."""
    a, b = json.loads(kubectl_out), json.loads(kbatch_out)
    for meta in (a["metadata"], b["metadata"]):
        for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "name"):
            meta.pop(key, None)
    a["spec"].pop("selector", None), b["spec"].pop("selector", None)
    a["spec"]["template"].pop("metadata", None), b["spec"]["template"].pop("metadata", None)
    assert a == b


def test_label_and_annotate_print_as_kubectl(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("pa", "pb"):
        kubectl(served, "create", "-f", "-", input_=json.dumps(_job(name)))
    for step in STEPS:
        ref = kubectl(served, *(a.replace("NAME", "pa") for a in step), check=False)
        code, out, err = _kbatch(served.url, capsys, [a.replace("NAME", "pb") for a in step])
        got = (code != 0, out.replace("pb", "pa"), err.replace("pb", "pa"))
        if "json" in step and ref.returncode == 0:
            _same_json(ref.stdout, got[1])
            continue
        want = ref.stdout
        if step in SINCE_1_33:
            old, new = SINCE_1_33[step]
            want = want.replace(old, new) if ref.stdout.endswith(f" {old}\n") else want + "<1.32 changed>"
        if "--list" in step:  # kubectl ranges over a Go map: its order is random; kbatch sorts
            assert got[1].splitlines() == sorted(got[1].splitlines())
            got, want = (got[0], "".join(sorted(got[1].splitlines(True))), got[2]), \
                "".join(sorted(want.splitlines(True)))
        assert got == (ref.returncode != 0, want, ref.stderr), step


SHARED = [  # steps that change nothing, run by both on the same objects
    ("label", "jobs", "--all", "--list"),
    ("label", "jobs", "-l", "app=x", "--list"),
    ("label", "jobs", "--all", "z=9", "--dry-run=client"),
    ("label", "jobs", "--all", "z=9", "--dry-run=server"),
    ("label", "job", "qa", "qb", "z=9", "--dry-run=client"),
    ("label", "job/qa", "job/qb", "z=9", "--dry-run=client", "-o", "name"),
    ("label", "jobs", "--all", "z=9", "--resource-version", "1"),
    ("label", "jobs", "--all", "-l", "app=x", "z=9"),
    ("label", "jobs", "--field-selector", "metadata.name=qa", "z=9", "--dry-run=server"),
    ("annotate", "jobs", "--field-selector", "metadata.name!=qa", "--list"),
    ("label", "jobs", "--all", "--field-selector", "metadata.name=qa", "z=9"),
    ("annotate", "jobs", "--all", "--list"),
    ("annotate", "jobs", "-l", "app=nothing", "z=9"),
    ("label", "jobs", "-l", "app=x", "--list", "-n", "kube-system"),
    ("annotate", "jobs", "--all", "z=9", "--dry-run=server", "-o", "name"),
    ("label", "job", "qa", "z=9", "--dry-run=bogus"),
    ("label", "job", "qa", "yy=1", "--dry-run=client", "-o", "yaml"),  # no managedFields
    ("label", "job", "qa", "yy=1", "--dry-run=server", "-o", "json"),
    ("annotate", "job", "qa", "yy=1", "--dry-run=server", "-o", "yaml"),
    # kubectl's patch sends it, kbatch's then changes nothing: the same object either way
    ("patch", "job", "qa", "--type", "merge", "-p", '{"metadata":{"labels":{"pp":"1"}}}', "-o", "yaml"),
]


def test_several_objects_print_as_kubectl(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("qa", "qb"):
        kubectl(served, "create", "-f", "-", input_=json.dumps(_job(name)))
    for step in SHARED:
        ref = kubectl(served, *step, check=False)
        code, out, err = _kbatch(served.url, capsys, list(step))
        if "--list" in step:  # each object's lines in Go's map order: compare them as sets
            out, ref_out = sorted(out.splitlines()), sorted(ref.stdout.splitlines())
        else:
            ref_out = ref.stdout
        assert (code != 0, out, err) == (ref.returncode != 0, ref_out, ref.stderr), step


FILE_STEPS = [  # FILE: a manifest of job "fa"; nothing here changes the object on the server
    ("label", "--local", "-f", "FILE", "q=1"),
    ("label", "--local", "-f", "FILE", "q=1", "-o", "yaml"),  # as the file has it: no namespace
    ("annotate", "--local", "-f", "FILE", "q=1", "-o", "json"),
    ("label", "--local", "-f", "FILE", "app=z"),  # refused: --overwrite is false
    ("label", "--local", "job", "fa", "q=1"),
    ("label", "--local", "q=1"),
    ("annotate", "--local", "q=1"),
    ("label", "--local", "-f", "FILE", "q=1", "--dry-run=server"),
    ("label", "-f", "FILE", "q=1", "--dry-run=server"),
    ("annotate", "-f", "FILE", "q=1", "--dry-run=client"),
    ("label", "-f", "FILE", "--list"),
]


def test_files_and_local_print_as_kubectl(served: Any, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Any) -> None:
    job = tmp_path / "job.json"
    job.write_text(json.dumps(_job("fa")))
    kubectl(served, "create", "-f", str(job))
    for step in FILE_STEPS:
        args = [str(job) if a == "FILE" else a for a in step]
        ref = kubectl(served, *args, check=False)
        code, out, err = _kbatch(served.url, capsys, args)
        ref_out = ref.stdout
        if "--list" in step:
            out, ref_out = sorted(out.splitlines()), sorted(ref_out.splitlines())
        assert (code != 0, out, err) == (ref.returncode != 0, ref_out, ref.stderr), step


def test_the_label_is_recorded_under_each_clients_field_manager(served: Any,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """kubectl sends ``fieldManager=kubectl-label``; ``kbatch --server`` sends ``kbatch-label`` (the
    same mechanism, its own name): each twin's labels are owned by its client's manager."""
    for name in ("ma", "mb"):
        kubectl(served, "create", "-f", "-", input_=json.dumps(_job(name)))
    kubectl(served, "label", "job", "ma", "owner=kubectl")
    assert _kbatch(served.url, capsys, ["label", "job", "mb", "owner=kbatch"])[0] == 0
    for name, manager in (("ma", "kubectl-label"), ("mb", "kbatch-label")):
        got = json.loads(kubectl(served, "get", "job", name, "-o", "json", "--show-managed-fields").stdout)
        owners = {e["manager"]: e["fieldsV1"] for e in got["metadata"]["managedFields"]}
        assert owners[manager]["f:metadata"]["f:labels"] == {"f:owner": {}}


def test_cluster_scope_delete_warning_as_kubectl(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``delete -n NS`` of cluster-scoped objects: kubectl's stderr and stdout, byte for byte."""
    for name in ("wa1", "wa2", "wb1", "wb2"):
        kubectl(served, "create", "-f", "-", input_=json.dumps({
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": 7}))
    ref = kubectl(served, "delete", "priorityclass", "wa1", "wa2", "-n", "default")
    code, out, err = _kbatch(served.url, capsys, ["delete", "priorityclass", "wb1", "wb2", "-n", "default"])
    assert ref.stderr.startswith("Warning: deleting cluster-scoped")
    assert (code, out.replace("wb", "wa"), err) == (ref.returncode, ref.stdout, ref.stderr)
