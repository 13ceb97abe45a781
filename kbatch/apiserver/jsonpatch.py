"""RFC 6902 JSON Patch and RFC 7386 JSON Merge Patch on plain JSON values (dicts, lists, scalars).

Both return a new document and never mutate their inputs. Errors: a malformed patch document is
``BadRequest``; an operation that cannot be applied (missing path, failed ``test``, an unknown ``op``)
is the 422 kube-apiserver answers (``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go``,
``jsonPatcher.applyJSPatch``: ``NewGenericServerResponse(422, …)`` of json-patch's ``Apply`` error,
which keeps only the generic message, reason ``Invalid`` and empty details: the library's words
naming the operation and path are not in the answer, so kbatch's are not either).
"""

from __future__ import annotations

import copy
from typing import Any

from kbatch.api.errors import BadRequest, Invalid, StatusDetails

__all__ = ["NotApplied", "TestFailed", "apply_json_patch", "apply_merge_patch"]

_MISSING = object()


_IMMUTABLE = (str, int, float, bool, type(None))


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: objects merge recursively, ``null`` deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch if type(patch) in _IMMUTABLE else copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result


def _pointer(path: Any) -> list[str]:
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise BadRequest(f"invalid JSON pointer: {path!r}")
    if path == "":
        return []
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


_NOT_APPLIED = "the server rejected our request due to an error in our request"


class NotApplied(Invalid):
    """The answer to an operation that does not apply. ``why`` says which and where: the PATCH verb's
    answer leaves it out, as upstream drops json-patch's message (module docstring), while
    MutatingAdmissionPolicy's error keeps it (``JSON Patch: <why>``)."""

    def __init__(self, why: str) -> None:
        super().__init__(_NOT_APPLIED, details=StatusDetails())
        self.why = why


class TestFailed(NotApplied):
    """A ``test`` operation that does not hold (json-patch's ``ErrTestFailed``)."""

    __test__ = False  # not a pytest test class


def _fail(why: str) -> Invalid:
    return NotApplied(why)


def _index(container: list[Any], token: str, *, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token.startswith("0")):
        raise _fail(f"invalid array index: {token}")
    index = int(token)
    if index > len(container) or (index == len(container) and not allow_end):
        raise _fail(f"array index out of bounds: {index}")
    return index


def _parent(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens[:-1]:
        if isinstance(node, dict):
            if token not in node:
                raise _fail(f"path not found: /{'/'.join(tokens)}")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, allow_end=False)]
        else:
            raise _fail(f"path not found: /{'/'.join(tokens)}")
    return node


def _get(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        return doc
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise _fail(f"path not found: /{'/'.join(tokens)}")
        return parent[last]
    if isinstance(parent, list):
        return parent[_index(parent, last, allow_end=False)]
    raise _fail(f"path not found: /{'/'.join(tokens)}")


def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, allow_end=True), value)
    else:
        raise _fail(f"path not found: /{'/'.join(tokens)}")
    return doc


def _remove(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise _fail("cannot remove the whole document")
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise _fail(f"unable to remove nonexistent key: {last}: missing value")
        del parent[last]
    elif isinstance(parent, list):
        del parent[_index(parent, last, allow_end=False)]
    else:
        raise _fail(f"path not found: /{'/'.join(tokens)}")
    return doc


def _same_json(current: Any, wanted: Any) -> bool:
    """Whether a ``test`` value matches, as json-patch v4's ``lazyNode.equal`` (v4.13.0, the version
    k8s.io/apiserver uses): objects and arrays member by member, scalars by their compacted JSON
    text, so ``true`` is not ``1`` nor ``false`` ``0`` (Python's ``==`` says they are). Deliberate
    difference: numbers compare by value, since the patch arrives parsed and ``1.0``'s literal
    (which Go's byte comparison tells from the object's ``1``) is gone."""
    if isinstance(current, dict) and isinstance(wanted, dict):
        return current.keys() == wanted.keys() and all(_same_json(v, wanted[k]) for k, v in current.items())
    if isinstance(current, list) and isinstance(wanted, list):
        return len(current) == len(wanted) and all(map(_same_json, current, wanted))
    if isinstance(current, (dict, list)) or isinstance(wanted, (dict, list)):
        return False
    return isinstance(current, bool) == isinstance(wanted, bool) and bool(current == wanted)


def _operation(doc: Any, op: dict[str, Any]) -> Any:
    kind = op.get("op")
    tokens = _pointer(op.get("path"))
    value = op.get("value", _MISSING)
    if kind in ("add", "replace", "test") and value is _MISSING:
        raise BadRequest(f'missing value for "{kind}" operation')
    if kind == "add":
        return _add(doc, tokens, copy.deepcopy(value))
    if kind == "remove":
        return _remove(doc, tokens)
    if kind == "replace":
        if tokens and isinstance(_parent(doc, tokens), dict):
            # json-patch v4 (the version k8s.io/apiserver uses): ``replace`` looks a map key up with
            # partialDoc.get, which has no "missing" answer, so a missing key is set, not refused
            # (upstream's MutatingAdmissionPolicy test "jsonPatch replace key in map" relies on it)
            return _add(doc, tokens, copy.deepcopy(value))
        _get(doc, tokens)
        return _add(_remove(doc, tokens), tokens, copy.deepcopy(value)) if tokens else copy.deepcopy(value)
    if kind == "test":
        if not _same_json(_get(doc, tokens), value):
            raise TestFailed(f"testing value /{'/'.join(tokens)} failed: test failed")
        return doc
    if kind in ("move", "copy"):
        source = _pointer(op.get("from"))
        moved = copy.deepcopy(_get(doc, source))
        if kind == "move":
            if tokens[:len(source)] == source and len(tokens) > len(source):
                raise _fail("cannot move a value into one of its children")
            doc = _remove(doc, source)
        return _add(doc, tokens, moved)
    raise _fail(f"unexpected operation kind: {kind!r}")  # json-patch's Apply, not DecodePatch, refuses it


def apply_json_patch(doc: Any, patch: Any) -> Any:
    """RFC 6902: apply every operation in order, all or nothing (works on a deep copy)."""
    if not isinstance(patch, list) or not all(isinstance(op, dict) for op in patch):
        raise BadRequest("json patch must be a list of operation objects")
    result = copy.deepcopy(doc)
    for op in patch:
        result = _operation(result, op)
    return result
