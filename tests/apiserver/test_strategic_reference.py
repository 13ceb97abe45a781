"""The optimised strategic merge (flat ``_strip``, indexed keyed-list merge) against the straightforward
algorithm it replaced, kept here as the reference: same result, same error, inputs untouched. Merged
lists are put in upstream's order by both (``element_order.normalize``, tested on its own in
``test_strategic_order.py``); ``$setElementOrder`` is left to that test too.

Documents are drawn from a small vocabulary so that merge-keyed lists (``containers`` on ``name``,
``conditions`` on ``type``, ``ports`` on ``containerPort``), ``finalizers``, directives
(``$patch``, ``$retainKeys``, ``$deleteFromPrimitiveList/...``), duplicate
and missing merge keys, non-dict list items and nulls all occur often.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import BadRequest, InternalError
from kbatch.apiserver.element_order import normalize
from kbatch.apiserver.strategic import apply_strategic_patch, merge_key

# --- the reference: the straightforward algorithm, as it stood before the fast paths -----------

_DELETE = object()
_DIRECTIVE_PREFIXES = ("$deleteFromPrimitiveList/", "$setElementOrder/")
_PRIMITIVES = frozenset({"finalizers"})


def _ref_strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _ref_strip(v) for k, v in value.items() if not k.startswith("$") and v is not None}
    if isinstance(value, list):
        return [_ref_strip(v) for v in value if not (isinstance(v, dict) and "$patch" in v)]
    return copy.deepcopy(value)


def _ref_map(original: Any, patch: dict[str, Any], parent: str) -> Any:
    directive = patch.get("$patch")
    if directive == "replace":
        return _ref_strip(patch)
    if directive == "delete":
        return _DELETE
    if "$patch" in patch:  # any other value, null too: ErrBadPatchType, a 500 (changed since)
        raise InternalError(f"unknown patch type: {directive}")
    result = dict(original) if isinstance(original, dict) else {}
    for key, value in patch.items():
        if key.startswith("$deleteFromPrimitiveList/"):
            field = key.split("/", 1)[1]
            if not isinstance(value, list):
                raise BadRequest("invalid patch: $deleteFromPrimitiveList must be a list")
            original_list = result.get(field)
            if original_list is not None and not isinstance(original_list, list):  # fixed since: a 500
                raise InternalError("not a list")
            result[field] = [x for x in original_list or [] if x not in value]
            continue
        if key.startswith(_DIRECTIVE_PREFIXES) or key in ("$patch", "$retainKeys"):
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            if "$patch" in value and not isinstance(result.get(key), dict):
                result.pop(key, None)  # upstream removeDirectives drops a directive map with nothing under it
                continue
            merged = _ref_map(result.get(key), value, key)
            result[key] = {} if merged is _DELETE else merged  # handleDirectiveInMergeMap's empty map
        elif isinstance(value, list):
            result[key] = _ref_list(result.get(key), value, parent, key)
        else:
            result[key] = copy.deepcopy(value)
    retain = patch.get("$retainKeys")
    if retain is not None:
        if not isinstance(retain, list):
            raise BadRequest("invalid patch: $retainKeys must be a list")
        result = {k: v for k, v in result.items() if k in retain}
    return result


def _ref_list(original: Any, patch: list[Any], parent: str, field: str) -> list[Any]:
    original = list(original) if isinstance(original, list) else []
    if any(isinstance(item, dict) and item.get("$patch") == "replace" for item in patch):
        replaced = [_ref_strip(item) for item in patch if not (isinstance(item, dict) and "$patch" in item)]
        key = merge_key(parent, field)
        if field in _PRIMITIVES or key is None or not all(isinstance(item, dict) for item in patch):
            return replaced
        return normalize(replaced, [], replaced, key)
    if field in _PRIMITIVES:
        merged: list[Any] = []
        for value in original + patch:
            if value not in merged:
                merged.append(copy.deepcopy(value))
        return normalize(merged, patch, original, None)
    key = merge_key(parent, field)
    if key is None or not all(isinstance(item, dict) for item in patch):
        return _ref_strip(patch)
    result = list(original)
    for item in patch:  # deletions first (upstream mergeSliceWithSpecialElements)
        directive = item.get("$patch")
        if "$patch" in item and directive != "delete":  # null too: ErrBadPatchType, a 500
            raise InternalError(f"unknown patch type: {directive}")
        if directive == "delete":
            if key not in item:
                raise InternalError(f"map: {item} does not contain declared merge key: {key}")  # a 500
            result = [old for old in result if not (isinstance(old, dict) and old.get(key) == item[key])]
    live = list(result)
    plain = [item for item in patch if "$patch" not in item]
    for item in plain:
        if key not in item:
            raise InternalError(f"map: {item} does not contain declared merge key: {key}")  # a 500
        index = next((i for i, old in enumerate(result)
                      if isinstance(old, dict) and old.get(key) == item[key]), None)
        if index is None:
            result.append(_ref_strip(item))
        else:
            result[index] = _ref_map(result[index], item, field)
    return normalize(result, plain, live, key)


def reference(original: dict[str, Any], patch: Any) -> dict[str, Any]:
    merged = _ref_map(original, patch, "")
    return {} if merged is _DELETE else merged


# --- generated documents ------------------------------------------------------------------------

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(["a", "b", "x"]),
                     st.just(1.0))
_KEYS = st.sampled_from(["name", "type", "containerPort", "image", "status", "value", "spec", "status",
                         "containers", "conditions", "ports", "finalizers", "env", "items",
                         "$patch", "$retainKeys",
                         "$deleteFromPrimitiveList/finalizers", "$other"])
_DIRECTIVES = st.sampled_from(["delete", "replace", "merge", None])


_MERGE_KEYS = ("name", "type", "containerPort")


def _item(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A list item as merge-keyed lists carry: every merge key of the vocabulary (values often
    colliding, rarely odd: null, a float, a list; now and then one missing), sometimes a directive."""
    key_value = st.one_of(st.sampled_from(["a", "b", "c"]), st.integers(1, 3), st.sampled_from(["a", "b"]),
                          st.sampled_from([None, 1.0, True, ["a"]]))  # mostly plain, now and then odd
    plain_keys = _KEYS.filter(lambda k: not k.startswith("$") and k not in _MERGE_KEYS)
    return st.builds(
        lambda values, extra, directive, dropped: {
            **{k: v for k, v in zip(_MERGE_KEYS, values, strict=True) if k != dropped}, **extra,
            **({"$patch": directive} if directive else {})},
        st.tuples(key_value, key_value, key_value), st.dictionaries(plain_keys, children, max_size=2),
        st.one_of(st.none(), st.none(), st.none(), _DIRECTIVES),
        st.one_of(st.none(), st.none(), st.none(), st.none(), st.sampled_from(_MERGE_KEYS)))


