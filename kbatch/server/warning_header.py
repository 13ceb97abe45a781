"""The ``Warning`` response header of one warning text: ``299 - "<text>"`` with ``"`` and ``\\``
escaped as an RFC 7230 quoted-string (k8s.io/apimachinery pkg/util/net/http.go ``NewWarningHeader``,
``makeQuotedString``). Unescaped, a text holding a double quote (most pod warnings do) cannot be read
back by client-go's ``ParseWarningHeader``, and kubectl drops it."""

from __future__ import annotations

__all__ = ["warning_header"]


def warning_header(text: str) -> tuple[str, str]:
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    return ("warning", f'299 - "{quoted}"')
