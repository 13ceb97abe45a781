"""``kubectl describe serviceaccount``: k8s.io/kubectl ``pkg/describe/describe.go``
``describeServiceAccount``.

Name, Namespace, Labels, Annotations, then three blocks in the sorted order of their headers (Image
pull secrets, Mountable secrets, Tokens), one name a line and ``<none>`` for an empty block; a
referenced secret that the namespace does not hold is marked ``(not found)``, and Tokens lists the
namespace's ``kubernetes.io/service-account-token`` secrets annotated with the account's name. Then
the account's events. kbatch difference: kubectl marks missing secrets whenever it could list the
namespace's secrets; kbatch marks them only when the namespace holds at least one secret (a list
of a kind that is not served comes back empty, and a page full of ``(not found)`` would then be
kbatch's want of a Secret kind, not the account's).
"""

from __future__ import annotations

from kbatch.api.printing import DescribeReader, Obj
from kbatch.families.core.describe_text import annotation_lines, events_about, map_lines, page_and_events

__all__ = ["describe_service_account_page", "service_account_lines"]

_TOKEN_TYPE = "kubernetes.io/service-account-token"
_SA_NAME = "kubernetes.io/service-account.name"
_EMPTY = "                   "
_BLOCKS = ("Image pull secrets:", "Mountable secrets: ", "Tokens:            ")  # sorted, as kubectl


def _names(refs: list[Obj] | None) -> list[str]:
    return [ref.get("name") or "" for ref in refs or []]


def service_account_lines(sa: Obj, secrets: list[Obj] | None) -> list[str]:
    """The page above its events; ``secrets`` are the namespace's secrets, ``None`` when not listed."""
    meta = sa.get("metadata") or {}
    name = meta.get("name") or ""
    tokens = [(s.get("metadata") or {}).get("name") or "" for s in secrets or []
              if s.get("type") == _TOKEN_TYPE and ((s.get("metadata") or {}).get("annotations") or {})
              .get(_SA_NAME) == name]
    existing = {(s.get("metadata") or {}).get("name") for s in secrets or []}
    lines = [f"Name:\t{name}", f"Namespace:\t{meta.get('namespace') or ''}",
             *map_lines("Labels", meta.get("labels") or {}), *annotation_lines(meta.get("annotations") or {})]
    blocks = (_names(sa.get("imagePullSecrets")), _names(sa.get("secrets")), tokens)
    for header, names in zip(_BLOCKS, blocks, strict=True):
        if not names:
            lines.append(f"{header}\t<none>")
        for i, secret in enumerate(names):
            missing = secrets is not None and secret not in existing
            lines.append(f"{header if i == 0 else _EMPTY}\t{secret}{' (not found)' if missing else ''}")
    return lines


def describe_service_account_page(reader: DescribeReader, sa: Obj) -> str:
    meta = sa.get("metadata") or {}
    namespace = meta.get("namespace") or ""
    secrets = [s for s in reader.list("secrets") if (s.get("metadata") or {}).get("namespace") == namespace]
    events = events_about(reader.list("events"), meta)
    return page_and_events(service_account_lines(sa, secrets or None), events, reader.now())
