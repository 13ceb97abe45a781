"""Everything the server needs about one kind, resolved once: spec, keys, policies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.api.meta import Resource
from kbatch.api.registry import KindSpec
from kbatch.api.strategy import DefaultStrategy
from kbatch.apiserver.keys import BUILTIN_GROUPS, KindKeys

__all__ = ["BUILTIN_GROUPS", "Kind"]

# BUILTIN_GROUPS (kbatch/apiserver/keys.py): the groups compiled into kube-apiserver; strategic merge
# patch is accepted only for these (CRDs answer 415,
# ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go``).

_set = object.__setattr__


@dataclass(frozen=True, slots=True)
class Kind:
    """``info``, ``model``, ``strategy``, ``is_pod``, ``is_namespace`` and ``default_status_prepare`` are
    derived from ``spec`` once, at construction: every write reads several of them (plain slots, not
    properties)."""

    spec: KindSpec
    keys: KindKeys
    info: ApiInfo = field(init=False, repr=False, compare=False)
    model: type[Resource] = field(init=False, repr=False, compare=False)
    strategy: Any = field(init=False, repr=False, compare=False)
    is_pod: bool = field(init=False, repr=False, compare=False)
    is_namespace: bool = field(init=False, repr=False, compare=False)
    # whether the strategy's status write is the default (every field but metadata and status from old)
    default_status_prepare: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        info = self.spec.info
        _set(self, "info", info)
        _set(self, "model", self.spec.model)
        _set(self, "strategy", self.spec.strategy)
        _set(self, "is_pod", info.group == "" and info.kind == "Pod")
        _set(self, "is_namespace", info.group == "" and info.kind == "Namespace")
        _set(self, "default_status_prepare", type(self.strategy).prepare_for_status_update
             is DefaultStrategy.prepare_for_status_update)

    @classmethod
    def of(cls, spec: KindSpec) -> Kind:
        return cls(spec, KindKeys.of(spec.info))

    @property
    def default_gc_policy(self) -> str:
        """What a delete without ``propagationPolicy`` does: the kind's declared policy (its family's
        :class:`kbatch.families.KindEntry`; upstream ``DefaultGarbageCollectionPolicy``)."""
        return self.spec.gc_policy

    @property
    def strategic_merge(self) -> bool:
        return self.info.group in BUILTIN_GROUPS
