"""Strategic merge patch for built-in kinds, driven by a table of list merge keys.

Upstream: ``staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go`` with the
``patchStrategy``/``patchMergeKey`` struct tags of k8s.io/api. Supported:

* maps merge recursively; ``null`` deletes a key;
* lists named in :data:`MERGE_KEYS` merge item by item on their merge key (items
  ``{"<key>": ..., "$patch": "delete"}`` first remove every item with that key, then each other item
  merges into the first with its key or is added); other lists of objects are replaced;
* primitive lists in :data:`MERGE_PRIMITIVES` (``finalizers``) merge as sets;
* every merged list is then put in upstream's order (:mod:`kbatch.apiserver.element_order`: the
  patch's items in the patch's order, live items by live position, a new item before the live item
  it meets), or in the order of the patch's ``$setElementOrder/<field>`` list;
* directives: ``$patch: replace`` (map or list), ``$patch: delete`` (map or list item),
  ``$retainKeys``, ``$deleteFromPrimitiveList/<field>``, ``$setElementOrder/<field>``;
* ``$patch: delete`` on a map the original has leaves it empty (``{}``, upstream
  ``handleDirectiveInMergeMap``); a map carrying ``$patch`` where the original has no map is
  dropped whole, whatever the directive (upstream ``removeDirectives``);
* any other ``$patch`` value, ``null`` included, where a map is merged or in a keyed list's item is
  upstream's ``ErrBadPatchType`` (``merge`` in a list item: "merging lists cannot yet be specified
  in the patch"), which the API server answers with a 500 (:mod:`kbatch.apiserver.mergepatch_errors`).

The list strategies are generated from the Go types' ``patchStrategy``/``patchMergeKey`` tags of
every built-in kind kbatch serves (``strategic_keys.json``, written by ``tools/gen_strategic_keys.py``):
a list is named by ``(parent, field)``, the JSON name of the field holding the map it is in (``""``:
the object; a list item's map is held by the list's field) and its own. A kind whose type replaces a
list that others merge (ValidatingAdmissionPolicy's ``status.conditions``) has that top-level field
rooted under its own name (:func:`roots`), so the lookup answers "replace" for it alone.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from kbatch.api.errors import BadRequest, InternalError
from kbatch.apiserver.element_order import check_set_order, normalize
from kbatch.apiserver.mergepatch_errors import bad_patch_type, no_merge_key

__all__ = ["DELETE", "MERGE_KEYS", "MERGE_PRIMITIVES", "apply_strategic_patch", "merge_key", "merge_map",
           "roots"]

_TABLE = json.loads((Path(__file__).parent / "strategic_keys.json").read_text())
MERGE_KEYS: dict[tuple[str, str], str] = {(p, f): k for p, f, k in _TABLE["merge"] if k}
MERGE_PRIMITIVES = frozenset(f for _, f, k in _TABLE["merge"] if not k)  # finalizers, podCIDRs
# kind (apiVersion/Kind) -> {top-level field: the parent name its lists are looked up under}; the
# mark cannot occur in a JSON key a client's object holds where it is looked up (a NUL byte)
_MARK = "\x00"
_ROOTS: dict[str, dict[str, str]] = {kind: {parent: f"{kind}{_MARK}{parent}" for parent, _ in rows}
                                      for kind, rows in _TABLE["replace"].items()}
_REPLACED = frozenset((f"{kind}{_MARK}{parent}", field) for kind, rows in _TABLE["replace"].items()
                      for parent, field in rows)

DELETE = object()  # what merging a map gives for ``$patch: delete``
_DIRECTIVE_PREFIXES = ("$deleteFromPrimitiveList/", "$setElementOrder/")


def merge_key(parent: str, field: str) -> str | None:
    """The merge key of the list ``field`` of a map that is the value of ``parent``."""
    if _MARK in parent:  # a rooted top-level field (:func:`roots`)
        if (parent, field) in _REPLACED:
            return None
        parent = parent.rsplit(_MARK, 1)[1]
    return MERGE_KEYS.get((parent, field))


def roots(api_version: str, kind: str) -> dict[str, str] | None:
    """The kind's top-level fields whose lists are looked up under the kind's own name (None: none)."""
    return _ROOTS.get(f"{api_version}/{kind}")


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})
_SCALARS = frozenset({str, int, float, bool})
_KEY_TYPES = (str, int)  # merge-key values the keyed fast path indexes (hash equality == ``==`` for these)


def _copy(value: Any) -> Any:
    """A deep copy; JSON scalars are immutable and returned as they are (``copy.deepcopy`` costs
    ~1 µs even for them, and patches are mostly scalars)."""
    return value if type(value) in _IMMUTABLE else copy.deepcopy(value)


def _strip(value: Any) -> Any:
    """A copy without directive keys (and without ``null`` map values, list items carrying ``$patch``).

    One flat loop per container: scalars are copied inline, only nested containers recurse. A key is
    a directive when it starts with ``$``; ``"$" in k`` (no method call) screens out the rest."""
    t = type(value)
    if t is dict:
        out = {}
        for k, v in value.items():
            if v is None or ("$" in k and k[0] == "$"):
                continue
            out[k] = v if type(v) in _IMMUTABLE else _strip(v)
        return out
    if t is list:
        return [v if type(v) in _IMMUTABLE else _strip(v) for v in value
                if not (type(v) is dict and "$patch" in v)]
    if isinstance(value, dict):  # dict/list subclasses: not what a JSON decoder produces
        return {k: _strip(v) for k, v in value.items() if not k.startswith("$") and v is not None}
    if isinstance(value, list):
        return [_strip(v) for v in value if not (isinstance(v, dict) and "$patch" in v)]
    return _copy(value)


def _merge_map(original: Any, patch: dict[str, Any], parent: str,
               rooted: dict[str, str] | None = None) -> Any:
    if "$patch" in patch:
        directive = patch["$patch"]
        if directive == "replace":
            return _strip(patch)
        if directive == "delete":
            return DELETE
        raise bad_patch_type(directive, patch)  # handleDirectiveInMergeMap: null included
    result = dict(original) if isinstance(original, dict) else {}
    retain = None
    set_orders: list[tuple[str, Any]] = []
    for key, value in patch.items():
        t = type(value)
        if "$" in key and key[0] == "$":
            if key.startswith("$setElementOrder/"):
                set_orders.append((key.split("/", 1)[1], value))
                continue
            if key.startswith("$deleteFromPrimitiveList/"):
                field = key.split("/", 1)[1]
                if not isinstance(value, list):
                    raise BadRequest("invalid patch: $deleteFromPrimitiveList must be a list")
                result[field] = [x for x in _original_list(result.get(field)) if x not in value]
                continue
            if key.startswith(_DIRECTIVE_PREFIXES) or key == "$patch":
                continue
            if key == "$retainKeys":
                retain = value
                continue
        if t in _SCALARS:
            result[key] = value
        elif value is None:
            result.pop(key, None)
        elif t is dict or isinstance(value, dict):
            current = result.get(key)
            if "$patch" in value and not isinstance(current, dict):
                result.pop(key, None)  # upstream removeDirectives: no map to merge into, nothing kept
                continue
            merged = _merge_map(current, value, rooted.get(key, key) if rooted else key)
            # upstream handleDirectiveInMergeMap: "$patch: delete" on a map that is there empties it
            result[key] = {} if merged is DELETE else merged
        elif t is list or isinstance(value, list):
            result[key] = _merge_list(result.get(key), value, parent, key)
        else:
            result[key] = _copy(value)
    for field, order in set_orders:
        _set_element_order(result, original, patch, parent, field, order)
    if retain is not None:
        if not isinstance(retain, list):
            raise BadRequest("invalid patch: $retainKeys must be a list")
        result = {k: v for k, v in result.items() if k in retain}
    return result


_GO_TYPES = {str: "string", bool: "bool", int: "float64", float: "float64", dict: "map[string]interface {}"}


def _original_list(value: Any) -> list[Any]:
    """The list a ``$deleteFromPrimitiveList`` directive deletes from: absent is empty; any other
    value is upstream's ``ErrBadArgType``, which the API server answers with a 500."""
    if value is None or isinstance(value, list):
        return value or []
    got = _GO_TYPES.get(type(value), "unknown")
    raise InternalError(f"expected a []interface {{}}, but received a {got}")


