"""Deleting any counted object frees its quota at once (replenishment), not at the next resync.

Upstream: kubernetes ``pkg/controller/resourcequota/resource_quota_monitor.go`` (v1.37): the
QuotaMonitor runs an informer for every quotable resource (namespaced, listable, watchable, not in
``install/update_mode.go``'s ignored set) whose ``DeleteFunc`` replenishes the quotas of the object's
namespace; ``resource_quota_controller.go`` ``replenishQuota`` then syncs them. Pods additionally
replenish when they stop counting (``QuotaV1Pod``), covered in test_quota_admission_and_controller.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import CronJob
from kbatch.api.core_v1 import ConfigMap, PersistentVolumeClaim, ResourceQuota, Service
from kbatch.runtime.controlplane import ControlPlane

CASES: list[tuple[str, Any, dict[str, Any]]] = [
    ("configmaps", ConfigMap, {"data": {"a": "1"}}),
    ("count/configmaps", ConfigMap, {"data": {"a": "1"}}),
    ("services", Service, {"spec": {"ports": [{"port": 80}]}}),
    ("persistentvolumeclaims", PersistentVolumeClaim,
     {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
    ("count/cronjobs.batch", CronJob, {"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}}),
]


def _used(cp: ControlPlane) -> dict[str, str]:
    st = cp.client.get(ResourceQuota, "q", "default").status
    assert st is not None
    return {k: str(v) for k, v in (st.used or {}).items()}


@pytest.mark.parametrize(("name", "model", "body"), CASES, ids=[c[0] for c in CASES])
def test_deleting_a_counted_object_frees_its_quota_at_once(name: str, model: Any,
                                                           body: dict[str, Any]) -> None:
    # pvc-protection releases the claim's StorageObjectInUseProtection finalizer, which a claim no
    # pod uses holds only until that controller sees the delete
    cp = ControlPlane(seed=0, controllers="resourcequota,pvc-protection")
    cp.client.create(ResourceQuota.model_validate({"metadata": {"name": "q", "namespace": "default"},
                                                   "spec": {"hard": {name: "5"}}}))
    cp.run_until_idle()
    before = int(_used(cp)[name])
    cp.client.create(model.model_validate({"metadata": {"name": "x", "namespace": "default"}, **body}))
    cp.run_until_idle()
    assert int(_used(cp)[name]) == before + 1
    start = cp.clock.now_datetime()
    cp.client.delete(model, "x", "default")
    cp.run_until_idle()
    assert int(_used(cp)[name]) == before
    assert cp.clock.now_datetime() == start  # no resync period had to pass
