"""The ``controller.kubernetes.io/pod-deletion-cost`` annotation, as kube-apiserver validates it on a
Pod and a pod template, and its update ratchet.

Source: kubernetes ``pkg/apis/core/validation/validation.go`` ``ValidatePodSpecificAnnotations``
(stored copy 000f2605, 1.35+), ``pkg/apis/core/helper/helpers.go``
``GetDeletionCostFromPodAnnotations`` / ``validFirstDigit``, ``pkg/api/pod/util.go``
``GetValidationOptionsFromPodSpecAndMeta`` (``AllowInvalidPodDeletionCost``: false while the
PodDeletionCost gate is on, true on an update whose old object already had an invalid value). The
values are the branches of those helpers (sign, leading zero, empty, int32 range, non-digits); the
upstream test tables were not read in the time this change had.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.api.strategies.core.pod_deletion_cost import POD_DELETION_COST
from tests.api.upstream_pod import INVALID, ctr, server

VALID = ["0", "-5", "10", "2147483647", "-2147483648", "-0"]
INVALID_VALUES = ["", "+10", "008", "2147483648", "-2147483649", "x", "-", "1.5", " 1", "1_000"]
POD_PATH = f"metadata.annotations[{POD_DELETION_COST}]"
JOB_PATH = f"spec.template.annotations[{POD_DELETION_COST}]"


def _pod(cost: str | None) -> Pod:
    meta: dict[str, Any] = {"name": "p", "namespace": "default"}
    if cost is not None:
        meta["annotations"] = {POD_DELETION_COST: cost}
    return Pod.model_validate({"metadata": meta, "spec": {"containers": [ctr()]}})


def _job(cost: str | None) -> Job:
    template: dict[str, Any] = {"spec": {"restartPolicy": "Never", "containers": [ctr()]}}
    if cost is not None:
        template["metadata"] = {"annotations": {POD_DELETION_COST: cost}}
    return Job.model_validate({"metadata": {"name": "j", "namespace": "default"},
                               "spec": {"template": template}})


def _causes(err: pytest.ExceptionInfo[Invalid]) -> list[tuple[str, str, str]]:
    return [(c["field"], c["reason"], c["message"]) for c in err.value.status.to_dict()["details"]["causes"]]


@pytest.mark.parametrize("value", VALID)
def test_a_canonical_int32_is_accepted(value: str) -> None:
    assert server().create(_pod(value)).metadata.uid
    assert server().create(_job(value)).metadata.uid


@pytest.mark.parametrize("value", INVALID_VALUES)
def test_anything_else_is_refused_on_create(value: str) -> None:
    for obj, path in ((_pod(value), POD_PATH), (_job(value), JOB_PATH)):
        with pytest.raises(Invalid) as err:
            server().create(obj)
        assert _causes(err) == [(path, INVALID, f'Invalid value: "{value}": must be a 32bit integer')]


def _store_cost(api: Any, obj: Pod | Job, cost: str) -> dict[str, Any]:
    """Create ``obj`` valid, then store it with an invalid cost behind the server's back."""
    wire = copy.deepcopy(api.create(obj).to_dict())
    holder = wire["metadata"] if isinstance(obj, Pod) else wire["spec"]["template"].setdefault("metadata", {})
    holder["annotations"] = {**(holder.get("annotations") or {}), POD_DELETION_COST: cost}
    del wire["metadata"]["resourceVersion"]
    kind = api.kind(type(obj))
    api.store.put(kind.keys.key("default", obj.metadata.name), type(obj).model_validate(wire).to_json())
    return api.get(type(obj), obj.metadata.name, "default").to_dict()


@pytest.mark.parametrize("make", [_pod, _job], ids=["Pod", "Job"])
def test_an_update_keeps_an_invalid_cost_the_stored_object_had(make: Any) -> None:
    api = server()
    wire = _store_cost(api, make(None), "+10")
    wire["metadata"]["labels"] = {"touched": "yes"}
    assert api.update(type(make(None)).model_validate(wire)).metadata.labels == {"touched": "yes"}


def test_an_update_may_not_bring_an_invalid_cost_in() -> None:
    api = server()
    wire = api.create(_pod("1")).to_dict()
    wire["metadata"]["annotations"][POD_DELETION_COST] = "+10"
    with pytest.raises(Invalid) as err:
        api.update(Pod.model_validate(wire))
    assert _causes(err) == [(POD_PATH, INVALID, 'Invalid value: "+10": must be a 32bit integer')]


def test_a_status_write_checks_the_cost_unless_the_stored_pod_had_an_invalid_one() -> None:
    api = server()
    wire = api.create(_pod("1")).to_dict()
    wire["metadata"]["annotations"][POD_DELETION_COST] = "008"
    with pytest.raises(Invalid) as err:
        api.update_status(Pod.model_validate(wire))
    assert _causes(err) == [(POD_PATH, INVALID, 'Invalid value: "008": must be a 32bit integer')]
    other = server()
    stored = _store_cost(other, _pod(None), "008")
    stored["status"]["message"] = "kubelet was here"
    assert other.update_status(Pod.model_validate(stored)).status.message == "kubelet was here"
