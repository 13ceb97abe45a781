"""``IsValidPortName`` (k8s.io/apimachinery ``pkg/util/validation``): an IANA_SVC_NAME, as container
ports and probe or hook actions name a port."""

from __future__ import annotations

import re

__all__ = ["is_valid_port_name"]

_PORT_NAME_CHARS = re.compile(r"[-a-z0-9]+")
_PORT_NAME_LETTER = re.compile(r"[a-z]")


def is_valid_port_name(name: str) -> list[str]:
    """``IsValidPortName``: an IANA_SVC_NAME."""
    errs: list[str] = []
    if len(name) > 15:
        errs.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARS.fullmatch(name):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(name):
        errs.append("must contain at least one letter (a-z)")
    if "--" in name:
        errs.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        errs.append("must not begin or end with a hyphen")
    return errs
