"""Strategies of the storage family's kinds: storage.k8s.io/v1 StorageClass and CSIDriver, core/v1
PersistentVolume (docs/storage.md)."""

from __future__ import annotations

from kbatch.api.strategies.storage.csi_driver import CSIDriverStrategy
from kbatch.api.strategies.storage.persistent_volume import PersistentVolumeStrategy
from kbatch.api.strategies.storage.storage_class import StorageClassStrategy

__all__ = ["CSIDriverStrategy", "PersistentVolumeStrategy", "StorageClassStrategy"]