def _merge_list(original: Any, patch: list[Any], parent: str, field: str) -> list[Any]:
    result = list(original) if isinstance(original, list) else []
    if field in MERGE_PRIMITIVES:
        if any(isinstance(item, dict) and item.get("$patch") == "replace" for item in patch):
            return _strip(patch)
        merged: list[Any] = []  # upstream deduplicates the whole list (deduplicateScalars), then orders it
        for value in result + patch:
            if value not in merged:
                merged.append(_copy(value))
        return normalize(merged, patch, result, None)
    key = merge_key(parent, field)
    directives = False
    for item in patch:
        if not isinstance(item, dict):
            if key is not None:
                key = None  # not a list of objects: replaced whole, as any list without a merge key
            continue
        patch_directive = item.get("$patch")
        if patch_directive == "replace" and key is not None:
            replaced = _strip(patch)
            return normalize(replaced, [], replaced, key)
        if patch_directive == "replace":
            return _strip(patch)
        directives = directives or "$patch" in item
    if key is None:
        return _strip(patch)
    if not directives:
        live = list(result)
        fast = _merge_keyed_fast(result, patch, key, field)
        if fast is not None:
            return fast[0] if fast[1] else normalize(fast[0], patch, live, key)
    return _merge_keyed(result, patch, key, field)


