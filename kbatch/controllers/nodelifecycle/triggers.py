"""Which informer events reach the taint manager (upstream
``pkg/controller/tainteviction/taint_eviction.go`` ``PodUpdated`` and ``NodeUpdated``, client-go
handlers): a pod update only when its tolerations or its ``nodeName`` changed; a node update only when
its ``NoExecute`` taints changed. Creates always pass; a node's delete maps no pods (upstream only
forgets the node's taints: scheduled evictions stay)."""

from __future__ import annotations

from typing import Any

__all__ = ["NoExecuteTaintsChanged", "TolerationsOrNodeChanged"]


def _no_execute(node: Any) -> list[Any]:
    """``getNoExecuteTaints``: the node's taints with effect ``NoExecute``, in order."""
    return [t for t in node.spec.taints or () if t.effect == "NoExecute"]


class TolerationsOrNodeChanged:
    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return (old.spec.tolerations or []) != (new.spec.tolerations or []) or \
            old.spec.node_name != new.spec.node_name

    def delete(self, obj: Any) -> bool:
        return True


class NoExecuteTaintsChanged:
    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return _no_execute(old) != _no_execute(new)

    def delete(self, obj: Any) -> bool:
        return False
