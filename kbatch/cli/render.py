"""Printing as kubectl prints: tables, ``-o yaml|json|name``, and the List envelope.

* Tables: upper-cased column names, ``priority > 0`` columns only with ``-o wide``, a leading
  NAMESPACE column with ``-A``; cells aligned as Go's tabwriter does with kubectl's settings
  (k8s.io/cli-runtime ``pkg/printers/tabwriter.go``: min width 6, padding 3).
* ``-o json``: keys sorted, 4-space indent (kubectl prints unstructured objects); several objects,
  or a list request, become ``{"apiVersion": "v1", "kind": "List", "items": [...]}``.
* ``-o name``: ``job.batch/pi``, ``pod/pi-abcde``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

__all__ = ["as_list", "format_table", "render_json", "render_name", "render_yaml"]


def _cell(value: Any) -> str:
    # A null cell (a custom resource's printer column whose JSONPath found nothing: apiextensions
    # ``tableconvertor.go`` appends nil) prints nothing, as kubectl's ``printTable`` writes a cell
    # only when it is non-nil (k8s.io/cli-runtime ``pkg/printers/tableprinter.go``). Built-in
    # printers spell out their own ``<none>``.
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def format_table(table: dict[str, Any], *, wide: bool = False, with_namespace: bool = False,
                 headers: bool = True) -> str:
    """Render a ``Table`` dict; returns text without a trailing newline ('' for no rows)."""
    columns = table.get("columnDefinitions") or []
    keep = [i for i, c in enumerate(columns) if wide or not c.get("priority")]
    lines: list[list[str]] = []
    if headers:
        head = [columns[i]["name"].upper() for i in keep]
        lines.append((["NAMESPACE"] if with_namespace else []) + head)
    for row in table.get("rows") or []:
        cells = row.get("cells") or []
        line = [_cell(cells[i]) if i < len(cells) else "" for i in keep]
        if with_namespace:
            line.insert(0, ((row.get("object") or {}).get("metadata") or {}).get("namespace", ""))
        lines.append(line)
    if not lines or (headers and len(lines) == 1 and not table.get("rows")):
        return ""
    return align(lines)


def align(lines: Sequence[Sequence[str]], *, strip: bool = True) -> str:
    """Go tabwriter (minwidth 6, padding 3, last column unpadded); ``strip`` cuts the padding a line
    ends with when its last cells are empty, which Go's tabwriter keeps (``kubectl api-resources -o
    wide`` keeps it after VERBS when CATEGORIES is empty)."""
    count = max(len(line) for line in lines)
    widths = [max(6, max((len(line[i]) for line in lines if i < len(line)), default=0) + 3)
              for i in range(count)]
    out = []
    for line in lines:
        parts = [cell.ljust(widths[i]) if i < len(line) - 1 else cell for i, cell in enumerate(line)]
        text = "".join(parts)
        out.append(text.rstrip() if strip else text)
    return "\n".join(out)


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    """kubectl's envelope for several objects (also used when a list matches nothing)."""
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def render_json(obj: dict[str, Any], zeros: bool = True) -> str:
    """kubectl's ``-o json``; unset by-value structs and times print as Go writes them
    (:mod:`kbatch.api.wire_zeros`) unless ``zeros`` is off: an object kubectl never had the server
    encode (``--local``) prints as read."""
    from kbatch.api.wire_zeros import with_wire_zeros  # kbatch.api is kept off the CLI's start-up

    return json.dumps(with_wire_zeros(obj) if zeros else obj, indent=4, sort_keys=True, ensure_ascii=False)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def render_yaml(obj: dict[str, Any], zeros: bool = True) -> str:
    """kubectl's ``-o yaml``: sorted keys, block style, strings styled as go-yaml styles them
    (:mod:`kbatch.cli.yaml_style`). Deliberately unlike kubectl, long scalars stay on one line:
    go-yaml folds them at 80 columns, ruamel's emitter would also move a long unbreakable word
    onto a line of its own, which go-yaml does not. Unset by-value structs and times print as Go
    writes them (:mod:`kbatch.api.wire_zeros`) unless ``zeros`` is off (``--local``: as read)."""
    from ruamel.yaml import YAML  # only for -o yaml: kept off every other command's start-up

    from kbatch.api.wire_zeros import with_wire_zeros
    from kbatch.cli.yaml_style import style_for

    def represent_str(representer: Any, text: str) -> Any:
        style = style_for(text)
        if style is None:
            return representer.represent_str(text)
        return representer.represent_scalar("tag:yaml.org,2002:str", text, style=style)

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 4096
    yaml.representer.add_representer(str, represent_str)
    out = io.StringIO()
    yaml.dump(_sorted(with_wire_zeros(obj) if zeros else obj), out)
    return out.getvalue().rstrip("\n")


def render_name(obj: dict[str, Any]) -> str:
    """kubectl's name printer (cli-runtime ``pkg/printers/name.go``): ``kind.group/name``, the name
    ``<unknown>`` when the object has none (a review: ``subjectaccessreview.authorization.k8s.io/<unknown>
    created``, as kubectl prints it)."""
    kind = (obj.get("kind") or "").lower()
    group = (obj.get("apiVersion") or "").rpartition("/")[0]
    resource = f"{kind}.{group}" if group else kind
    return f"{resource}/{(obj.get('metadata') or {}).get('name') or '<unknown>'}"
