"""Generate ``kbatch/apiserver/strategic_keys.json``: how strategic merge treats the built-in kinds' lists.

kube-apiserver merges a strategic merge patch by the ``patchStrategy``/``patchMergeKey`` struct tags
of the Go types (k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go`` reads them through
``NewPatchMetaFromStruct``): a list tagged ``patchStrategy:"merge"`` with a ``patchMergeKey`` merges
item by item on that key, a list of scalars tagged ``merge`` merges as a set, every other list is
replaced whole.

This tool walks the Go types of every built-in kind kbatch serves (``gen_wire_zeros.KINDS``) and
writes each tagged list as ``(parent, field)``: the JSON name of the field holding the struct the
list is in (``""`` for the object itself; a list item's struct is held by the list's field), and
the list's own JSON name, which is how :mod:`kbatch.apiserver.strategic` looks a list up: under
``merge`` as ``[parent, field, key]`` (key ``""``: a set of scalars). One pair merging on two keys
stops the tool. A kind whose type replaces a pair that another kind merges (ValidatingAdmissionPolicy's
``status.conditions``) is listed under ``replace`` (``apiVersion/Kind``: its pairs), which must sit
under a top-level field.

The same walk records the OpenAPI extensions kube-openapi's generator derives from these types
(kube-openapi ``pkg/generators/extension.go``): ``x-kubernetes-patch-strategy`` and
``x-kubernetes-patch-merge-key`` from the tags above, ``x-kubernetes-list-type``,
``x-kubernetes-list-map-keys`` (always a list) and ``x-kubernetes-map-type`` from a field's
``+listType``/``+listMapKey``/``+mapType``/``+structType`` comment markers, and a struct's own
``+structType`` as ``x-kubernetes-map-type`` on its schema. They are written under ``openapi``:
``kinds`` (``apiVersion/Kind`` → its Go struct) and ``types`` (struct → field → its extensions and,
under ``type``, the struct the field holds; ``""`` holds the struct's own), pruned to the structs
that lead to an extension. :mod:`kbatch.server.openapi_extensions` puts them into the served
documents.

Usage: ``python tools/gen_strategic_keys.py API_CHECKOUT APIMACHINERY_CHECKOUT``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gen_wire_zeros import API, KINDS, MACHINERY, Field, Universe, _git, _split

OUT = Path(__file__).resolve().parent.parent / "kbatch" / "apiserver" / "strategic_keys.json"

Pair = tuple[str, str]
Strategy = str  # the merge key, "" for a set of scalars, None for "replace" (not written)


_FIELD_MARKERS = {"listType": "x-kubernetes-list-type", "mapType": "x-kubernetes-map-type",
                  "structType": "x-kubernetes-map-type"}
_TAGS = {"patchStrategy": "x-kubernetes-patch-strategy", "patchMergeKey": "x-kubernetes-patch-merge-key"}
_OPAQUE = ("meta/v1.Time", "meta/v1.MicroTime", "resource.Quantity", "intstr.IntOrString",
           "meta/v1.Duration", "runtime.RawExtension", "meta/v1.FieldsV1")


def _short(struct: str) -> str:
    return struct.removeprefix(API).removeprefix(MACHINERY)


def _extensions(field: Field) -> dict[str, object]:
    """One field's extensions, sorted by name as Go marshals a map."""
    out: dict[str, object] = {_TAGS[t]: v for t, v in field.tags if t in _TAGS}
    keys = [v for t, v in field.markers if t == "listMapKey"]
    if keys:
        out["x-kubernetes-list-map-keys"] = keys
    out |= {_FIELD_MARKERS[t]: v for t, v in field.markers if t in _FIELD_MARKERS}
    return dict(sorted(out.items()))


def _held_struct(u: Universe, typ: str) -> str | None:
    """The struct a field's type holds, through pointers, lists and maps."""
    step, inner = "start", u.resolve(typ.lstrip("*"))
    while step:
        step, rest = _split(inner)
        if step:
            inner = u.resolve(rest.lstrip("*"))
    return inner if u.is_struct(inner) and not inner.endswith(_OPAQUE) else None


