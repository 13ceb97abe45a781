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
