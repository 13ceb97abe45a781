"""One mutation of a MutatingAdmissionPolicy on an object's JSON form: the patched JSON form.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch``:

* ``json_patch.go``: the expression yields a list of ``JSONPatch{op, path, from, value}``; an
  ``Object`` literal as a value must follow its own type path; the value must be JSON; the patch is
  applied as RFC 6902 (kbatch's :mod:`kbatch.apiserver.jsonpatch`); a failing ``test`` operation
  leaves the object as it was, without error; any other failure is ``JSON Patch: <why>``;
* ``smd.go``: the expression yields an ``Object{...}`` apply configuration, merged into the object
  with structured-merge-diff's merge (kbatch's :func:`kbatch.apiserver.apply.merge.merge_object`,
  no field ownership is recorded); a configuration that sets an atomic list, map or struct is refused
  (``may not mutate atomic arrays, maps or structs: <paths>``), lest the user drop the fields left out.

:class:`MutationError` carries upstream's text; the plugin applies the failure policy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kbatch.api.admissionregistration_v1 import Mutation
from kbatch.api.cel.object_literals import TYPE_KEY, LiteralTypeError, plain
from kbatch.api.errors import StatusError
from kbatch.apiserver.admission_plugins.policy_evaluation import evaluate
from kbatch.apiserver.apply.fieldpath import path_string
from kbatch.apiserver.apply.fieldset import list_steps
from kbatch.apiserver.apply.merge import merge_object
from kbatch.apiserver.apply.schema import ATOMIC_MAPS, root_container
from kbatch.apiserver.jsonpatch import NotApplied, TestFailed, apply_json_patch

__all__ = ["MutationError", "apply_mutation", "atomic_paths"]

_JSON_SCALARS = (str, int, float, bool, type(None))


class MutationError(Exception):
    """A mutation that could not be made (upstream's error text)."""


def _json_problem(value: Any) -> str | None:
    """Why ``value`` is not JSON (a library type such as a quantity, bytes, a timestamp), else None."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"map key {key!r} is not a string"
            problem = _json_problem(item)
            if problem:
                return problem
        return None
    if isinstance(value, list):
        return next((p for p in map(_json_problem, value) if p), None)
    return None if isinstance(value, _JSON_SCALARS) else f"unsupported type {type(value).__name__}"


def _sorted_maps(value: Any) -> Any:
    """Maps in key order, as Go's JSON encoder writes them (the CEL runtime's map order is its own)."""
    if isinstance(value, dict):
        return {k: _sorted_maps(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_maps(v) for v in value]
    return value


def _patch_operations(result: Any) -> list[dict[str, Any]]:
    """The RFC 6902 operations of a ``list(JSONPatch)`` result (``evaluatePatchExpression``)."""
    if not isinstance(result, list):
        raise MutationError("type mismatch: JSONPatchType.expression should evaluate to array")
    operations = []
    for item in result:
        if not isinstance(item, dict) or item.get(TYPE_KEY) != "JSONPatch":
            raise MutationError(
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch")
        op: dict[str, Any] = {}
        for name in ("op", "path", "from"):
            text = item.get(name, "")
            if not isinstance(text, str):
                raise MutationError(f"unexpected type {type(text).__name__} for JSONPatchType '{name}' field")
            if text or name != "from":
                op[name] = text
        if item.get("value") is not None:
            value = item["value"]
            tagged = value.get(TYPE_KEY) if isinstance(value, dict) else None
            try:
                value = plain(value, check_root=tagged if isinstance(tagged, str) else None)
            except LiteralTypeError as err:
                raise MutationError(str(err)) from None
            problem = _json_problem(value)
            if problem:
                raise MutationError("JSONPath valueExpression evaluated to a type that could not marshal to "
                                    f"JSON: {problem}")
            op["value"] = _sorted_maps(value)
        operations.append(op)
    return operations


def _json_patch(obj: dict[str, Any], result: Any) -> dict[str, Any]:
    operations = _patch_operations(result)
    try:
        patched = apply_json_patch(obj, operations)
    except TestFailed:
        return obj  # a failed test: the patch is not applied, and that is no error
    except NotApplied as err:
        raise MutationError(f"JSON Patch: {err.why}") from None
    except StatusError as err:  # a malformed operation (bad pointer, missing value)
        raise MutationError(f"JSON Patch: {err.message}") from None
    if not isinstance(patched, dict):
        raise MutationError("JSON Patch: the patched document is not an object")
    return patched


def atomic_paths(config: Mapping[str, Any], kind: str) -> list[str]:
    """The paths of the atomic lists, maps and structs ``config`` sets (``findAtomics``)."""
    return sorted(set(_atomics(config, (), "", "", kind)))


def _atomics(value: Any, path: tuple[str, ...], container: str, name: str, kind: str) -> Iterator[str]:
    if isinstance(value, dict):
        if name in ATOMIC_MAPS:
            yield path_string(path)
            return
        inner = (root_container(kind, name) if len(path) == 1 else name) if name else ""
        for key, item in value.items():
            yield from _atomics(item, (*path, "f:" + key), inner, key, kind)
    elif isinstance(value, list):
        steps = list_steps(container, name, value)
        if steps is None:
            yield path_string(path)
            return
        for i, item in enumerate(value):  # upstream names an item by its index: [0]
            yield from _atomics(item, (*path, f"i:{i}"), "", name, kind)


def _apply_configuration(obj: dict[str, Any], result: Any, kind: str) -> dict[str, Any]:
    tagged = result.get(TYPE_KEY, "map(string, dyn)") if isinstance(result, dict) else type(result).__name__
    if tagged != "Object":
        raise MutationError(f"must evaluate to Object but got {tagged}")
    try:
        config = _sorted_maps(plain(result, check_root="Object"))
    except LiteralTypeError as err:
        raise MutationError(str(err)) from None
    problem = _json_problem(config)
    if problem:
        raise MutationError(
            f"error applying patch: failed to convert patch object to typed object: {problem}")
    atomics = atomic_paths(config, kind)
    if atomics:
        raise MutationError("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, "
                            f"maps or structs: {', '.join(atomics)}")
    return merge_object(obj, config, kind=kind)


def apply_mutation(mutation: Mutation, obj: dict[str, Any], data: Mapping[str, Any], has_params: bool,
                   failed: Mapping[str, str], kind: str) -> dict[str, Any]:
    """``obj`` (the object's JSON form, not mutated) with ``mutation`` applied; ``data``: the
    expressions' variables; ``kind``: the object's group kind (``Job.batch``)."""
    from kbatch.api.cel.admission import Budget, CompileError, EvaluationError

    if mutation.patch_type == "JSONPatch" and mutation.json_patch is not None:
        expression, returns = mutation.json_patch.expression, "list(JSONPatch)"
    elif mutation.patch_type == "ApplyConfiguration" and mutation.apply_configuration is not None:
        expression, returns = mutation.apply_configuration.expression, "Object"
    else:  # validation refuses it; a stored object from before would say so here
        raise MutationError(f"unsupported patchType {mutation.patch_type!r}")
    try:
        # each mutation has a whole RuntimeCELCostBudget (mutating/dispatcher.go patcher.Patch)
        result = evaluate(expression, data, has_params, failed, returns, mutating=True, budget=Budget())
    except (CompileError, EvaluationError) as err:
        raise MutationError(str(err)) from None
    if returns == "Object":
        return _apply_configuration(obj, result, kind)
    return _json_patch(obj, result)
