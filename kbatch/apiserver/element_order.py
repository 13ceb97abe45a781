"""The order of a merged list in a strategic merge patch, as upstream sets it.

Upstream: ``staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go`` (``mergeSlice``,
``normalizeElementOrder``, ``mergeSortedSlice``, ``validatePatchWithSetOrderList``) and the design
"Preserve Order in Strategic Merge Patch" (kubernetes/community
``contributors/design-proposals/cli/preserve-order-in-strategic-merge-patch.md``):

* every merged list (keyed list of objects, or merged primitive list such as ``finalizers``) is split
  into the items the patch names and the server-only items; the patch's items take the patch's order
  (or the ``$setElementOrder/<field>`` list's, when the patch carries one), server-only items keep the
  live order, and the two are interleaved by live position where both are in the live list; an item
  the live list does not have goes before the server-only item it is compared with — which is why a
  new item ends up *first* (``kubectl get pod -o yaml`` lists ``PodScheduled`` after the kubelet's
  conditions);
* a ``$setElementOrder`` list must name the patch's items in the patch's order.

Items are identified by their merge key (lists of objects) or by value (primitive lists). Pure
functions on JSON values; the lists passed in are not mutated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.errors import BadRequest, InternalError

__all__ = ["check_set_order", "normalize", "present_in"]

_SET_ORDER_FORMAT = "invalid patch format of setElementOrder list"


def _ident(item: Any, key: str | None) -> Any:
    """What identifies ``item``: its merge key's value (``None`` for a non-object), or itself."""
    if key is None:
        return item
    return item.get(key) if type(item) is dict else None


def _index(idents: list[Any], ident: Any) -> int:
    """Upstream ``index``: the first position of ``ident``, -1 when absent."""
    for i, other in enumerate(idents):
        if other == ident:
            return i
    return -1


def present_in(items: list[Any], names: list[Any], key: str | None) -> tuple[list[Any], list[Any]]:
    """``partition{Maps,Primitives}ByPresentInList``: (items ``names`` names, the others), in order."""
    wanted = [_ident(n, key) for n in names]
    named: list[Any] = []
    others: list[Any] = []
    for item in items:
        (named if _index(wanted, _ident(item, key)) >= 0 else others).append(item)
    return named, others


def _sort_by(items: list[Any], order: list[Any], key: str | None) -> list[Any]:
    """``normalizeSliceOrder``: a stable sort of ``items`` by first position in ``order``; Go's
    comparator says an item absent from ``order`` is less than anything, which only insertion sort
    (what ``sort.SliceStable`` runs on up to 20 items) gives a definite meaning."""
    if key is not None:
        deleting = [i for i in items if type(i) is dict and i.get("$patch") == "delete"]
        items = [i for i in items if not (type(i) is dict and i.get("$patch") == "delete")]
    else:
        deleting = []
    idents = [_ident(o, key) for o in order]
    positions = [_index(idents, _ident(item, key)) for item in items]
    if min(positions, default=0) >= 0:
        ordered = [items[i] for i in sorted(range(len(items)), key=positions.__getitem__)]
    else:
        ordered = _insertion_sort(list(zip(positions, items, strict=True)))
    return ordered + deleting


def _insertion_sort(pairs: list[tuple[int, Any]]) -> list[Any]:
    def less(a: tuple[int, Any], b: tuple[int, Any]) -> bool:
        return a[0] < b[0] if a[0] >= 0 and b[0] >= 0 else True

    for i in range(1, len(pairs)):
        j = i
        while j > 0 and less(pairs[j], pairs[j - 1]):
            pairs[j], pairs[j - 1] = pairs[j - 1], pairs[j]
            j -= 1
    return [item for _, item in pairs]


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any], key: str | None) -> list[Any]:
    """``mergeSortedSlice``: interleave server-only items (``left``) into the patch's (``right``):
    a left item goes first only when both are in the live list and it comes earlier there."""
    idents = [_ident(o, key) for o in server_order]
    out: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li, ri = _index(idents, _ident(left[i], key)), _index(idents, _ident(right[j], key))
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def normalize(merged: list[Any], patch_order: list[Any], server_order: list[Any],
              key: str | None) -> list[Any]:
    """``normalizeElementOrder`` of ``merged``: the items ``patch_order`` names in its order,
    interleaved with the rest in ``server_order``'s (the live list's) order."""
    named, server_only = present_in(merged, patch_order, key)
    return _merge_sorted(_sort_by(server_only, server_order, key), _sort_by(named, patch_order, key),
                         server_order, key)


def _key_equal(left: Any, right: Any, key: str | None, missing: Callable[[Any], Exception]) -> bool:
    """``mergeKeyValueEqual``."""
    if key is None:
        return bool(left == right)
    for side in (left, right):
        if type(side) is not dict:
            raise InternalError(f"expected a map[string]interface {{}}, but received {side!r}")
        if key not in side:
            raise missing(side)
    return bool(left[key] == right[key])


def check_set_order(patch_list: Any, set_order: Any, key: str | None,
                    missing: Callable[[Any], Exception]) -> None:
    """``validatePatchWithSetOrderList``: both lists, and the patch's items (deletions and other
    directive items aside) named by ``set_order`` in the same relative order. ``missing`` makes the
    error for an object without the merge key."""
    if not isinstance(set_order, list) or not isinstance(patch_list, list):
        raise BadRequest(_SET_ORDER_FORMAT)
    if not set_order or not patch_list:
        return
    items = patch_list
    if key is not None:
        if any(type(item) is not dict for item in patch_list):
            raise InternalError("expected a map[string]interface {}, but received a list item that is not")
        items = [item for item in patch_list if item.get("$patch") != "delete"]
    p = s = 0
    while p < len(items) and s < len(set_order):
        if type(items[p]) is dict and "$patch" in items[p]:
            p += 1
            continue
        if _key_equal(items[p], set_order[s], key, missing):
            p += 1
        s += 1
    if p < len(items) and s >= len(set_order):
        raise InternalError(f"The order in patch list:\n{patch_list}\n doesn't match $setElementOrder list:\n"
                            f"{set_order}\n")
