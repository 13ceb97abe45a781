"""An applied configuration with fields its kind does not declare.

Server-side apply converts the configuration to a typed value before merging (k8s.io/apimachinery
``pkg/util/managedfields/internal/structuredmerge.go`` ``Apply``: ``ObjectToTyped`` of the patch
object), and structured-merge-diff refuses a field the schema does not declare:
``.spec.foo: field not declared in schema``. That happens before ``fieldValidation`` is looked at
(``handlers/patch.go`` ``applyPatcher`` checks it only after ``Apply``), so an apply with an unknown
field fails whatever the directive, built-in kinds and custom resources alike. The error is a plain
Go error, which ``ErrorToAPIStatus`` answers with a 500 and no reason
(kubectl: ``Error from server: failed to create typed patch object (default/pi; batch/v1,
Kind=Job): .spec.foo: field not declared in schema``; kubernetes/kubernetes#139253 asks for a 400).

Paths are structured-merge-diff's (``fieldpath.Path.String``): an associative list's item by its
keys (``.spec.containers[name="c"].foo``), an atomic list's by index (``[0]``). Several errors are
listed after ``errors:``, one per line (``typed.ValidationErrors``), here in path order (upstream's
walk of a Go map has none).
"""

from __future__ import annotations

import re
from typing import Any

from kbatch.api.errors import StatusError
from kbatch.apiserver.apply.fieldpath import path_string
from kbatch.apiserver.apply.fieldset import list_steps
from kbatch.apiserver.apply.schema import root_container

__all__ = ["UndeclaredFields", "undeclared_fields"]

_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


class UndeclaredFields(StatusError):
    """A Go error ``ErrorToAPIStatus`` does not know: 500, no reason (``StatusReasonUnknown``)."""

    code, reason = 500, ""


def undeclared_fields(doc: dict[str, Any], go_paths: list[str], *, kind: str, group_kind: str,
                      api_version: str, name: str, namespace: str) -> UndeclaredFields:
    """The error for the unknown fields at ``go_paths`` (decoding's ``spec.containers[0].foo``) of the
    merged document ``doc``; ``kind``: the group kind lists are typed by (``Job.batch``)."""
    paths = sorted(_smd_path(doc, p, group_kind) for p in go_paths)
    lines = [f"{p}: field not declared in schema" for p in paths]
    text = lines[0] if len(lines) == 1 else "\n  ".join(["errors:", *lines])
    group, _, version = api_version.rpartition("/")
    return UndeclaredFields(f"failed to create typed patch object ({namespace}/{name}; {group}/{version}, "
                            f"Kind={kind}): {text}")


def _smd_path(doc: dict[str, Any], go_path: str, group_kind: str) -> str:
    """``spec.template.spec.containers[0].foo`` → ``.spec.template.spec.containers[name="c"].foo``,
    walking ``doc`` with the containers :func:`~.fieldset.members` types lists by."""
    out: str = ""
    node: Any = doc
    container, field, child = "", "", ""  # child: the container the current node's fields see
    for index, name in _TOKEN.findall(go_path):
        if name:
            container, field = child, name
            child = root_container(group_kind, name) if not out else name
            out += "." + name
            node = node.get(name) if isinstance(node, dict) else None
            continue
        items: list[Any] = node if isinstance(node, list) else []
        steps = list_steps(container, field, items) if items else None
        i = int(index)
        out += path_string((steps[i],)) if steps is not None else f"[{i}]"
        node, child = (items[i] if i < len(items) else None), field
    return out
