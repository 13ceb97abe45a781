"""kubectl get's output options beyond the table: custom columns, ``--sort-by``, label columns.

* ``-o custom-columns=HEADER:EXPR,…`` (kubectl ``pkg/cmd/get/customcolumn.go``): one column per
  spec, the header as written, each cell the expression's matches printed as Go's ``%v`` and joined
  with ``,`` (``<none>`` for none); expressions are relaxed (``{.a}``, ``.a`` and ``a`` alike).
* ``--sort-by EXPR`` (kubectl ``pkg/cmd/get/sorter.go``): objects ordered by the first match,
  numbers by value, strings byte by byte (``job-10`` < ``job-100`` < ``job-9``: what kubectl v1.32
  prints, checked in tests/server/test_kubectl_parity.py, although upstream's newer sorter.go reads
  as natural order with quantities compared by value); an object without the field sorts first; an
  expression that matches in no object is an error.
* ``-L KEY`` and ``--show-labels`` (cli-runtime ``printers/tableprinter.go``): a column per key,
  headed by the key's last ``/`` segment upper-cased, then ``LABELS`` with ``k=v`` pairs sorted by key.
"""

from __future__ import annotations

import functools
from typing import Any

from kbatch.api.jsonpath import TemplateError, find, go_value, relaxed_expression
from kbatch.cli.render import align

__all__ = ["add_label_columns", "columns_from_file", "custom_columns", "sort_objects"]

Obj = dict[str, Any]


def custom_columns(spec: str, objs: list[Obj], headers: bool = True) -> str:
    """The custom-columns table (text without a trailing newline)."""
    columns = []
    for part in spec.split(","):
        header, sep, expr = part.partition(":")
        if not sep or not header:
            raise TemplateError(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        columns.append((header, relaxed_expression(expr)))
    lines = [[h for h, _ in columns]] if headers else []
    for obj in objs:
        lines.append([",".join(go_value(v) for v in find(path, obj)) or "<none>" for _, path in columns])
    return align(lines) if lines else ""


def columns_from_file(text: str) -> str:
    """``-o custom-columns-file``'s template (kubectl ``NewCustomColumnsPrinterFromTemplate``): a line
    of headers and a line of expressions, both split on whitespace, as the inline spec."""
    lines = text.splitlines()
    usage = ("Expected format is one line of space separated headers, one line of space separated column "
             "specs.")
    if not lines:
        raise TemplateError(f"invalid template, missing header line. {usage}")
    if len(lines) < 2:
        raise TemplateError(f"invalid template, missing spec line. {usage}")
    headers, specs = lines[0].split(), lines[1].split()
    if len(headers) != len(specs):
        raise TemplateError(f"number of headers ({len(headers)}) and field specifications ({len(specs)}) "
                            f"don't match")
    return ",".join(f"{h}:{s}" for h, s in zip(headers, specs, strict=True))


def _less(x: Any, y: Any) -> bool:
    if isinstance(x, str) and isinstance(y, str):
        return x.encode() < y.encode()
    if isinstance(x, int | float) and isinstance(y, int | float) and not isinstance(x, bool):
        return x < y
    return go_value(x) < go_value(y)


def sort_objects(objs: list[Obj], expr: str) -> list[Obj]:
    """``objs`` ordered by ``expr`` (stable); objects without the field first."""
    path = relaxed_expression(expr)
    keys = [(find(path, o) or [None])[0] for o in objs]
    if objs and all(k is None for k in keys):
        raise TemplateError(f'couldn\'t find any field with path "{{{expr.strip("{}")}}}" in the list of '
                            f'objects')

    def compare(a: tuple[int, Any], b: tuple[int, Any]) -> int:
        if a[1] is None or b[1] is None:
            return (b[1] is None) - (a[1] is None) if (a[1] is None) != (b[1] is None) else 0
        return -1 if _less(a[1], b[1]) else 1 if _less(b[1], a[1]) else 0

    indexed: list[tuple[int, Any]] = list(enumerate(keys))
    order = sorted(indexed, key=functools.cmp_to_key(compare))
    return [objs[i] for i, _ in order]


def add_label_columns(table: Obj, objs: list[Obj], label_columns: list[str], show_labels: bool) -> Obj:
    """The table with a column per ``-L`` key and, with ``--show-labels``, a LABELS column."""
    if not label_columns and not show_labels:
        return table
    columns = list(table.get("columnDefinitions") or [])
    columns += [{"name": key.rsplit("/", 1)[-1].upper(), "type": "string", "priority": 0}
                for key in label_columns]
    if show_labels:
        columns.append({"name": "LABELS", "type": "string", "priority": 0})
    rows = []
    for row, obj in zip(table.get("rows") or [], objs, strict=True):
        labels = (obj.get("metadata") or {}).get("labels") or {}
        cells = list(row.get("cells") or []) + [labels.get(key, "") for key in label_columns]
        if show_labels:
            cells.append(",".join(f"{k}={labels[k]}" for k in sorted(labels)) or "<none>")
        rows.append({**row, "cells": cells})
    return {**table, "columnDefinitions": columns, "rows": rows}
