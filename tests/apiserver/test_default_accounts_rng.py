"""The bootstrap's ``default`` ServiceAccounts and ``kube-root-ca.crt`` ConfigMaps
(``kbatch/apiserver/default_accounts.py``) take their uids from a generator of their own, as RBAC's
bootstrap does: the control plane's seeded generator is left where it was, so every later uid and
generated name is the one a plane without them would give (the pins of traces and placements rely
on it)."""

from __future__ import annotations

import pytest

from kbatch.api.core_v1 import ConfigMap, ServiceAccount
from kbatch.apiserver import namespaces
from kbatch.runtime.controlplane import ControlPlane

_DOCS = ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
         {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "g-"}})


def _later_objects(cp: ControlPlane) -> list[tuple[str, str]]:
    return [(obj.metadata.name, obj.metadata.uid) for doc in _DOCS for obj in cp.apply(doc)]


def test_bootstrap_accounts_leave_the_seeded_generator_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    with_accounts = ControlPlane(controllers=[])
    assert with_accounts.client.get(ServiceAccount, "default", namespace="kube-system").metadata.uid
    expected = _later_objects(with_accounts)
    monkeypatch.setattr(namespaces, "seed_default_accounts", lambda server, names: None)
    without = ControlPlane(controllers=[])
    assert _later_objects(without) == expected


def test_bootstrap_account_uids_are_distinct_and_repeat_across_fresh_planes() -> None:
    planes = [ControlPlane(controllers=[]) for _ in range(2)]
    uids = [[cp.client.get(kind, name, namespace=ns).metadata.uid
             for ns in namespaces.BOOTSTRAP_NAMESPACES
             for kind, name in ((ServiceAccount, "default"), (ConfigMap, "kube-root-ca.crt"))]
            for cp in planes]
    assert uids[0] == uids[1]
    assert len(set(uids[0])) == len(uids[0])
