"""ResourceQuota runs after every other validating admission hook, so a create another hook refuses
is never charged.

Upstream: kubernetes ``pkg/kubeapiserver/options/plugins.go`` ``AllOrderedPlugins`` ends with
MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook and then
ResourceQuota, "the last one in the list since it updates the quota usage"; Kueue's and JobSet's
webhooks are validating webhooks, so they run before it.
"""

from __future__ import annotations

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import ResourceQuota
from kbatch.api.errors import Forbidden
from kbatch.apiserver.admission import Admission, AdmissionRequest
from kbatch.runtime.controlplane import ControlPlane


def _job(name: str, labels: dict[str, str] | None = None) -> Job:
    return Job.model_validate({
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                        "containers": [{"name": "c", "image": "i"}]}}}})


def _used(cp: ControlPlane) -> dict[str, str]:
    st = cp.client.get(ResourceQuota, "q", "default").status
    assert st is not None
    return {k: str(v) for k, v in (st.used or {}).items()}


def test_a_job_refused_by_kueues_webhook_is_not_charged() -> None:
    cp = ControlPlane(seed=0, controllers="resourcequota")
    cp.client.create(ResourceQuota.model_validate({"metadata": {"name": "q", "namespace": "default"},
                                                   "spec": {"hard": {"count/jobs.batch": "1"}}}))
    cp.run_until_idle()
    assert _used(cp) == {"count/jobs.batch": "0"}
    # Kueue's job webhook: the queue name is not a DNS-1123 subdomain
    with pytest.raises(Forbidden, match=r'admission webhook "vjob\.kb\.io" denied the request'):
        cp.client.create(_job("bad", {"kueue.x-k8s.io/queue-name": "Not_A_Name"}))
    assert _used(cp) == {"count/jobs.batch": "0"}  # read before the controller recounts
    cp.client.create(_job("good"))  # so the one allowed job still fits
    assert _used(cp) == {"count/jobs.batch": "1"}
    with pytest.raises(Forbidden, match="exceeded quota: q"):
        cp.client.create(_job("third"))


def test_a_last_hook_runs_after_hooks_added_later() -> None:
    adm = Admission()
    ran: list[str] = []
    adm.add_validating(None, lambda r: ran.append("quota"), last=True)
    adm.add_validating(Job, lambda r: ran.append("webhook"))
    adm.add_validating(None, lambda r: ran.append("any"))
    adm.validate(AdmissionRequest("CREATE", _job("j"), None))
    assert ran == ["webhook", "any", "quota"]
