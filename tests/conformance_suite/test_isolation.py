"""Per-check namespaces: reproducible names from the seed, claimed by creation (a taken name is never
written), released with their content; the namespaced view of a target."""

from __future__ import annotations

import re
from itertools import islice

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.isolation import (
    PREFIX,
    NamespacedTarget,
    claim_namespace,
    namespace_names,
    release_namespace,
)
from conformance.job.driver import job_manifest
from conformance.kbatch_target import KbatchTarget, with_nodes

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@given(st.integers(), st.text(max_size=40))
def test_names_are_reproducible_dns_labels(seed, check_id):
    names = list(islice(namespace_names(seed, check_id), 5))
    assert names == list(islice(namespace_names(seed, check_id), 5))
    assert all(n.startswith(PREFIX) and len(n) <= 63 and DNS_LABEL.match(n) for n in names)


def test_seed_and_check_choose_the_stream():
    first = next(namespace_names(0, "job.x.y"))
    assert first != next(namespace_names(1, "job.x.y")) and first != next(namespace_names(0, "job.x.z"))


def _ns(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def test_a_taken_name_is_skipped_and_left_alone():
    target = KbatchTarget()
    taken, second, third = islice(namespace_names(3, "c"), 3)
    target.create(_ns(taken))
    target.apply(job_manifest("theirs", parallelism=1, completions=1, suspend=True), taken)
    before = (target.get("Namespace", taken), target.get("Job", "theirs", taken))
    assert claim_namespace(target, namespace_names(3, "c")) == second
    assert claim_namespace(target, namespace_names(3, "c")) == third
    assert (target.get("Namespace", taken), target.get("Job", "theirs", taken)) == before
    with pytest.raises(RuntimeError, match="no free namespace after 3 tries"):
        claim_namespace(target, namespace_names(3, "c"), attempts=3)


def test_other_refusals_are_not_taken_for_a_collision():
    with pytest.raises(Exception) as err:
        claim_namespace(KbatchTarget(), iter(["Not_A_Label"]))
    assert getattr(err.value, "reason", "") == "Invalid"


def test_the_view_works_in_its_namespace_and_release_empties_only_it():
    inner = with_nodes()
    mine = claim_namespace(inner, namespace_names(0, "view"))
    other = claim_namespace(inner, namespace_names(0, "other"))
    view = NamespacedTarget(inner, mine)
    job = view.apply(job_manifest("j", parallelism=2, completions=2))
    assert job["metadata"]["namespace"] == mine and view.get("Job", "j") is not None
    assert len(view.list("Pod")) == 2 and inner.list("Pod", other) == []
    inner.apply(job_manifest("keep", parallelism=1, completions=1, suspend=True), other)
    pod = view.list("Pod")[0]["metadata"]["name"]
    assert view.fault("condition-pod", {"name": pod, "type": "ConfigIssue"})["pod"] == pod  # in ``mine``
    release_namespace(inner, mine, ("CronJob", "Job", "Pod"))
    gone = inner.get("Namespace", mine)  # the namespace controller runs here: it finishes the deletion
    assert inner.list("Job", mine) == [] and (gone is None or gone["metadata"].get("deletionTimestamp"))
    assert inner.get("Job", "keep", other) is not None


def test_a_claimed_namespace_admits_the_pods_of_a_kubelet_playing_check():
    # Every cluster runs the serviceaccount controller, so the ServiceAccount admission plugin finds
    # a `default` account in a fresh namespace (plugin/pkg/admission/serviceaccount/admission.go
    # refuses pods without one); the in-process target for the kubelet-playing checks must run it too.
    target = KbatchTarget()
    view = NamespacedTarget(target, claim_namespace(target, namespace_names(0, "admits")))
    view.apply(job_manifest("j", parallelism=2, completions=2))
    assert len(view.list("Pod")) == 2
    assert view.get("ServiceAccount", "default") is not None
    assert view.get("ConfigMap", "kube-root-ca.crt") is not None


def test_a_namespace_whose_default_account_never_comes_is_an_error_not_failed_checks():
    # test/e2e/framework/framework.go BeforeEach: WaitForDefaultServiceAccountInNamespace and
    # WaitForKubeRootCAInNamespace (ServiceAccountProvisionTimeout, 2 minutes) before any test step.
    target = KbatchTarget(controllers="job")
    before = target.now()
    missing = r"no default ServiceAccount and kube-root-ca\.crt ConfigMap after 120s"
    with pytest.raises(RuntimeError, match=missing):
        claim_namespace(target, namespace_names(0, "unprovisioned"))
    assert (target.now() - before).total_seconds() >= 120
