"""A pin of DRA scheduling decisions: a mid-size scenario (nodes with whole and partitioned GPUs of two
models, pods with one-GPU, two-GPU ``matchAttribute``, ``firstAvailable`` and shared claims, created in
waves while earlier pods finish and free their devices) gives exactly the placements and allocations
recorded in ``pinned_placements.json``, and the same trace digest.

The pin was recorded before the DRA performance work (issue 18) so that every optimisation of the
plugin, the allocator and the claim controller is shown to keep the decisions byte-identical. A
deliberate change of behaviour rewrites it: ``python tests/dra/test_placement_pin.py --write``.
Rewritten when the scheduler began recording through events.k8s.io/v1 (client-go ``tools/events``):
every placement, phase, condition and allocation is unchanged, but the scheduler creates a different
number of Events, and each created object draws its uid from the API server's seeded random source,
which the generated names (``<pod>-gpu-xxxxx`` claims) draw from too: those suffixes and the trace moved.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceClaimTemplate
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

PIN = Path(__file__).with_name("pinned_placements.json")
DRIVER = "gpu.example.com"


def _template(name: str, requests: list[dict[str, Any]], **devices: Any) -> ResourceClaimTemplate:
    return ResourceClaimTemplate.model_validate(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": requests, **devices}}},
        }
    )


def _cel(expression: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": expression}}]


def _setup(cp: ControlPlane) -> None:
    create_nodes(cp, 6, NodeTemplate(devices=DeviceTemplate(count=4, model="A100")))
    create_nodes(cp, 4, NodeTemplate(devices=DeviceTemplate(count=2, model="H100", partitions=2)), start=6)
    create_nodes(cp, 2, NodeTemplate(devices=DeviceTemplate(count=8, model="A100")), start=10)
    cp.client.create(
        DeviceClass.model_validate(
            {"metadata": {"name": "gpu"}, "spec": {"selectors": _cel(f'device.driver == "{DRIVER}"')}}
        )
    )
    a100 = _cel(f'device.attributes["{DRIVER}"].model == "A100"')
    for template in (
        _template("one-a100", [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "selectors": a100}}]),
        _template(
            "two-same-model",
            [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": 2}}],
            constraints=[{"matchAttribute": f"{DRIVER}/model"}],
        ),
        _template(
            "small-or-big",
            [
                {
                    "name": "gpu",
                    "firstAvailable": [
                        {"name": "part", "deviceClassName": "gpu", "selectors": _cel(
                            f'device.capacity["{DRIVER}"].memory.compareTo(quantity("80Gi")) < 0'
                        )},
                        {"name": "whole", "deviceClassName": "gpu"},
                    ],
                }
            ],
        ),
    ):
        cp.client.create(template)
    cp.client.create(
        ResourceClaim.model_validate(
            {
                "metadata": {"name": "shared", "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
            }
        )
    )


def _pod(name: str, seconds: int, **source: Any) -> Pod:
    return Pod.model_validate(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "c",
                        "image": "busybox",
                        "command": ["sleep", str(seconds)],
                        "resources": {"requests": {"cpu": "100m"}, "claims": [{"name": "gpu"}]},
                    }
                ],
                "resourceClaims": [{"name": "gpu", **source}],
            },
        }
    )


_TEMPLATES = ("one-a100", "one-a100", "two-same-model", "small-or-big", "one-a100", "small-or-big")


def scenario(seed: int = 3) -> dict[str, Any]:
    """Run the scenario; what every pod and claim looked like after each wave, and the trace digest."""
    cp = ControlPlane(seed=seed)
    _setup(cp)
    order: list[str] = []
    waves = []
    for wave in range(4):
        for i in range(40):
            name = f"w{wave}-{i}"
            if i % 10 == 9:
                cp.client.create(_pod(name, 40, resourceClaimName="shared"))
            else:
                template = _TEMPLATES[(i + wave) % len(_TEMPLATES)]
                cp.client.create(_pod(name, 5 + (i * 7 + wave * 3) % 25, resourceClaimTemplateName=template))
            order.append(name)
        cp.advance(4 + wave)
        if wave == 1:
            cp.client.delete(Pod, "w0-3", "default")
        waves.append(_state(cp, order))
    cp.advance(60)
    waves.append(_state(cp, order))
    return {"waves": waves, "trace": cp.trace.digest()}


def _state(cp: ControlPlane, order: list[str]) -> dict[str, Any]:
    pods = {p.metadata.name: p for p in cp.client.list(Pod, "default").items}
    placements: dict[str, Any] = {}
    for name in order:
        pod = pods.get(name)
        if pod is None:
            placements[name] = None
            continue
        statuses = {s.name: s.resource_claim_name for s in pod.status.resource_claim_statuses or ()}
        placements[name] = {
            "node": pod.spec.node_name,
            "phase": pod.status.phase,
            "claim": statuses.get("gpu"),
            "scheduled": _condition(pod, "PodScheduled"),
        }
    claims = {}
    for claim in sorted(cp.client.list(ResourceClaim, "default").items, key=lambda c: c.metadata.name):
        allocation = claim.status.allocation if claim.status is not None else None
        claims[claim.metadata.name] = {
            "devices": [
                [r.request, r.pool, r.device] for r in (allocation.devices.results or ())
            ] if allocation is not None and allocation.devices is not None else None,
            "reservedFor": sorted(r.name for r in (claim.status.reserved_for or ()))
            if claim.status is not None else [],
        }
    return {"placements": placements, "claims": claims}


def _condition(pod: Pod, type_: str) -> list[str | None] | None:
    cond = pod.status.condition(type_) if pod.status is not None else None
    return None if cond is None else [cond.status, cond.reason, cond.message]


def test_dra_placements_match_the_pin() -> None:
    got = scenario()
    want = json.loads(PIN.read_text())
    for i, (have, pinned) in enumerate(zip(got["waves"], want["waves"], strict=True)):
        assert have["placements"] == pinned["placements"], f"after wave {i}"
        assert have["claims"] == pinned["claims"], f"after wave {i}"
    assert got["trace"] == want["trace"], "same decisions, but the writes differ from the pinned run"


def test_the_pinned_scenario_exercises_waiting_and_freeing() -> None:
    """The pin is only worth something if the scenario is busy: pods wait for devices, pods finish
    and free them, every kind of claim is allocated."""
    waves = json.loads(PIN.read_text())["waves"]
    placements = [p for w in waves for p in w["placements"].values() if p is not None]
    assert any(p["phase"] == "Succeeded" for p in placements)
    assert any(p["scheduled"] and p["scheduled"][1] == "Unschedulable" for p in placements)
    assert any(p["scheduled"] and p["scheduled"][0] == "True" for p in placements)
    requests = {d[0] for w in waves for c in w["claims"].values() for d in (c["devices"] or ())}
    assert {"gpu", "gpu/whole", "gpu/part"} <= requests
    assert any(len(c["reservedFor"]) > 1 for w in waves for c in w["claims"].values())


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        PIN.write_text(json.dumps(scenario(), indent=1, sort_keys=True) + "\n")
    else:
        print(json.dumps(scenario(), indent=1, sort_keys=True))
