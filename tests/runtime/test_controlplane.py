"""The ControlPlane façade: selection by name, apply, waits, async and real-clock entry points."""

from __future__ import annotations

import anyio
import pytest
from _support import full_registry, make_cp

from kbatch.api.core_v1 import Pod
from kbatch.runtime.catalog import ControllerSpec, default_catalog
from kbatch.runtime.clock import RealClock
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.reconcile import Request
from kbatch.runtime.selection import SelectionError

MANIFESTS = """
apiVersion: v1
kind: Pod
metadata: {name: a, labels: {tier: web}}
spec:
  containers: [{name: main, image: busybox, command: [sleep, "5"]}]
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: b, namespace: kube-system}
  spec:
    containers: [{name: main, image: busybox}]
"""


def test_apply_multi_document_yaml_then_update() -> None:
    cp = make_cp()
    created = cp.apply(MANIFESTS)
    assert [(p.metadata.namespace, p.metadata.name) for p in created] == [
        ("default", "a"), ("kube-system", "b")]
    container = {"name": "main", "image": "busybox", "command": ["sleep", "5"]}
    updated = cp.apply({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": "a", "labels": {"tier": "db"}},
                        "spec": {"containers": [container]}})
    assert updated[0].metadata.labels == {"tier": "db"}
    assert updated[0].metadata.uid == created[0].metadata.uid


def test_selection_by_name_and_unknown_names() -> None:
    assert "garbage-collector" not in make_cp(controllers="*,-garbage-collector").enabled
    cp = make_cp(controllers="ttl-after-finished")
    assert cp.enabled == ["ttl-after-finished"]
    assert [c.name for c in cp.manager.controllers] == ["ttl-after-finished"]
    with pytest.raises(SelectionError, match=r"known controllers: .*garbage-collector"):
        make_cp(controllers="*,-nope")


def test_known_but_unavailable_controllers_are_skipped_by_star_and_rejected_by_name() -> None:
    catalog = default_catalog()
    catalog.register(ControllerSpec("future", "not written yet", "kbatch.runtime.does_not_exist:setup"))
    cp = ControlPlane(registry=full_registry(), catalog=catalog, controllers="*")
    assert "future" not in cp.enabled and "garbage-collector" in cp.enabled
    with pytest.raises(SelectionError, match="not available"):
        ControlPlane(registry=full_registry(), catalog=catalog, controllers="future")


def test_extra_controllers_register_by_name_and_get_a_context() -> None:
    seen: list[str] = []

    def setup(ctx):  # type: ignore[no-untyped-def]
        seen.append(ctx.name)
        ctx.build().for_(Pod).complete(lambda r: seen.append(r.name))

    cp = ControlPlane(registry=full_registry(), controllers="mine",
                      extra_controllers=[ControllerSpec("mine", "a test controller", setup, False)])
    cp.apply(MANIFESTS)
    assert seen == ["mine", "a", "b"]


def test_wait_for_advances_virtual_time_only_as_needed() -> None:
    cp = make_cp()
    hits: list[float] = []
    ctrl = cp.build("later").complete(lambda r: hits.append(cp.clock.now()))
    ctrl.queue.add_after(Request("", "x"), 300)
    assert cp.wait_for(lambda: bool(hits), timeout="10m") == 300
    assert cp.wait_for(lambda c: c is cp, timeout=1) == 0
    with pytest.raises(TimeoutError):
        cp.wait_for(lambda: False, timeout="1m")
    cp.advance("1m30s")
    assert cp.clock.now() == 300 + 60 + 90


def test_async_entry_points() -> None:
    cp = make_cp()
    seen: list[str] = []
    cp.build("echo").for_(Pod).complete(lambda r: seen.append(r.name))

    async def main() -> None:
        cp.client.create(_pod("z"))
        await cp.arun_until_idle()
        await cp.aadvance("5s")

    anyio.run(main)
    assert seen == ["z"] and cp.clock.now() == 5


def _pod(name: str) -> Pod:
    from kbatch.testing import make_pod

    return make_pod(name).obj()


def test_real_clock_mode_runs_the_same_controllers() -> None:
    cp = ControlPlane(registry=full_registry(), controllers="garbage-collector", clock=RealClock())
    seen: list[str] = []

    async def main() -> None:
        done = anyio.Event()

        def reconcile(req: Request) -> None:
            seen.append(req.name)
            done.set()

        cp.build("echo").for_(Pod).complete(reconcile)
        async with anyio.create_task_group() as tg:
            tg.start_soon(cp.run)
            await anyio.sleep(0)
            cp.client.create(_pod("live"))  # the watch notify wakes the loop
            with anyio.fail_after(10):
                await done.wait()
            cp.stop()

    anyio.run(main)
    assert seen == ["live"]
    with pytest.raises(TypeError, match="real clock"):
        cp.advance(1)
