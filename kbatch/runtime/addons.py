"""Cluster add-ons: what a *new* cluster starts with, installed once (:class:`kbatch.families.ClusterAddon`).

A cluster is new when its store holds no object under ``/registry/`` before the API server bootstraps
it: a fresh ``ControlPlane``, a new state directory, the first process on an empty etcd. A control
plane built over a store that already holds objects (a state directory's restart with other options,
a restored snapshot, a second ``kbatch serve --etcd-servers``) installs nothing, so what a user deleted
stays deleted. kind does the same: its install actions run once, when ``kind create cluster`` makes
the cluster (kubernetes-sigs/kind ``pkg/cluster/internal/create/create.go``), never on a restart.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kbatch.apiserver.keys import REGISTRY_ROOT
from kbatch.families import ClusterAddon, resolve
from kbatch.store.kv import KV, prefix_end

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["install_addons", "is_new_store"]


def is_new_store(store: KV) -> bool:
    """Whether ``store`` holds no Kubernetes object yet (keys outside ``/registry/`` do not count)."""
    return not store.range(REGISTRY_ROOT, prefix_end(REGISTRY_ROOT), count_only=True).count


def install_addons(server: APIServer, addons: Iterable[ClusterAddon]) -> None:
    """Run each add-on's ``install(server)``, in order. Each draws its uids from a generator of its
    own, seeded with its name (as RBAC's bootstrap hook does): the control plane's seeded generator,
    which later writes and decisions draw from, is left where it was, so choosing add-ons changes no
    other object's uid."""
    main = server.rng
    try:
        for addon in addons:
            server.rng = random.Random(f"cluster-addon/{addon.name}")
            resolve(addon.install)(server)
    finally:
        server.rng = main
