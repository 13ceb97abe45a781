"""Manifests as kubectl reads them: YAML or JSON text, dicts or models in; checked object dicts out.

The one loader of ``kbatch apply/create/delete -f`` and ``ControlPlane.apply``:

* Text is JSON when it parses as JSON (kubectl's ``YAMLOrJSONDecoder``), otherwise YAML read as
  the JSON it stands for (sigs.k8s.io/yaml): a timestamp stays the string it is written as, a
  number or boolean map key becomes its string, a NaN/infinity, a recursive alias or another
  non-JSON value is refused (``error parsing SRC: error converting YAML to JSON: …``), a key
  repeated in one mapping keeps its last value, silently (go-yaml v2 non-strict,
  :mod:`kbatch.apiserver.yaml_duplicates`). Empty documents are skipped.
* A ``List`` (a kind ending in ``List`` with ``items``) contributes its items, recursively.
* Every object is checked as kubectl checks it before sending anything (k8s.io/kubectl
  ``pkg/validation``, cli-runtime's resource builder), so one bad document stops the whole command
  with nothing written:

  - not an object: ``error validating "SRC": error validating data: invalid object to validate``;
  - ``apiVersion`` / ``kind`` missing: ``… apiVersion not set`` / ``kind not set`` (both:
    ``[apiVersion not set, kind not set]``), or not a string: ``… kind isn't string type``;
  - ``metadata`` that does not decode as an ObjectMeta (kubectl decodes it itself):
    ``unable to decode "SRC": json: cannot unmarshal array into Go struct field
    metadataOnlyObject.metadata of type v1.ObjectMeta`` (:mod:`kbatch.apiserver.go_json`).

  kubectl adds ``; if you choose to ignore these errors, turn validation off with
  --validate=false``; kbatch has no ``--validate`` and leaves that out. Everything else (the types
  in ``spec``, unknown fields, values) is the API server's to check, as upstream.

Errors are :class:`ManifestError`, a ``BadRequest`` whose message is kubectl's line without the
``error: `` prefix.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from kbatch.api.base import wire_validate
from kbatch.api.errors import BadRequest
from kbatch.api.meta import ObjectMeta, Resource
from kbatch.apiserver.go_json import cannot_unmarshal, type_error

__all__ = ["ManifestError", "Manifests", "YamlError", "check_object", "load_manifests", "parse_documents",
           "yaml_documents", "yaml_loader"]

Manifest = str | dict[str, Any] | Resource
Manifests = Manifest | Iterable[Manifest]


class ManifestError(BadRequest):
    """A manifest kubectl would refuse before sending it; the message names the source."""


def yaml_loader() -> Any:
    """A ruamel safe loader reading YAML as the JSON it stands for (timestamps stay strings; a
    repeated mapping key keeps its last value, :mod:`kbatch.apiserver.yaml_duplicates`)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import SafeConstructor

    from kbatch.apiserver.yaml_duplicates import LastKeyWins

    class JsonScalars(LastKeyWins):
        pass

    JsonScalars.add_constructor("tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str)
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = JsonScalars
    return yaml


def parse_documents(text: str, source: str = "STDIN") -> list[Any]:
    """The JSON values of the documents in ``text`` (JSON, or YAML with ``---`` separators), empty
    documents left out; not checked."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            return [json.loads(text)]
        except ValueError:
            pass  # YAML's flow style starts the same way
    try:
        return [d for d in yaml_documents(text) if d is not None]
    except YamlError as err:
        raise ManifestError(f"error parsing {source}: {err}") from None


class YamlError(ValueError):
    """YAML that does not parse, or does not stand for JSON; the message is one line."""


def yaml_documents(text: str) -> list[Any]:
    """Every document of ``text`` as the JSON value it stands for (``None`` for an empty one)."""
    from ruamel.yaml.error import YAMLError

    try:
        docs = list(yaml_loader().load_all(text))
    except (YAMLError, ValueError, RecursionError) as err:
        raise YamlError(_yaml_problem(err, text)) from None
    return [_json_value(d, ()) for d in docs]


def _yaml_problem(err: Exception, text: str) -> str:
    """One line, as sigs.k8s.io/yaml words it (go-yaml's problem and line numbering,
    :mod:`kbatch.apiserver.yaml_errors`): ``yaml: line 3: mapping values are not allowed in this
    context``."""
    from kbatch.apiserver.yaml_errors import go_yaml_problem

    marked = go_yaml_problem(err, text)
    if marked is not None:
        return f"error converting YAML to JSON: yaml: {marked}"
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return f"error converting YAML to JSON: yaml: {lines[0] if lines else type(err).__name__}"


def _json_value(value: Any, seen: tuple[int, ...]) -> Any:
    """``value`` as a JSON value (sigs.k8s.io/yaml ``convertToJSONableObject``)."""
    if isinstance(value, str | int) or value is None:  # bool is an int
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise _conversion(f"json: unsupported value: {value}")
        return value
    if isinstance(value, dict | list):
        if id(value) in seen:
            raise _conversion("a recursive alias")
        inner = (*seen, id(value))
        if isinstance(value, list):
            return [_json_value(v, inner) for v in value]
        return {_json_key(k): _json_value(v, inner) for k, v in value.items()}
    raise _conversion(f"unsupported value of type {type(value).__name__}")


def _json_key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, str | int | float):
        return str(key)
    raise _conversion(f"unsupported map key of type {type(key).__name__}: {key!r}")


def _conversion(detail: str) -> YamlError:
    return YamlError(f"error converting YAML to JSON: {detail}")


def _expand(doc: Any, source: str) -> list[Any]:
    if isinstance(doc, dict) and isinstance(doc.get("kind"), str) and doc["kind"].endswith("List") \
            and "items" in doc:
        if not isinstance(doc["items"], list):
            raise _invalid(source, "invalid object to validate")
        return [item for entry in doc["items"] for item in _expand(entry, source)]
    return [doc]


def check_object(obj: Any, source: str) -> dict[str, Any]:
    """``obj`` if kubectl would send it (module docstring), else :class:`ManifestError`."""
    if not isinstance(obj, dict):
        raise _invalid(source, "invalid object to validate")
    problems = []
    for name in ("apiVersion", "kind"):
        value = obj.get(name)
        if value is None or value == "":
            problems.append(f"{name} not set")
        elif not isinstance(value, str):
            problems.append(f"{name} isn't string type")
    if problems:
        raise _invalid(source, problems[0] if len(problems) == 1 else f"[{', '.join(problems)}]")
    meta = obj.get("metadata")
    if meta is not None:
        _check_metadata(meta, source)
    return obj


def _invalid(source: str, what: str) -> ManifestError:
    return ManifestError(f'error validating "{source}": error validating data: {what}')


def _check_metadata(meta: Any, source: str) -> None:
    if not isinstance(meta, dict):
        raise _undecodable(source, cannot_unmarshal(meta, "metadataOnlyObject", "metadata", "v1.ObjectMeta"))
    try:
        wire_validate(ObjectMeta, meta)
    except ValidationError as err:
        for error in err.errors(include_url=False):
            text = type_error(ObjectMeta, error, prefix=("metadata",))
            if text:
                raise _undecodable(source, text) from None


def _undecodable(source: str, text: str) -> ManifestError:
    return ManifestError(f'unable to decode "{source}": {text}')


def load_manifests(source: Manifests, name: str = "STDIN") -> list[dict[str, Any]]:
    """Every object of ``source`` (text, a dict, a model, or an iterable of them), in order, as wire
    dicts checked by :func:`check_object`; ``name`` names the source in errors."""
    if isinstance(source, str):
        docs = parse_documents(source, name)
        return [check_object(obj, name) for doc in docs for obj in _expand(doc, name)]
    if isinstance(source, Resource):
        return [source.to_dict()]
    if isinstance(source, dict):
        return [check_object(obj, name) for obj in _expand(source, name)]
    if isinstance(source, Iterable):
        return [obj for part in source for obj in load_manifests(part, name)]
    raise _invalid(name, "invalid object to validate")
