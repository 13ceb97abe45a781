"""Cases of upstream's strategic-merge-patch tables, ported one by one (k8s.io/apimachinery at
commit eed236ce, the 1.37 tree, ``pkg/util/strategicpatch/patch_test.go``: the YAML tables
``customStrategicMergePatchTestCaseData`` (TestCustomStrategicMergePatch) and
``createStrategicMergePatchTestCaseData`` (TestStrategicMergePatch)). kbatch applies patches; it
does not compute them, so each case is its application half: ``original`` + ``twoWay`` →
``modified`` and ``current`` + ``threeWay`` → ``result``.

Upstream's cases use a test schema; they are translated to fields of real kinds with the same
patch strategy, in a pod's ``spec``: ``mergingList`` (merge on ``name``) → ``containers``,
``mergingIntList`` (merged primitive list) → ``finalizers``, ``retainKeysMergingList`` (merge on
``name``, retainKeys) → ``volumes``, ``nonMergingList``/``nonMergingIntList`` (atomic) →
``tolerations``/``args``; other keys (``name``, ``value``, ``simpleMap``, ``retainKeysMap``) are
plain map fields. Expected values drop ``null`` map entries: upstream compares after decoding into
its test struct, where a ``null`` field is an absent one.

Not translated: cases using ``mergeItemPtr``, ``replacingItem`` (``patchStrategy:"replace"``) and
``jsonItem`` (no field of a kbatch kind has those strategies), and the raw Go-literal tables
(``customStrategicMergePatchRawTestCases``, ``strategicMergePatchRawTestCases``), whose cases
mostly exercise patch *creation* and ``$setElementOrder`` computation.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import InternalError
from kbatch.apiserver.strategic import apply_strategic_patch

CASES = [
    ('custom: unique scalars when merging lists (twoWay)',
     {'finalizers': [1, 2]},
     {'finalizers': [2, 3]},
     {'finalizers': [1, 2, 3]}),
    ('custom: delete map from nested map (twoWay)',
     {'simpleMap': {'key1': 1, 'key2': 1}},
     {'simpleMap': {'$patch': 'delete'}},
     {'simpleMap': {}}),
    ('custom: delete all items from merging list (twoWay)',
     {'containers': [{'name': 1}, {'name': 2}]},
     {'containers': [{'$patch': 'replace'}]},
     {'containers': []}),
    ('custom: merge empty merging lists (twoWay)',
     {'containers': []},
     {'containers': []},
     {'containers': []}),
    ('custom: delete all keys from map (twoWay)',
     {'name': 1, 'value': 1},
     {'$patch': 'replace'},
     {}),
    ('custom: add key and delete all keys from map (twoWay)',
     {'name': 1, 'value': 1},
     {'other': 'a', '$patch': 'replace'},
     {'other': 'a'}),
    ('custom: delete all duplicate entries in a merging list (twoWay)',
     {'containers': [{'name': 1}, {'name': 1}, {'name': 2, 'value': 'a'}, {'name': 3}, {'name': 3}]},
     {'containers': [{'name': 1, '$patch': 'delete'}, {'name': 3, '$patch': 'delete'}]},
     {'containers': [{'name': 2, 'value': 'a'}]}),
    ('custom: retainKeys map can add a field when no retainKeys directive present (twoWay)',
     {'retainKeysMap': {'name': 'foo'}},
     {'retainKeysMap': {'value': 'bar'}},
     {'retainKeysMap': {'name': 'foo', 'value': 'bar'}}),
    ('custom: retainKeys map can change a field when no retainKeys directive present (twoWay)',
     {'retainKeysMap': {'name': 'foo', 'value': 'a'}},
     {'retainKeysMap': {'value': 'b'}},
     {'retainKeysMap': {'name': 'foo', 'value': 'b'}}),
    ('custom: retainKeys map can delete a field when no retainKeys directive present (twoWay)',
     {'retainKeysMap': {'name': 'foo', 'value': 'a'}},
     {'retainKeysMap': {'value': None}},
     {'retainKeysMap': {'name': 'foo'}}),
    ('custom: retainKeys map merge an empty map (twoWay)',
     {'retainKeysMap': {'name': 'foo', 'value': 'a'}},
     {'retainKeysMap': {}},
     {'retainKeysMap': {'name': 'foo', 'value': 'a'}}),
    ('custom: retainKeys list can add a field when no retainKeys directive present (twoWay)',
     {'volumes': [{'name': 'bar'}, {'name': 'foo'}]},
     {'volumes': [{'name': 'foo', 'value': 'a'}]},
     {'volumes': [{'name': 'bar'}, {'name': 'foo', 'value': 'a'}]}),
    ('custom: retainKeys list can change a field when no retainKeys directive present (twoWay)',
     {'volumes': [{'name': 'bar'}, {'name': 'foo', 'value': 'a'}]},
     {'volumes': [{'name': 'foo', 'value': 'b'}]},
     {'volumes': [{'name': 'bar'}, {'name': 'foo', 'value': 'b'}]}),
    ('custom: retainKeys list can delete a field when no retainKeys directive present (twoWay)',
     {'volumes': [{'name': 'bar'}, {'name': 'foo', 'value': 'a'}]},
     {'volumes': [{'name': 'foo', 'value': None}]},
     {'volumes': [{'name': 'bar'}, {'name': 'foo'}]}),
    ('custom: preserve the order from the patch in a merging list (twoWay)',
     {'containers': [{'name': 1}, {'name': 2, 'value': 'b'}, {'name': 3}]},
     {'containers': [{'name': 3, 'value': 'c'}, {'name': 1, 'value': 'a'}, {'name': 2, 'other': 'x'}]},
     {'containers': [{'name': 3, 'value': 'c'}, {'name': 1, 'value': 'a'},
                     {'name': 2, 'value': 'b', 'other': 'x'}]}),
    ('custom: preserve the order from the patch in a merging list 2 (twoWay)',
     {'containers': [{'name': 1}, {'name': 2, 'value': 'b'}, {'name': 3}]},
     {'containers': [{'name': 3, 'value': 'c'}, {'name': 1, 'value': 'a'}]},
     {'containers': [{'name': 2, 'value': 'b'}, {'name': 3, 'value': 'c'}, {'name': 1, 'value': 'a'}]}),
    ('custom: preserve the order from the patch in a merging int list (twoWay)',
     {'finalizers': [1, 2, 3]},
     {'finalizers': [3, 1, 2]},
     {'finalizers': [3, 1, 2]}),
    ('custom: preserve the order from the patch in a merging int list (twoWay)',
     {'finalizers': [1, 2, 3]},
     {'finalizers': [3, 1]},
     {'finalizers': [2, 3, 1]}),
    ('create: nil original (twoWay)',
     {},
     {'name': 1, 'value': 1},
     {'name': 1, 'value': 1}),
    ('create: nil original (threeWay)',
     {'name': 1, 'other': 'a'},
     {'value': 1},
     {'name': 1, 'value': 1, 'other': 'a'}),
    ('create: nil patch (twoWay)',
     {'name': 1},
     {},
     {'name': 1}),
    ('create: nil patch (threeWay)',
     {'name': 1},
     {},
     {'name': 1}),
    ('create: add field to map (twoWay)',
     {'name': 1},
     {'value': 1},
     {'name': 1, 'value': 1}),
    ('create: add field to map (threeWay)',
     {'name': 1, 'other': 'a'},
     {'value': 1},
     {'name': 1, 'value': 1, 'other': 'a'}),
    ('create: add field to map with conflict (twoWay)',
     {'name': 1},
     {'value': 1},
     {'name': 1, 'value': 1}),
    ('create: add field to map with conflict (threeWay)',
     {'name': 'a', 'other': 'a'},
     {'name': 1, 'value': 1},
     {'name': 1, 'value': 1, 'other': 'a'}),
    ('create: add field and delete field from map (twoWay)',
     {'name': 1},
     {'name': None, 'value': 1},
     {'value': 1}),
    ('create: add field and delete field from map (threeWay)',
     {'name': 1, 'other': 'a'},
     {'name': None, 'value': 1},
     {'value': 1, 'other': 'a'}),
    ('create: add field and delete field from map with conflict (twoWay)',
     {'name': 1},
     {'name': None, 'value': 1},
     {'value': 1}),
    ('create: add field and delete field from map with conflict (threeWay)',
     {'name': 'a', 'other': 'a'},
     {'name': None, 'value': 1},
     {'value': 1, 'other': 'a'}),
    ('create: delete field from nested map (twoWay)',
     {'simpleMap': {'key1': 1, 'key2': 1}},
     {'simpleMap': {'key2': None}},
     {'simpleMap': {'key1': 1}}),
    ('create: delete field from nested map (threeWay)',
     {'simpleMap': {'key1': 1, 'key2': 1, 'other': 'a'}},
     {'simpleMap': {'key2': None}},
     {'simpleMap': {'key1': 1, 'other': 'a'}}),
    ('create: delete field from nested map with conflict (twoWay)',
     {'simpleMap': {'key1': 1, 'key2': 1}},
     {'simpleMap': {'key2': None}},
     {'simpleMap': {'key1': 1}}),
    ('create: delete field from nested map with conflict (threeWay)',
     {'simpleMap': {'key1': 'a', 'key2': 1, 'other': 'a'}},
     {'simpleMap': {'key1': 1, 'key2': None}},
     {'simpleMap': {'key1': 1, 'other': 'a'}}),
    ('create: delete all fields from map (twoWay)',
     {'name': 1, 'value': 1},
     {'name': None, 'value': None},
     {}),
    ('create: delete all fields from map (threeWay)',
     {'name': 1, 'value': 1, 'other': 'a'},
     {'name': None, 'value': None},
     {'other': 'a'}),
    ('create: delete all fields from map with conflict (twoWay)',
     {'name': 1, 'value': 1},
     {'name': None, 'value': None},
     {}),
    ('create: delete all fields from map with conflict (threeWay)',
     {'name': 1, 'value': 'a', 'other': 'a'},
     {'name': None, 'value': None},
     {'other': 'a'}),
    ('create: add field and delete all fields from map (twoWay)',
     {'name': 1, 'value': 1},
     {'name': None, 'value': None, 'other': 'a'},
     {'other': 'a'}),
    ('create: add field and delete all fields from map (threeWay)',
     {'name': 1, 'value': 1, 'other': 'a'},
     {'name': None, 'value': None},
     {'other': 'a'}),
    ('create: add field and delete all fields from map with conflict (twoWay)',
     {'name': 1, 'value': 1},
     {'name': None, 'value': None, 'other': 'a'},
     {'other': 'a'}),
    ('create: add field and delete all fields from map with conflict (threeWay)',
     {'name': 1, 'value': 1, 'other': 'b'},
     {'name': None, 'value': None, 'other': 'a'},
     {'other': 'a'}),
    ('create: replace list of scalars (twoWay)',
     {'args': [1, 2]},
     {'args': [2, 3]},
     {'args': [2, 3]}),
    ('create: replace list of scalars (threeWay)',
     {'args': [1, 2]},
     {'args': [2, 3]},
     {'args': [2, 3]}),
    ('create: replace list of scalars with conflict (twoWay)',
     {'args': [1, 2]},
     {'args': [2, 3]},
     {'args': [2, 3]}),
    ('create: replace list of scalars with conflict (threeWay)',
     {'args': [1, 4]},
     {'args': [2, 3]},
     {'args': [2, 3]}),
    ('create: delete all maps from merging list (twoWay)',
     {'containers': [{'name': 1}, {'name': 2}]},
     {'containers': [{'name': 1, '$patch': 'delete'}, {'name': 2, '$patch': 'delete'}]},
     {'containers': []}),
    ('create: delete all maps from merging list (threeWay)',
     {'containers': [{'name': 1}, {'name': 2}]},
     {'containers': [{'name': 1, '$patch': 'delete'}, {'name': 2, '$patch': 'delete'}]},
     {'containers': []}),
    ('create: delete all maps from merging list with conflict (twoWay)',
     {'containers': [{'name': 1}, {'name': 2}]},
     {'containers': [{'name': 1, '$patch': 'delete'}, {'name': 2, '$patch': 'delete'}]},
     {'containers': []}),
    ('create: delete all maps from merging list with conflict (threeWay)',
     {'containers': [{'name': 1, 'other': 'a'}, {'name': 2, 'other': 'b'}]},
     {'containers': [{'name': 1, '$patch': 'delete'}, {'name': 2, '$patch': 'delete'}]},
     {'containers': []}),
    ('create: delete all maps from empty merging list (twoWay)',
     {'containers': [{'name': 1}, {'name': 2}]},
     {'containers': [{'name': 1, '$patch': 'delete'}, {'name': 2, '$patch': 'delete'}]},
     {'containers': []}),
    ('create: delete all maps from empty merging list (threeWay)',
     {'containers': []},
     {'containers': [{'name': 1, '$patch': 'delete'}, {'name': 2, '$patch': 'delete'}]},
     {'containers': []}),
    ('create: merge empty merging lists (twoWay)',
     {'containers': []},
     {},
     {'containers': []}),
    ('create: merge empty merging lists (threeWay)',
     {'containers': []},
     {},
     {'containers': []}),
    ('create: defined null values should propagate overwrite current fields (with conflict) (twoWay)',
     {'name': 2},
     {'name': 1, 'value': 1, 'other': None},
     {'name': 1, 'value': 1}),
    ('create: defined null values should propagate overwrite current fields (with conflict) (threeWay)',
     {'name': 'a', 'other': 'a'},
     {'name': 1, 'value': 1, 'other': None},
     {'name': 1, 'value': 1}),
    ('create: defined null values should propagate removing original fields (twoWay)',
     {'name': 'original-name', 'value': 'original-value'},
     {'name': 'modified-name', 'value': None},
     {'name': 'modified-name'}),
    ('create: defined null values should propagate removing original fields (threeWay)',
     {'name': 'original-name', 'value': 'original-value', 'other': 'current-other'},
     {'name': 'modified-name', 'value': None},
     {'name': 'modified-name', 'other': 'current-other'}),
    ('create: nil patch with retainKeys map (twoWay)',
     {'name': 'a', 'retainKeysMap': {'name': 'foo'}},
     {},
     {'name': 'a', 'retainKeysMap': {'name': 'foo'}}),
    ('create: nil patch with retainKeys map (threeWay)',
     {'name': 'a', 'value': 'b', 'retainKeysMap': {'name': 'foo'}},
     {},
     {'name': 'a', 'value': 'b', 'retainKeysMap': {'name': 'foo'}}),
    ('create: retainKeys map with no change should not be present (twoWay)',
     {'name': 'a', 'retainKeysMap': {'name': 'foo'}},
     {'value': 'b'},
     {'name': 'a', 'value': 'b', 'retainKeysMap': {'name': 'foo'}}),
    ('create: retainKeys map with no change should not be present (threeWay)',
     {'name': 'a', 'other': 'c', 'retainKeysMap': {'name': 'foo'}},
     {'value': 'b'},
     {'name': 'a', 'value': 'b', 'other': 'c', 'retainKeysMap': {'name': 'foo'}}),
]


@pytest.mark.parametrize(("original", "patch", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_strategic_merge_patch(original: dict[str, Any], patch: dict[str, Any],
                               expected: dict[str, Any]) -> None:
    # the fields sit in a pod's spec, where their strategies are (strategic_keys.json)
    assert apply_strategic_patch({"spec": original}, {"spec": patch}) == {"spec": expected}


def test_delete_directive_empties_a_map_that_is_there() -> None:
    # handleDirectiveInMergeMap (patch.go): "$patch: delete" returns an empty map, which replaces
    # the original's map; upstream's "delete map from nested map" case (custom table) expects {}
    original = {"spec": {"securityContext": {"runAsUser": 1}}}
    patch = {"spec": {"securityContext": {"$patch": "delete"}}}
    assert apply_strategic_patch(original, patch) == {"spec": {"securityContext": {}}}


@pytest.mark.parametrize("directive", ["delete", "replace"])
def test_directive_map_with_nothing_under_it_is_dropped(directive: str) -> None:
    # mergeMap: a key the original lacks takes removeDirectives(patch value), which keeps nothing
    # of a map that carries "$patch"
    patch = {"spec": {"securityContext": {"$patch": directive, "runAsUser": 1}}}
    assert apply_strategic_patch({"spec": {}}, patch) == {"spec": {}}
    assert apply_strategic_patch({"spec": {"securityContext": "x"}}, patch) == {"spec": {}}


# -- directives upstream refuses (no row of patch_test.go; the functions are cited) -------------------
@pytest.mark.parametrize(("patch", "message"), [
    # handleDirectiveInMergeMap: neither replace nor delete, null included, is ErrBadPatchType
    ({"spec": {"securityContext": {"$patch": None, "runAsUser": 1}}},
     "unknown patch type: %!s(<nil>) in map: map[$patch:<nil> runAsUser:1]"),
    ({"spec": {"securityContext": {"$patch": "merge"}}},
     "unknown patch type: merge in map: map[$patch:merge]"),
    ({"$patch": None}, "unknown patch type: %!s(<nil>) in map: map[$patch:<nil>]"),
    ({"spec": {"securityContext": {"$patch": True}}},
     "unknown patch type: %!s(bool=true) in map: map[$patch:true]"),
    # mergeSliceWithSpecialElements: the same error for a list item
    ({"spec": {"containers": [{"name": "a", "$patch": None}]}},
     "unknown patch type: %!s(<nil>) in map: map[$patch:<nil> name:a]"),
    ({"spec": {"containers": [{"name": "a", "$patch": "merge"}]}},
     "merging lists cannot yet be specified in the patch"),
])
def test_an_unknown_patch_directive_is_err_bad_patch_type(patch: dict[str, Any], message: str) -> None:
    """k8s.io/apimachinery 1.37 ``strategicpatch/patch.go`` → ``mergepatch.ErrBadPatchType``
    (``unknown patch type: %s in map: %v``), which ``interpretStrategicMergePatchError`` passes on
    and ``ErrorToAPIStatus`` answers with a 500 (k8s.io/apiserver ``handlers/patch.go``,
    ``responsewriters/status.go``)."""
    original = {"spec": {"securityContext": {"runAsUser": 2}, "containers": [{"name": "a", "image": "x"}]}}
    with pytest.raises(InternalError) as err:
        apply_strategic_patch(original, patch)
    assert err.value.status.code == 500 and err.value.message == message


def test_missing_merge_key_should_error_out() -> None:
    """``strategicMergePatchRawTestCases`` "missing merge key should error out" (patch_test.go):
    ``mergepatch.ErrNoMergeKey`` (``map: %v does not contain declared merge key: %s``), which the API
    server passes on as a 500, as ErrBadPatchType."""
    original = {"spec": {"containers": [{"name": 1, "value": "a"}]}}
    with pytest.raises(InternalError) as err:
        apply_strategic_patch(original, {"spec": {"containers": [{"value": "b"}]}})
    assert err.value.message == "map: map[value:b] does not contain declared merge key: name"
    with pytest.raises(InternalError) as err:
        apply_strategic_patch(original, {"spec": {"containers": [{"value": "b", "$patch": "delete"}]}})
    assert err.value.message == "map: map[$patch:delete value:b] does not contain declared merge key: name"
