"""Pod warnings through the API server's verbs, as ``kbatch serve`` sends them (``Warning: 299``):
a Pod create (pkg/registry/core/pod/strategy.go ``WarningsOnCreate``: the name, then
``GetWarningsForPod``), none on a Pod update (upstream's ``WarningsOnUpdate`` answers nil), and a
Job's or CronJob's pod template (pkg/api/job/warnings.go ``WarningsForJobSpec`` ->
``GetWarningsForPodTemplate`` under ``spec.template`` / ``spec.jobTemplate.spec.template``)."""

from __future__ import annotations

import copy
from typing import Any

from tests.api.upstream_batch import cronjob, job, server

ARCH = 'deprecated since v1.14; use "kubernetes.io/arch" instead'
SELECTOR = {"nodeSelector": {"beta.kubernetes.io/arch": "amd64"}}


def _wire(obj: Any) -> dict[str, Any]:
    return {"apiVersion": obj.api_version, "kind": obj.kind, **obj.to_dict()}


def _pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}], **spec}}


def test_a_plain_pod_gets_no_warning() -> None:
    _, warnings = server().unstructured.create(_pod())
    assert warnings == []


def test_a_pod_with_a_deprecated_node_label_is_warned_about() -> None:
    _, warnings = server().unstructured.create(_pod(**SELECTOR))
    assert warnings == [f"spec.nodeSelector[beta.kubernetes.io/arch]: {ARCH}"]


def test_a_pod_name_that_is_no_dns_label_is_warned_about_first() -> None:
    _, warnings = server().unstructured.create(_pod("my.pod", terminationGracePeriodSeconds=-1))
    assert warnings == [
        "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS "
        "label is recommended: [must not contain dots]",
        "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated "
        "as 1"]


def test_a_pod_update_is_not_warned_about() -> None:
    srv = server()
    created, _ = srv.unstructured.create(_pod(**SELECTOR))
    again = {"apiVersion": "v1", "kind": "Pod", **copy.deepcopy(created)}
    again["metadata"]["labels"] = {"a": "b"}
    _, warnings = srv.unstructured.update(again)
    assert warnings == []


def _job_with_selector() -> Any:
    j = job()
    j.spec.template.spec.node_selector = {"beta.kubernetes.io/arch": "amd64"}
    return j


def test_a_job_template_is_warned_about_under_spec_template() -> None:
    _, warnings = server().unstructured.create(_wire(_job_with_selector()))
    assert warnings == [f"spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: {ARCH}"]


def test_a_job_update_warns_about_the_template_only_when_the_spec_changes() -> None:
    srv = server()
    created, _ = srv.unstructured.create(_wire(_job_with_selector()))
    same = {"apiVersion": "batch/v1", "kind": "Job", **copy.deepcopy(created)}
    same["metadata"]["labels"] = {"a": "b"}
    _, warnings = srv.unstructured.update(same)
    assert warnings == []


def test_a_cronjob_template_is_warned_about_under_its_job_template() -> None:
    cj = cronjob()
    cj.spec.job_template.spec.template.spec.node_selector = {"beta.kubernetes.io/arch": "amd64"}
    _, warnings = server().unstructured.create(_wire(cj))
    assert warnings == [f"spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: {ARCH}"]

