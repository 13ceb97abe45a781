"""``kbatch apply`` refuses an object that has only ``metadata.generateName``, as kubectl does.

Upstream: kubectl ``pkg/cmd/apply/apply.go`` ``applyOneObject`` returns ``from <generateName>: cannot
use generate name with apply`` before any request, client-side or server-side apply alike (test
``TestDontAllowApplyWithPodGeneratedName``), and goes on with the file's other objects. Kueue's own
``site/static/examples/jobs/sample-job.yaml`` is such a Job; its docs say ``kubectl create -f``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

JOB = {"apiVersion": "batch/v1", "kind": "Job",
       "metadata": {"generateName": "sample-job-", "namespace": "default"},
       "spec": {"template": {"spec": {"restartPolicy": "Never",
                                      "containers": [{"name": "c", "image": "busybox"}]}}}}
NAMED = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}}


@pytest.mark.parametrize("mode", [(), ("--server-side",)])
def test_apply_of_a_generate_name_is_refused_the_others_still_apply(kb: Any, mode: tuple[str, ...]) -> None:
    doc = {"apiVersion": "v1", "kind": "List", "items": [JOB, NAMED]}
    res = kb("apply", *mode, "-f", "-", input_=json.dumps(doc))
    assert res.code == 1
    assert res.err.strip() == "error: from sample-job-: cannot use generate name with apply"
    assert "configmap/kept" in res.out
    assert "No resources found" in kb("get", "jobs").err  # nothing created under a generated name


def test_create_still_generates_the_name(kb: Any) -> None:
    out = kb.ok("create", "-f", "-", input_=json.dumps(JOB))
    assert out.startswith("job.batch/sample-job-") and out.strip().endswith(" created")
