"""Upstream's LocalQueue, ResourceFlavor and AdmissionCheck admission integration tests, through the API.

Source: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/webhook/core/{localqueue,
resourceflavor,admissioncheck}_test.go``. Upstream checks which layer refuses an object:
``BeInvalidError`` (422: the CRD schema, its patterns, ``maxItems``/``maxProperties``, CEL rules such
as ``spec.clusterQueue`` immutable) or ``BeForbiddenError`` (403: a ``v*.kb.io`` webhook); so do
these tests, by the error class. The AdmissionCheck "Should fail to create ..." entries have no
``metadata.name`` upstream (refused for that alone); here they are named ``foo`` so that the rule
each entry names is the one refusing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import Forbidden, Invalid

from .helpers import KUEUE, flavor, local_queue

OK = None
FINALIZER = "kueue.x-k8s.io/resource-in-use"


def _outcome(action: Callable[[], Any]) -> type | None:
    try:
        action()
    except (Invalid, Forbidden) as err:
        return type(err)
    return None


def _update(
    cp: ControlPlane,
    kind: str,
    name: str,
    change: Callable[[dict[str, Any]], None],
    namespace: str | None = None,
    status: bool = False,
) -> Any:
    api = cp.server.unstructured
    obj = api.get(KUEUE, kind, name, namespace)
    change(obj)
    return lambda: api.update(obj, namespace=namespace, status=status)


# --- localqueue_test.go ------------------------------------------------------------------------


def test_local_queue_rejects_bad_cluster_queue_name() -> None:
    """ "Should reject bad value for spec.clusterQueue"."""
    cp = ControlPlane(controllers="kueue")
    assert _outcome(lambda: cp.apply([local_queue("queue", "invalid_name")])) is Invalid


def test_local_queue_rejects_a_change_of_cluster_queue() -> None:
    """ "Should reject the change of spec.clusterQueue"."""
    cp = ControlPlane(controllers="kueue")
    cp.apply([local_queue("queue", "foo")])
    change = _update(cp, "LocalQueue", "queue", lambda o: o["spec"].update(clusterQueue="bar"), "default")
    assert _outcome(change) is Invalid


def _usage(n: int) -> list[dict[str, Any]]:
    """``makeLocalQueueFlavorUsage(n)``; the CRD allows 64 (``flavorsMaxItems``, clusterqueue_test.go)."""
    return [{"name": f"flavor-{i}", "resources": [{"name": "cpu", "total": "1"}]} for i in range(n)]


@pytest.mark.parametrize(
    ("reservation", "usage", "want"),
    [(64, 64, OK), (65, 0, Invalid), (0, 65, Invalid)],
    ids=[
        "Should allow flavors quantity up to the limit in flavorsReservation and flavorsUsage",
        "Should reject flavors quantity over the limit in flavorsReservation",
        "Should reject flavors quantity over the limit in flavorsUsage",
    ],
)
def test_local_queue_status_flavor_limits(reservation: int, usage: int, want: type | None) -> None:
    cp = ControlPlane(controllers="")
    cp.apply([local_queue("queue", "foo")])

    def change(obj: dict[str, Any]) -> None:
        status = obj.setdefault("status", {})
        if reservation:
            status["flavorsReservation"] = _usage(reservation)
        if usage:
            status["flavorsUsage"] = _usage(usage)

    assert _outcome(_update(cp, "LocalQueue", "queue", change, "default", status=True)) is want


# --- resourceflavor_test.go --------------------------------------------------------------------


def test_resource_flavor_is_valid_and_gets_the_finalizer() -> None:
    """ "Should be valid" and "Should have a finalizer"."""
    cp = ControlPlane(controllers="kueue")
    cp.apply(
        [
            flavor(
                "resource-flavor",
                labels={"foo": "bar"},
                taints=[{"key": "spot", "value": "true", "effect": "NoSchedule"}],
            ),
            flavor("empty"),
        ]
    )
    assert cp.server.unstructured.get(KUEUE, "ResourceFlavor", "empty", None)["metadata"]["finalizers"] == [
        FINALIZER
    ]


@pytest.mark.parametrize(
    ("taints", "labels", "want"),
    [(9, 0, Invalid), (0, 9, Invalid), (8, 8, OK)],
    ids=[
        "invalid number of taint",
        "invalid number of nodeSelector",
        "valid number of nodeSelector and taint",
    ],
)
def test_resource_flavor_number_of_properties(taints: int, labels: int, want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    doc = flavor(
        "resource-flavor",
        labels={f"l{i}": "" for i in range(labels)} or None,
        taints=[{"key": f"t{i}", "effect": "NoExecute"} for i in range(taints)] or None,
    )
    assert _outcome(lambda: cp.apply([doc])) is want


def test_resource_flavor_update_with_invalid_taint_effect() -> None:
    """ "Updating a ResourceFlavor with invalid taints" "Should fail to update"."""
    cp = ControlPlane(controllers="kueue")
    cp.apply([flavor("resource-flavor")])
    taint = [{"key": "foo", "value": "bar", "effect": "Invalid"}]
    change = _update(
        cp, "ResourceFlavor", "resource-flavor", lambda o: o.setdefault("spec", {}).update(nodeTaints=taint)
    )
    assert _outcome(change) is Invalid


_TOLERATIONS = [
    {"key": "@abc", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
    {"key": "abc", "operator": "Exists", "value": "v", "effect": "NoSchedule"},
    {"key": "abc", "operator": "Equal", "value": "v", "effect": "not-valid"},
    {"key": "abc", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
]


@pytest.mark.parametrize(
    ("doc", "want"),
    [
        (
            flavor(
                "resource-flavor",
                taints=[{"key": "skdajf"}, {"key": "@foo", "value": "bar", "effect": "NoSchedule"}],
            ),
            Invalid,
        ),
        (flavor("resource-flavor", labels={"@abc": "foo"}), Forbidden),
        (flavor("resource-flavor", tolerations=_TOLERATIONS), Invalid),
    ],
    ids=[
        "Should fail to create with invalid taints",
        "Should fail to create with invalid label name",
        "Should fail to create with invalid tolerations",
    ],
)
def test_validate_resource_flavor_on_creation(doc: dict[str, Any], want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    assert _outcome(lambda: cp.apply([doc])) is want


# --- admissioncheck_test.go --------------------------------------------------------------------


def _ac(controller: str | None = "controller-name", **params: str) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if controller is not None:
        spec["controllerName"] = controller
    if params:
        spec["parameters"] = params
    return {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": "foo"}, "spec": spec}


REF = {"apiGroup": "ref.api.group", "kind": "RefKind", "name": "ref-name"}


@pytest.mark.parametrize(
    ("doc", "want"),
    [
        (_ac(None, **REF), Invalid),
        (_ac(**{**REF, "apiGroup": "ref.api.group/Bad"}), Invalid),
        (_ac(kind="RefKind", name="ref-name"), Invalid),
        (_ac(**{**REF, "kind": "RefKind/Bad"}), Invalid),
        (_ac(apiGroup="ref.api.group", name="ref-name"), Invalid),
        (_ac(**{**REF, "name": "ref-name/Bad"}), Invalid),
        (_ac(apiGroup="ref.api.group", kind="RefKind"), Invalid),
        (_ac(), OK),
        (_ac(**REF), OK),
    ],
    ids=[
        "Should fail to create AdmissionCheck with no controller name",
        "Should fail to create AdmissionCheck with bad ref api group",
        "Should fail to create AdmissionCheck with no ref api group",
        "Should fail to create AdmissionCheck with bad ref kind",
        "Should fail to create AdmissionCheck with no ref kind",
        "Should fail to create AdmissionCheck with bad ref name",
        "Should fail to create AdmissionCheck with no ref name",
        "Should allow to create AdmissionCheck with no parameters",
        "Should allow to create AdmissionCheck with valid spec",
    ],
)
def test_validate_admission_check_on_creation(doc: dict[str, Any], want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    assert _outcome(lambda: cp.apply([doc])) is want


def test_admission_check_all_defaults() -> None:
    """ "All defaults": nothing is added to the spec."""
    cp = ControlPlane(controllers="kueue")
    cp.apply([_ac("ac-controller")])
    assert cp.server.unstructured.get(KUEUE, "AdmissionCheck", "foo", None)["spec"] == {
        "controllerName": "ac-controller"
    }


@pytest.mark.parametrize(
    ("change", "want"),
    [
        (
            lambda s: s.update(
                parameters={"apiGroup": "ref.api.group2", "kind": "RefKind2", "name": "ref-name2"}
            ),
            OK,
        ),
        (lambda s: s.pop("parameters"), OK),
        (lambda s: s["parameters"].update(name=""), Invalid),
        (lambda s: s.update(controllerName="controller-name2"), Invalid),
    ],
    ids=[
        "Should allow to update AdmissionCheck when changing parameters",
        "Should allow to update AdmissionCheck when removing parameters",
        "Should fail to update AdmissionCheck when breaking parameters",
        "Should fail to update AdmissionCheck when changing the controller name",
    ],
)
def test_update_admission_check(change: Callable[[dict[str, Any]], Any], want: type | None) -> None:
    cp = ControlPlane(controllers="kueue")
    cp.apply([_ac(**REF)])
    assert _outcome(_update(cp, "AdmissionCheck", "foo", lambda o: change(o["spec"]))) is want
