"""Kubernetes' regex CEL library (upstream ``k8s.io/apiserver/pkg/cel/library/regex.go``, in the base
environment since 1.0): ``<string>.find(regex)`` is the first match or ``""``,
``<string>.findAll(regex[, limit])`` every match (at most ``limit``; a negative limit means all, 0
none). An invalid pattern is the error "Illegal regex: ...".

Upstream compiles Go's RE2 syntax; kbatch compiles the pattern with Python's ``re``, which accepts the
RE2 syntax selectors use (classes, repetition, anchors, groups) with the same leftmost-first matches;
constructs only one of them knows (``\\C``, Python's look-arounds and backreferences) differ. Patterns
are cached.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

__all__ = ["declarations"]


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"Illegal regex: error parsing regexp: {err}") from None


def _find(text: str, pattern: str) -> str:
    match = _compiled(pattern).search(text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found: list[str] = []
    for match in _compiled(pattern).finditer(text):
        if 0 <= limit <= len(found):
            break
        found.append(match.group(0))
    return found


def declarations(decl: Callable[..., Any], T: Any) -> list[Any]:
    """The library's function declarations, made with ``library``'s ``decl`` helper."""
    strings = T.List(T.STRING)
    return [
        decl("find", ("string_find_string", T.STRING, [T.STRING, T.STRING], True, _find)),
        decl(
            "findAll",
            ("string_find_all_string", strings, [T.STRING, T.STRING], True, _find_all),
            ("string_find_all_string_int", strings, [T.STRING, T.STRING, T.INT], True, _find_all),
        ),
    ]