def _merge_keyed(result: list[Any], patch: list[dict[str, Any]], key: str, field: str) -> list[Any]:
    """Upstream ``mergeSliceWithSpecialElements`` then ``mergeSliceWithoutSpecialElements``: every
    ``$patch: delete`` item first removes all items with an equal key; then each other item merges
    into the first item with an equal key, or is appended; then the list is put in order
    (:func:`~kbatch.apiserver.element_order.normalize`). The general path (quadratic in the lengths)."""
    plain = []
    for item in patch:
        if "$patch" not in item:
            plain.append(item)
            continue
        directive = item["$patch"]
        if directive == "merge":  # mergeSliceWithSpecialElements
            raise InternalError("merging lists cannot yet be specified in the patch")
        if directive != "delete":  # even null: ErrBadPatchType (mergeSliceWithSpecialElements)
            raise bad_patch_type(directive, item)
        if key not in item:
            raise no_merge_key(item, key)
        result = [old for old in result if not (isinstance(old, dict) and old.get(key) == item[key])]
    live = list(result)
    for item in plain:
        if key not in item:
            raise no_merge_key(item, key)
        index = next((i for i, old in enumerate(result)
                      if isinstance(old, dict) and old.get(key) == item[key]), None)
        if index is None:
            result.append(_strip(item))
        else:
            result[index] = _merge_map(result[index], item, field)
    return normalize(result, plain, live, key)


