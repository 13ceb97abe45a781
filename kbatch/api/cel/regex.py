"""Kubernetes' regex CEL library (upstream ``k8s.io/apiserver/pkg/cel/library/regex.go``, in the base
environment since 1.0): ``<string>.find(regex)`` is the first match or ``""``,
``<string>.findAll(regex[, limit])`` every match (at most ``limit``; a negative limit means all, 0
none). An invalid pattern is the error "Illegal regex: ...".

Upstream compiles the pattern with Go's ``regexp`` (``FindString``, ``FindAllString``); so does kbatch,
through :mod:`kbatch.api.goregexp`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.goregexp import GoRegexp, GoRegexpError, compile_go

__all__ = ["declarations"]


def _compiled(pattern: str) -> GoRegexp:
    try:
        return compile_go(pattern)
    except GoRegexpError as err:
        raise ValueError(f"Illegal regex: {err}") from None


def _find(text: str, pattern: str) -> str:
    return _compiled(pattern).find_string(text)


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    return _compiled(pattern).find_all_string(text, limit)


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