def _openapi_types(u: Universe, struct: str, out: dict[str, dict[str, dict[str, object]]]) -> bool:
    """Record ``struct``'s fields that carry extensions or hold a struct that does; whether any."""
    if struct in out:
        return bool(out[struct])
    out[struct] = {}
    facts: dict[str, dict[str, object]] = {}
    own = {_FIELD_MARKERS[t]: v for t, v in u.type_markers.get(struct, ()) if t == "structType"}
    if own:
        facts[""] = own
    for field in u.fields(struct):
        entry = _extensions(field)
        held = _held_struct(u, field.typ)
        if held is not None and _openapi_types(u, held, out):
            entry["type"] = _short(held)
        if entry:
            facts[field.key] = entry
    out[struct] = facts
    return bool(facts)


def openapi_extensions(u: Universe) -> dict[str, dict]:
    """The ``openapi`` section: each kind's struct and the extensions below it."""
    types: dict[str, dict[str, dict[str, object]]] = {}
    kinds = {}
    for package, kind, version in KINDS:
        struct = f"{package}.{kind}"
        if _openapi_types(u, struct, types):
            kinds[f"{version}/{kind}"] = _short(struct)
    return {"kinds": kinds, "types": {_short(s): f for s, f in sorted(types.items()) if f}}


def _walk(u: Universe, struct: str, parent: str, out: dict[Pair, str | None], stack: tuple[str, ...]) -> None:
    """Every list of ``struct`` (held by the field ``parent``) and of the structs below it."""
    if struct in stack:
        return
    for field in u.fields(struct):
        typ = u.resolve(field.typ.lstrip("*"))
        tags = dict(field.tags)
        step, inner = _split(typ)
        inner = u.resolve(inner.lstrip("*"))
        if step == "[]":
            merge = "merge" in tags.get("patchStrategy", "").split(",")
            strategy = (tags.get("patchMergeKey", "") if u.is_struct(inner) else "") if merge else None
            previous = out.setdefault((parent, field.key), strategy)
            if previous != strategy:
                out[(parent, field.key)] = "<conflict>"
        while step:
            typ = inner
            step, inner = _split(typ)
            inner = u.resolve(inner.lstrip("*"))
        if u.is_struct(typ) and not typ.endswith(("meta/v1.Time", "meta/v1.MicroTime")):
            _walk(u, typ, field.key, out, (*stack, struct))


def generate(api: Path, machinery: Path) -> dict:
    universe = Universe({API: api, MACHINERY: machinery})
    per_kind: dict[str, dict[Pair, str | None]] = {}
    merged: dict[Pair, str] = {}
    for package, kind, version in KINDS:
        lists: dict[Pair, str | None] = {}
        _walk(universe, f"{package}.{kind}", "", lists, ())
        per_kind[f"{version}/{kind}"] = lists
        for pair, strategy in lists.items():
            if strategy is None:
                continue
            if strategy == "<conflict>" or merged.setdefault(pair, strategy) != strategy:
                raise SystemExit(f"{kind}: {pair} merges on two keys: one table cannot hold it")
    replaced: dict[str, list[list[str]]] = {}
    for kind, lists in sorted(per_kind.items()):
        # a kind replacing a list that another kind merges: only under a top-level field, which the
        # kind's own name can root (kbatch.apiserver.strategic.roots)
        rows = sorted([parent, field] for (parent, field), s in lists.items()
                      if s is None and (parent, field) in merged)
        for parent, field in rows:
            if not _top_level(universe, kind, parent):
                raise SystemExit(f"{kind}: {parent}.{field} is replaced here, merged elsewhere, "
                                 "below the top level")
        if rows:
            replaced[kind] = rows
    return {
        "source": {"k8s.io/api": _git(api, "rev-parse", "HEAD").strip(),
                   "k8s.io/apimachinery": _git(machinery, "rev-parse", "HEAD").strip()},
        "merge": sorted([parent, field, key] for (parent, field), key in merged.items()),
        "replace": replaced,
        "openapi": openapi_extensions(universe),
    }


def _top_level(u: Universe, kind: str, name: str) -> bool:
    package, go_kind = next((p, k) for p, k, v in KINDS if f"{v}/{k}" == kind)
    return any(f.key == name for f in u.fields(f"{package}.{go_kind}"))


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    table = generate(Path(argv[1]), Path(argv[2]))
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {OUT} ({len(table['merge'])} merged lists, {len(table['replace'])} kinds replacing some)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