def _merge_keyed_fast(result: list[Any], patch: list[dict[str, Any]], key: str,
                      field: str) -> tuple[list[Any], bool] | None:
    """:func:`_merge_keyed` through an index of the original items, for the usual patch (no
    ``$patch`` items, every merge key present, a string or integer, and distinct). ``None`` when the
    patch is not of that shape (the caller takes the general path); else the merged list and whether
    it is already in upstream's order (so ``normalize`` is not needed).

    Equivalent because no patch item can match another's appended or merged item (keys distinct),
    and a dict lookup of a ``str``/``int`` finds the first original item whose key is ``==`` to it.
    In order without ``normalize`` when the live items are objects with distinct keys (and no
    ``$patch`` marker, which only a malformed live list has) and the patch
    either only changes items, in their live order (the merge of two lists sorted by live position
    keeps the live order), or only adds items (none is in the live list, so each goes before the
    server-only item it meets: the new items first, then the live ones), or names every live item
    (no server-only item is left to interleave: the patch's order)."""
    wanted = []
    for item in patch:
        value = item.get(key, DELETE)
        if type(value) not in _KEY_TYPES:
            return None
        wanted.append(value)
    if len(set(wanted)) != len(wanted):
        return None
    positions: dict[Any, int] = {}
    live, marked = len(result), False
    try:
        for i, old in enumerate(result):
            if isinstance(old, dict):
                positions.setdefault(old.get(key), i)
                marked = marked or "$patch" in old  # normalize moves such live items last
    except TypeError:  # an unhashable key in the original: leave it to the general path
        return None
    last, increasing, named = -1, True, 0
    for item, value in zip(patch, wanted, strict=True):
        index = positions.get(value)
        if index is None:
            result.append(_strip(item))
        else:
            result[index] = _merge_map(result[index], item, field)
            increasing = increasing and index > last
            last, named = index, named + 1
    if len(positions) != live or marked:
        return result, False
    if len(result) == live:
        return result, increasing
    if last < 0:
        return result[live:] + result[:live], True
    if named == live:  # no server-only item: the patch's order is the order (the kubelet's first write)
        added = iter(result[live:])
        return [result[positions[v]] if v in positions else next(added) for v in wanted], True
    return result, False


def _set_element_order(result: dict[str, Any], original: Any, patch: dict[str, Any], parent: str,
                       field: str, order: Any) -> None:
    """``$setElementOrder/<field>`` (upstream ``mergePatchIntoOriginal``): the merged list in the
    directive's order, live items it does not name before it; ``$deleteFromPrimitiveList/<field>``
    applies after."""
    live = original.get(field) if isinstance(original, dict) else None
    for value in (order, live, patch.get(field, [])):  # upstream's ErrBadArgType (a 500) for a non-list
        if not isinstance(value, list) and (value is not None or value is order or field in patch):
            got = _GO_TYPES.get(type(value), "nil")
            raise InternalError(f"expected a []interface {{}}, but received a {got}")
    key = merge_key(parent, field)
    check_set_order(patch.get(field) or [], order, key,
                    lambda item: no_merge_key(item, key or ""))
    if live is None and field not in patch:
        return
    # (the patch's list was merged into result[field] above; without it, live is a list: not returned)
    merged: list[Any] = result[field] if field in patch else list(live or ())
    if live is not None and field in patch:
        merged = _merge_list(live, patch[field], parent, field)
    result[field] = normalize(merged, order, live or [], key)
    deletions = patch.get(f"$deleteFromPrimitiveList/{field}")
    if isinstance(deletions, list):
        result[field] = [x for x in result[field] if x not in deletions]


def merge_map(original: Any, patch: dict[str, Any], parent: str) -> Any:
    """Merge ``patch`` into the map ``original`` (neither is mutated), which is the value of the field
    ``parent`` (``""``: the object itself): the merged map, or :data:`DELETE`."""
    return _merge_map(original, patch, parent)


def apply_strategic_patch(original: dict[str, Any], patch: Any, *,
                          rooted: dict[str, str] | None = None) -> dict[str, Any]:
    """Merge ``patch`` into ``original`` (neither is mutated). ``rooted``: the object's kind's
    :func:`roots`."""
    if not isinstance(patch, dict):
        raise BadRequest("strategic merge patch must be a JSON object")
    merged = _merge_map(original, patch, "", rooted)
    return {} if merged is DELETE else merged
