"""The ``default-storage-class`` cluster add-on: the StorageClass ``standard`` a new cluster starts with.

kind installs one when it creates a cluster (kubernetes-sigs/kind
``pkg/cluster/internal/create/actions/installstorage/storage.go`` applies the node image's
``/kind/manifests/default-storage.yaml``, written by ``pkg/build/nodeimage/const_storage.go``):
``standard``, annotated ``storageclass.kubernetes.io/is-default-class: "true"``, provisioner
``rancher.io/local-path``, ``volumeBindingMode: WaitForFirstConsumer``, ``reclaimPolicy: Delete``.
kbatch's is the same class with its own provisioner, ``kbatch.io/simulated``, which like local-path
makes a volume local to the node the scheduler picked (docs/storage.md). So a claim that names no
class gets ``standard`` (DefaultStorageClass admission) and binds once its pod is scheduled.

Installed once, when the cluster is new (:class:`~kbatch.families.family.ClusterAddon`): a user who
deletes the class or takes the annotation off keeps that. kubeadm installs no class; a kbatch
cluster without it is ``ControlPlane(addons="*,-default-storage-class")`` or
``kbatch --no-default-storage-class`` when the state is created.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

from kbatch.api.errors import AlreadyExists
from kbatch.api.meta import ObjectMeta
from kbatch.api.registry import Registry
from kbatch.api.storage_v1 import IS_DEFAULT_STORAGE_CLASS_ANNOTATION, SIMULATED_PROVISIONER, StorageClass

__all__ = ["ADDON_NAME", "STANDARD", "install_default_class", "standard_class"]

ADDON_NAME = "default-storage-class"  # minikube's name for the same add-on (`minikube addons list`)
STANDARD = "standard"


class ClassCreator(Protocol):
    """What the add-on needs of the API server: which kinds it serves, and a create."""

    registry: Registry

    def create(self, obj: StorageClass) -> StorageClass: ...


def standard_class() -> StorageClass:
    """kind's ``standard`` class with kbatch's provisioner (module docstring)."""
    return StorageClass(
        metadata=ObjectMeta(name=STANDARD, annotations={IS_DEFAULT_STORAGE_CLASS_ANNOTATION: "true"}),
        provisioner=SIMULATED_PROVISIONER, reclaim_policy="Delete",
        volume_binding_mode="WaitForFirstConsumer")


def install_default_class(server: ClassCreator) -> None:
    """Create ``standard`` (nothing when StorageClass is not served; an existing class of that name,
    e.g. made by another API server on the same etcd a moment before, is left as it is)."""
    if StorageClass not in server.registry:
        return
    with contextlib.suppress(AlreadyExists):
        server.create(standard_class())
