"""The informers' objects share equal nested models (kbatch.api.model_intern): the built-in controllers,
the API server and the simulation must treat them as read only, or one write would show in many
objects. Run a busy cluster and check that no shared instance changed since it was shared."""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.model_intern import mutated_shared_instances
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes


def _job(name: str, command: list[str], **spec: Any) -> Job:
    return Job.model_validate({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {**spec, "template": {"spec": {"restartPolicy": "Never", "containers": [{
            "name": "main", "image": "busybox", "command": command,
            "resources": {"requests": {"cpu": "100m"}}}]}}}})


def test_controllers_leave_the_informers_shared_instances_unchanged() -> None:
    cp = ControlPlane(seed=3, controllers="job,scheduler,kubelet,podgc", trace=False)
    create_nodes(cp, 3, NodeTemplate(cpu="2", memory="8Gi", pods=10))
    cp.client.create(_job("indexed", ["sleep", "5"], completions=12, parallelism=6, completionMode="Indexed"))
    cp.client.create(_job("failing", ["sh", "-c", "exit 1"], completions=2, backoffLimit=2))
    cp.client.create(_job("plain", ["sleep", "3"], completions=4, parallelism=2))
    cp.advance(300)
    done = {j.metadata.name: [c.type for c in (j.status.conditions or ()) if c.status == "True"]
            for j in cp.cache.list(Job, "default")}
    assert "Complete" in done["indexed"] and "Complete" in done["plain"] and "Failed" in done["failing"]
    pods = cp.cache.list(Pod, "default")
    assert len({id(p.spec.containers[0]) for p in pods}) < len(pods)  # sharing did happen
    assert mutated_shared_instances() == []


def test_each_write_is_interned_once(monkeypatch: Any) -> None:
    """The decoded cache interns a watched kind's object when it is written; the informer stores that
    very object, so its indexer does not walk it a second time (docs/performance.md, session 41)."""
    import kbatch.apiserver.decoded_cache as decoded_cache
    import kbatch.runtime.cache.indexer as indexer
    from kbatch.testing import make_pod

    calls = {"decoded": 0, "indexer": 0}

    def counting(where: str, real: Any) -> Any:
        def share(obj: Any) -> None:
            calls[where] += 1
            real(obj)
        return share

    monkeypatch.setattr(decoded_cache, "share_structure", counting("decoded", decoded_cache.share_structure))
    monkeypatch.setattr(indexer, "share_structure", counting("indexer", indexer.share_structure))
    cp = ControlPlane(seed=0, controllers="", trace=False)
    cp.cache.informer_for(Pod)
    cp.run_until_idle()
    for n in range(20):
        cp.client.create(make_pod(f"p{n}").command("sleep 1").obj())
        cp.client.patch_status(Pod, f"p{n}", {"status": {"phase": "Running"}}, "default")
    cp.run_until_idle()
    assert calls["indexer"] == 0 and calls["decoded"] >= 40  # (namespace lookups decode too)
    pods = cp.cache.list(Pod, "default")
    assert len(pods) == 20 and len({id(p.spec.containers[0]) for p in pods}) == 1  # still shared
    assert mutated_shared_instances() == []
