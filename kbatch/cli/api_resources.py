"""What ``kbatch api-resources`` and ``kbatch api-versions`` print, as kubectl's do
(k8s.io/kubectl ``pkg/cmd/apiresources/apiresources.go`` and ``apiversions.go``).

Both read the server's discovery documents (``/api``, ``/api/v1``, ``/apis``, ``/apis/G/V``), the
GETs client-go's discovery client makes; the command fetches them (over HTTP from ``kbatch serve``,
in process from local state) and these functions decide what is shown:

* :func:`preferred_resources` is client-go's ``ServerPreferredResources`` (``discovery_client.go``):
  every group version in discovery's order, subresources (``pods/status``) left out, and a resource
  served in several versions of its group taken from the group's preferred version;
* :func:`select` and :func:`sort_resources` are ``RunAPIResources``' filters (``--api-group``,
  ``--namespaced`` when given, ``--verbs``, ``--categories``: all must match; entries without verbs
  dropped) and its stable sort (by group, or ``--sort-by name|kind``, ties by name);
* :func:`render` is its printers: the table (``-o wide`` adds VERBS and CATEGORIES), ``-o name``
  (``name.group``), and ``-o json|yaml`` of the flattened ``APIResourceList`` (kubectl 1.37; 1.32's
  api-resources had no JSON or YAML printer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.cli.render import align

__all__ = ["OUTPUTS", "SORT_KEYS", "api_versions", "preferred_resources", "render", "select",
           "sort_resources"]

Obj = dict[str, Any]
Fetch = Callable[[str], Obj]  # GET of a discovery path, its JSON body

OUTPUTS = ("", "wide", "name", "json", "yaml")
SORT_KEYS = ("", "name", "kind")


def _groups(fetch: Fetch) -> list[tuple[str, list[str], str]]:
    """(group, versions, preferred version) of the core group, then of every named group."""
    core = fetch("/api").get("versions") or []
    out = [("", list(core), core[0] if core else "")]
    for group in fetch("/apis").get("groups") or []:
        versions = [v["version"] for v in group.get("versions") or []]
        preferred = (group.get("preferredVersion") or {}).get("version", "")
        out.append((group["name"], versions, preferred))
    return out


def preferred_resources(fetch: Fetch) -> list[Obj]:
    """Each resource once, from its group's preferred version when that serves it, else from the
    first version that does; each entry carries its ``group`` and ``version``."""
    chosen: dict[tuple[str, str], Obj] = {}
    for group, versions, preferred in _groups(fetch):
        for version in versions:
            path = f"/apis/{group}/{version}" if group else f"/api/{version}"
            for resource in fetch(path).get("resources") or []:
                name = resource["name"]
                if "/" in name or ((group, name) in chosen and version != preferred):
                    continue
                chosen[(group, name)] = {**resource, "group": group, "version": version}
    return list(chosen.values())


def select(resources: list[Obj], *, api_group: str | None = None, namespaced: bool | None = None,
           verbs: list[str] | None = None, categories: list[str] | None = None) -> list[Obj]:
    """The entries every given filter keeps (``None``: the flag was not given)."""
    out = []
    for r in resources:
        if not r.get("verbs") or (api_group is not None and r["group"] != api_group):
            continue
        if namespaced is not None and bool(r.get("namespaced")) != namespaced:
            continue
        if verbs and not set(verbs) <= set(r["verbs"]):
            continue
        if categories and not set(categories) <= set(r.get("categories") or []):
            continue
        out.append(r)
    return out


def sort_resources(resources: list[Obj], sort_by: str = "") -> list[Obj]:
    """Stable: by group (``""``), name or kind, ties broken by name."""
    field = {"": "group", "name": "name", "kind": "kind"}[sort_by]
    return sorted(resources, key=lambda r: (r.get(field) or "", r["name"]))


def _api_version(r: Obj) -> str:
    return f"{r['group']}/{r['version']}" if r["group"] else r["version"]


def _row(r: Obj, wide: bool) -> list[str]:
    row = [r["name"], ",".join(r.get("shortNames") or []), _api_version(r),
           "true" if r.get("namespaced") else "false", r["kind"]]
    if wide:
        row += [",".join(r.get("verbs") or []), ",".join(r.get("categories") or [])]
    return row


# APIResource's JSON fields in Go's struct order (apimachinery pkg/apis/meta/v1/types.go); those
# without omitempty are always written
_FIELDS = ("name", "singularName", "namespaced", "group", "version", "kind", "verbs", "shortNames",
           "categories", "storageVersionHash")
_ALWAYS: dict[str, Any] = {"name": "", "singularName": "", "namespaced": False, "kind": "", "verbs": []}


def _as_listed(r: Obj) -> Obj:
    return {f: r.get(f, _ALWAYS.get(f)) for f in _FIELDS if f in _ALWAYS or r.get(f)}


def render(resources: list[Obj], output: str = "", headers: bool = True) -> str:
    """The command's output, ending with a newline unless empty."""
    if output == "name":
        return "".join(f"{r['name']}.{r['group']}\n" if r["group"] else f"{r['name']}\n" for r in resources)
    if output in ("json", "yaml"):
        flat = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "",
                "resources": [_as_listed(r) for r in resources]}
        return _json(flat) if output == "json" else _yaml(flat)
    wide = output == "wide"
    lines = [_row(r, wide) for r in resources]
    if headers:
        head = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
        lines.insert(0, head + (["VERBS", "CATEGORIES"] if wide else []))
    return align(lines, strip=False) + "\n" if lines else ""


def _json(obj: Obj) -> str:
    import json

    return json.dumps(obj, indent=4, ensure_ascii=False) + "\n"  # json.MarshalIndent, struct order


def _yaml(obj: Obj) -> str:
    from kbatch.cli.render import render_yaml  # keys sorted, as sigs.k8s.io/yaml writes them

    text = render_yaml(obj, zeros=False)
    return text if text.endswith("\n") else text + "\n"


def api_versions(fetch: Fetch) -> list[str]:
    """``kubectl api-versions``: every served group version (not only the preferred), sorted."""
    return sorted(f"{g}/{v}" if g else v for g, versions, _ in _groups(fetch) for v in versions)
