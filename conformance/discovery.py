"""Map manifest kinds (``"Job"``, or ``apiVersion`` + ``kind``) to REST paths through API discovery.

Reads ``/api/v1`` and ``/apis`` (each group's preferred version first, the others after), as
``kubectl`` does without aggregated discovery. A bare kind resolves to the core group first, then to
the groups in the order the server lists them, so ``"Event"`` is ``v1`` Events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.errors import NotFound

__all__ = ["Discovery", "Resource"]

Fetch = Callable[[str], dict[str, Any]]


@dataclass(frozen=True)
class Resource:
    group_version: str  # "v1", "batch/v1"
    kind: str
    plural: str
    namespaced: bool
    subresources: frozenset[str]

    @property
    def api_version(self) -> str:
        return self.group_version

    def path(self, namespace: str | None, name: str | None = None, subresource: str | None = None) -> str:
        """``/api/v1/namespaces/NS/pods/NAME/status`` and friends."""
        root = "/api/v1" if self.group_version == "v1" else f"/apis/{self.group_version}"
        parts = [root]
        if self.namespaced and namespace:
            parts.append(f"namespaces/{namespace}")
        parts.append(self.plural)
        if name:
            parts.append(name)
        if subresource:
            parts.append(subresource)
        return "/".join(parts)


class Discovery:
    """Lazily reads discovery documents through ``fetch(path) -> JSON``; one instance per server."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch
        self._versions: list[str] | None = None
        self._by_gv: dict[str, dict[str, Resource]] = {}

    def rebind(self, fetch: Fetch) -> Discovery:
        """Reuse what was read with another client (discovery is cached per server URL)."""
        self._fetch = fetch
        return self

    def _group_versions(self) -> list[str]:
        if self._versions is None:
            versions = ["v1"]
            for group in self._fetch("/apis").get("groups") or ():
                preferred = (group.get("preferredVersion") or {}).get("groupVersion")
                others = [v["groupVersion"] for v in group.get("versions") or ()
                          if v["groupVersion"] != preferred]
                versions += ([preferred] if preferred else []) + others
            self._versions = versions
        return self._versions

    def _resources(self, group_version: str) -> dict[str, Resource]:
        if group_version not in self._by_gv:
            path = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
            try:
                entries = self._fetch(path).get("resources") or ()
            except NotFound:  # a group version the server does not serve
                entries = ()
            subs: dict[str, set[str]] = {}
            for entry in entries:
                base, _, sub = entry["name"].partition("/")
                if sub:
                    subs.setdefault(base, set()).add(sub)
            self._by_gv[group_version] = {
                e["kind"]: Resource(group_version, e["kind"], e["name"], bool(e.get("namespaced")),
                                    frozenset(subs.get(e["name"], ())))
                for e in entries if "/" not in e["name"]}
        return self._by_gv[group_version]

    def resolve(self, kind: str, api_version: str | None = None) -> Resource:
        """The resource for ``kind`` (in ``api_version`` when given); ``LookupError`` if not served.
        ``Kind.group`` (kubectl's form, e.g. ``PodGroup.scheduling.x-k8s.io``) picks the kind of that
        group when two groups serve the same kind name; a bare kind takes the first group serving it."""
        kind, _, group = kind.partition(".")
        candidates = [api_version] if api_version else [
            gv for gv in self._group_versions() if not group or gv.rpartition("/")[0] == group]
        for gv in candidates:
            found = self._resources(gv).get(kind)
            if found is not None:
                return found
        where = f" in {api_version}" if api_version else ""
        raise LookupError(f"the server does not serve kind {kind!r}{where}")
