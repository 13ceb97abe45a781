"""Upstream's DefaultTolerationSeconds table, through kbatch's API server.

Source: kubernetes/kubernetes ``plugin/pkg/admission/defaulttolerationseconds/admission_test.go``
(``TestForgivenessAdmission``, ``TestHandles``; the stored copy still carries tolerations in the old
alpha annotation, the plugin now works on ``spec.tolerations``: the cases are the same) against
``admission.go``: on create and update of a pod, a ``NoExecute`` toleration of
``node.kubernetes.io/not-ready`` / ``unreachable`` for 300 s is appended unless one already tolerates
the taint (key equal or empty, effect ``NoExecute`` or empty).

Three of upstream's requested pods are not valid pods (``tolerationSeconds`` with an effect other
than ``NoExecute``, which ``validateTolerations`` refuses; upstream's unit test calls the plugin
without validation): here those tolerations carry no ``tolerationSeconds``, which does not change
what the plugin decides.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock

NR, UR = "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"


def _tol(key: str | None, seconds: int | None, effect: str | None = "NoExecute") -> dict[str, Any]:
    out: dict[str, Any] = {"operator": "Exists"}
    if key is not None:
        out["key"] = key
    if effect is not None:
        out["effect"] = effect
    if seconds is not None:
        out["tolerationSeconds"] = seconds
    return out


FOO = {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}
NR_DEFAULT, UR_DEFAULT = _tol(NR, 300), _tol(UR, 300)

CASES = [
    ("pod has no tolerations, expect add tolerations for `notread:NoExecute` and `unreachable:NoExecute`",
     [], [NR_DEFAULT, UR_DEFAULT]),
    ("pod has tolerations, but none is for taint `notread:NoExecute` or `unreachable:NoExecute`, expect add "
     "tolerations for `notread:NoExecute` and `unreachable:NoExecute`", [FOO], [FOO, NR_DEFAULT, UR_DEFAULT]),
    ("pod specified a toleration for taint `notReady:NoExecute`, expect add toleration for "
     "`unreachable:NoExecute`", [_tol(NR, 700)], [_tol(NR, 700), UR_DEFAULT]),
    ("pod specified a toleration for taint `unreachable:NoExecute`, expect add toleration for "
     "`notReady:NoExecute`", [_tol(UR, 700)], [_tol(UR, 700), NR_DEFAULT]),
    ("pod specified tolerations for both `notread:NoExecute` and `unreachable:NoExecute`, expect no change",
     [_tol(NR, 700), _tol(UR, 700)], [_tol(NR, 700), _tol(UR, 700)]),
    ("pod specified toleration for taint `unreachable`, expect add toleration for `notReady:NoExecute`",
     [_tol(UR, None, effect=None)], [_tol(UR, None, effect=None), NR_DEFAULT]),
    ("pod has wildcard toleration for all kind of taints, expect no change",
     [_tol(None, None, effect=None)], [_tol(None, None, effect=None)]),
]


@pytest.fixture
def api(clock: FakeClock) -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(3))


def _pod(tolerations: list[dict[str, Any]]) -> Pod:
    return Pod.model_validate({"metadata": {"name": "name", "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "image": "busybox"}], "tolerations": tolerations or None}})


def _tolerations(pod: Pod) -> list[dict[str, Any]]:
    return [t.to_dict() for t in pod.spec.tolerations or ()]


@pytest.mark.parametrize(("requested", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_forgiveness_admission_on_create(api: APIServer, requested: list[dict[str, Any]],
                                         expected: list[dict[str, Any]]) -> None:
    """TestForgivenessAdmission, each case as a pod create."""
    assert _tolerations(api.create(_pod(requested))) == expected


def test_handles_update(api: APIServer) -> None:
    """TestHandles: Update is admitted too. A pod whose update keeps the defaults is unchanged (the
    tolerations may only grow on update, so the defaults already there satisfy the plugin)."""
    created = api.create(_pod([]))
    pod = edit(created)
    pod.spec.containers[0].image = "busybox:2"
    updated = api.update(pod)
    assert _tolerations(updated) == [NR_DEFAULT, UR_DEFAULT]
