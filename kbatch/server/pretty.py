"""Indented JSON answers: kube-apiserver's pretty serializer.

Where kube-apiserver negotiates an answer's serializer (k8s.io/apiserver
``pkg/endpoints/handlers/negotiation/negotiate.go`` ``NegotiateOutputMediaType``), it switches JSON to
the pretty one (k8s.io/apimachinery ``pkg/runtime/serializer/json/json.go``: ``json.MarshalIndent``
with two spaces, no newline after) when

* the ``pretty`` query parameter parses as a Go ``strconv.ParseBool`` true (a value that does not
  parse, or a false one, means compact; an empty one is as if absent);
* else, without the parameter, when the User-Agent starts with ``curl``, ``Wget`` or ``Mozilla/5.0``
  (``isPrettyPrint``: browsers and command-line HTTP tools);
* or the accepted ``Accept`` clause carries ``pretty=1`` (``acceptMediaTypeOptions``).

Every negotiated answer is concerned: objects, lists, Tables, Status errors, discovery. Not the
watch stream (a stream serializer has no pretty form), logs, ``/version`` (always indented) nor the
OpenAPI documents (kube-openapi writes its own bytes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

__all__ = ["indented", "wants_pretty"]

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_HUMAN_AGENTS = ("curl", "Wget", "Mozilla/5.0")


def wants_pretty(query: Mapping[str, list[str]], headers: Mapping[str, str]) -> bool:
    """Whether a JSON answer to this request is indented (see the module docstring)."""
    return _query_or_agent(query, headers.get("user-agent", "")) or _accept_pretty(headers.get("accept", ""))


def _query_or_agent(query: Mapping[str, list[str]], user_agent: str) -> bool:
    values = query.get("pretty")
    if values and values[0]:  # url.Values.Get: the first value
        return values[0] in _TRUE  # strconv.ParseBool; an error is false
    return user_agent.startswith(_HUMAN_AGENTS)


def _accept_pretty(accept: str) -> bool:
    """``pretty=1`` on the clause the JSON serializer is chosen by: the best-quality clause naming
    ``application/json``, ``application/*`` or ``*/*`` (goautoneg's order: quality first)."""
    if "pretty" not in accept:
        return False
    clauses = []
    for position, clause in enumerate(accept.split(",")):
        media, *raw = (part.strip() for part in clause.split(";"))
        params = dict(p.partition("=")[::2] for p in raw)
        try:
            q = float(params.get("q", "1"))
        except ValueError:
            q = 0.0
        if q > 0 and media.lower() in ("application/json", "application/*", "*/*"):
            clauses.append((-q, position, params.get("pretty") == "1"))
    return min(clauses)[2] if clauses else False


def indented(body: bytes) -> bytes:
    """A compact JSON answer as ``json.MarshalIndent(obj, "", "  ")`` writes it: two-space indents,
    ``": "`` after keys, empty objects and arrays kept as ``{}`` and ``[]``, no trailing newline."""
    return json.dumps(json.loads(body), indent=2).encode()
