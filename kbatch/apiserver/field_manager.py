"""The ``fieldManager`` of a write, checked once for every path that takes one.

Upstream: k8s.io/apimachinery ``pkg/apis/meta/v1/validation/validation.go`` (v0.37.0-beta.0)
``ValidateFieldManager``, called by ``ValidateCreateOptions``, ``ValidateUpdateOptions`` and
``ValidatePatchOptions`` (which first requires a manager for an apply patch). The limit is Go's
``len``, so it counts UTF-8 bytes, and an unprintable character (not ``unicode.IsPrint``) is
reported at its byte offset. kbatch serve's option checks (:mod:`kbatch.apiserver.write_options`) and
the in-process apply (:mod:`kbatch.apiserver.apply.operation`) both use this one check.
"""

from __future__ import annotations

import unicodedata

from kbatch.api.errors import FieldError

__all__ = ["FIELD_MANAGER_MAX_LENGTH", "apply_manager_errors", "field_manager_errors"]

FIELD_MANAGER_MAX_LENGTH = 128  # validation.FieldManagerMaxLength


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _printable(ch: str) -> bool:
    """Go's ``unicode.IsPrint``: letters, marks, numbers, punctuation, symbols and the ASCII space."""
    return ch == " " or unicodedata.category(ch)[0] in "LMNPS"


def field_manager_errors(manager: str, path: str = "fieldManager") -> list[FieldError]:
    """``ValidateFieldManager``: at most 128 bytes, every character printable."""
    errors = []
    if _utf8_size(manager) > FIELD_MANAGER_MAX_LENGTH:
        errors.append(FieldError.too_long(path, FIELD_MANAGER_MAX_LENGTH))
    offset = 0
    for ch in manager:
        if not _printable(ch):
            errors.append(FieldError.invalid(path, manager, f"invalid character U+{ord(ch):04X} "
                                                            f"(at position {offset})"))
        offset += _utf8_size(ch)
    return errors


def apply_manager_errors(manager: str | None) -> list[FieldError]:
    """``ValidatePatchOptions``' manager checks for an apply patch: required, then as any write's."""
    if not manager:
        return [FieldError.required("fieldManager", "is required for apply patch")]
    return field_manager_errors(manager)