def _values() -> st.SearchStrategy[Any]:
    return st.recursive(
        _SCALARS,
        lambda children: st.one_of(
            st.lists(st.one_of(_item(children), _item(children), children), max_size=4),
            st.dictionaries(_KEYS, children, max_size=4),
        ),
        max_leaves=20,
    )


_DOCS = st.dictionaries(_KEYS, _values(), max_size=5)


def _outcome(fn: Any, original: dict[str, Any], patch: Any) -> Any:
    try:
        return ("ok", fn(original, patch))
    except BadRequest as err:
        return ("error", err.message)
    except InternalError:
        return ("internal error",)


@settings(max_examples=400, deadline=None)
@given(original=_DOCS, patch=_DOCS)
def test_fast_strategic_merge_equals_the_reference(original: dict[str, Any], patch: dict[str, Any]) -> None:
    before = (json.dumps(original, sort_keys=True), json.dumps(patch, sort_keys=True))
    fast = _outcome(apply_strategic_patch, original, patch)
    slow = _outcome(reference, original, patch)
    assert fast == slow
    assert (json.dumps(original, sort_keys=True), json.dumps(patch, sort_keys=True)) == before


@settings(max_examples=200, deadline=None)
@given(original=st.lists(_item(_SCALARS), max_size=5), patch=st.lists(_item(_SCALARS), max_size=5),
       field=st.sampled_from(["containers", "conditions", "ports"]))
def test_keyed_lists_merge_as_the_reference(original: list[Any], patch: list[Any], field: str) -> None:
    """Keyed lists alone, nested one level down, where the indexed merge and its fallbacks live."""
    doc, change = {"status": {field: original}}, {"status": {field: patch}}
    assert _outcome(apply_strategic_patch, doc, change) == _outcome(reference, doc, change)


def test_the_result_shares_nothing_with_the_patch() -> None:
    patch = {"status": {"conditions": [{"type": "Ready", "status": "True", "extra": {"a": [1]}}]}}
    merged = apply_strategic_patch({"status": {"conditions": [{"type": "Ready"}]}}, patch)
    merged["status"]["conditions"][0]["extra"]["a"].append(2)
    assert patch["status"]["conditions"][0]["extra"] == {"a": [1]}


def test_a_null_patch_directive_in_a_keyed_list_is_an_unknown_patch_type() -> None:
    """Upstream mergeSliceWithSpecialElements: an item carrying ``$patch`` with any value but delete or
    replace (null included) is ErrBadPatchType; it is not an item to merge."""
    for original in ({}, {"spec": {"containers": [{"name": "a", "image": "x"}]}}):
        with pytest.raises(InternalError, match="unknown patch type"):
            apply_strategic_patch(original, {"spec": {"containers": [{"$patch": None}]}})
