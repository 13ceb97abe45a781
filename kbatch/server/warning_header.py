"""The ``Warning`` response header of one warning text: ``299 - "<text>"`` with ``"`` and ``\\``
escaped as an RFC 7230 quoted-string (k8s.io/apimachinery pkg/util/net/http.go ``NewWarningHeader``,
``makeQuotedString``). Unescaped, a text holding a double quote (most pod warnings do) cannot be read
back by client-go's ``ParseWarningHeader``, and kubectl drops it. :func:`warning_text` reads one back
as client-go does."""

from __future__ import annotations

import re

__all__ = ["warning_header", "warning_text"]


def warning_header(text: str) -> tuple[str, str]:
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    return ("warning", f'299 - "{quoted}"')


def warning_text(value: str) -> str:
    """The text of one ``Warning`` header value (RFC 7234: ``299 - "text"``), as client-go's
    ``ParseWarningHeader`` takes it: between the first and the last double quote, each ``\\x`` read
    as ``x``."""
    first, last = value.find('"'), value.rfind('"')
    if not 0 <= first < last:
        return value
    return re.sub(r"\\(.)", r"\1", value[first + 1:last])
