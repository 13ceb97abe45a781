"""``kbatch describe`` of a kind kubectl has no describer for: kubectl's generic page, line for line.

kubectl describes a custom resource (JobSet, Kueue's kinds, the scheduler-plugins PodGroup) and the
built-in kinds without a describer of their own (resource.k8s.io, scheduling.k8s.io Workload and
PodGroup: ``describerMap`` has none) with ``genericDescriber`` (k8s.io/kubectl ``pkg/describe/describe.go``,
read at v0.32.4 and v0.36.3): Name, Namespace, Labels, Annotations, then every field of the object
as a tree (``printUnstructuredContent``: keys sorted, ``metadata``'s managedFields, name, namespace,
labels and annotations left out, a map as an indented block, a list of maps as the maps one after
another, any other value as Go's ``%v`` prints it), field names made readable by ``smartLabelFor``,
then the events. It is one tabwriter (padding 2), so ``Events:  <none>`` lines up with the fields above
it; events that exist are a table of their own (``DescribeEvents`` flushes first).

``smartLabelFor`` is kubectl 1.36's (kubernetes#135683): a run of two or more capitals stays with the
word after it (``respectPDBs`` -> ``Respect PDBs``, ``enableDNSHostnames`` -> ``Enable DNSHostnames``;
kubectl 1.32 prints ``Respect PD Bs``, ``Enable DNS Hostnames``), only all-lower-case words are
title-cased, and ``OSB`` is no longer an acronym.
"""

from __future__ import annotations

from kbatch.api.go_fmt import go_value
from kbatch.api.printing import DescribeReader, Obj
from kbatch.families.core.describe_text import annotation_lines, events_about, map_lines, page_and_events

__all__ = ["generic_page", "go_value", "smart_label", "unstructured_lines"]

_SKIP = (".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels",
         ".metadata.annotations")
_ACRONYMS = ("API", "URL", "UID", "GUID")


def _rune_class(ch: str) -> int:
    """fatih/camelcase's classes: lower case, upper case, digit, anything else."""
    if ch.islower():
        return 1
    if ch.isupper():
        return 2
    if ch.isdigit():
        return 3
    return 4


def camel_split(word: str) -> list[str]:
    """fatih/camelcase ``Split``: runs of one class; an upper-case run hands its last letter to a
    lower-case run after it (``PDFLoader`` -> ``PDF``, ``Loader``)."""
    runs: list[list[str]] = []
    for ch in word:
        if runs and _rune_class(runs[-1][-1]) == _rune_class(ch):
            runs[-1].append(ch)
        else:
            runs.append([ch])
    for i in range(len(runs) - 1):
        if _rune_class(runs[i][0]) == 2 and _rune_class(runs[i + 1][0]) == 1:
            runs[i + 1].insert(0, runs[i].pop())
    return ["".join(run) for run in runs if run]


def _merge_capital_runs(parts: list[str]) -> list[str]:
    merged: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        upper = all(not ch.isalpha() or ch.isupper() for ch in part)
        if i + 1 < len(parts) and len(part) >= 2 and upper and parts[i + 1][:1].isupper():
            merged.append(part + parts[i + 1])
            i += 2
            continue
        merged.append(part)
        i += 1
    return merged


def smart_label(field: str) -> str:
    """kubectl's ``smartLabelFor``: a field name of letters and ``-`` as words; any other name as is."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    words = []
    for part in _merge_capital_runs(camel_split(field)):
        if part == "_":
            continue
        if part.upper() in _ACRONYMS:
            part = part.upper()
        elif part.lower() == part:
            part = part[:1].upper() + part[1:]
        words.append(part)
    return " ".join(words)


def unstructured_lines(content: Obj, level: int = 0, prefix: str = "",
                       skip: tuple[str, ...] = _SKIP) -> list[str]:
    """``printUnstructuredContent``: each field of ``content`` in key order, two spaces per level."""
    indent = "  " * level
    lines: list[str] = []
    for field in sorted(content):
        value, path = content[field], f"{prefix}.{field}"
        if path in skip:
            continue
        if isinstance(value, dict):
            lines.append(f"{indent}{smart_label(field)}:")
            lines += unstructured_lines(value, level + 1, path, skip)
        elif isinstance(value, list):
            lines.append(f"{indent}{smart_label(field)}:")
            for child in value:
                if isinstance(child, dict):
                    lines += unstructured_lines(child, level + 1, path, skip)
                else:
                    lines.append(f"{indent}  {go_value(child)}")
        else:
            lines.append(f"{indent}{smart_label(field)}:\t{go_value(value)}")
    return lines


def generic_page(reader: DescribeReader, obj: Obj) -> str:
    """kubectl's ``genericDescriber`` page of ``obj`` with the events kubectl's ``searchEvents`` finds."""
    meta = obj.get("metadata") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}",
             *map_lines("Labels", meta.get("labels") or {}),
             *annotation_lines(meta.get("annotations") or {}),
             *unstructured_lines(obj)]
    events = events_about(reader.list("events"), meta, obj.get("kind"))
    return page_and_events(lines, events, reader.now())
