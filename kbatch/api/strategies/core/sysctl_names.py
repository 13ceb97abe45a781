"""Sysctl names: their syntax (kubernetes ``pkg/apis/core/validation/validation.go``,
``IsValidSysctlName``) and the kernel namespace one belongs to (``k8s.io/component-helpers``
``node/util/sysctl/namespace.go``, ``GetNamespace`` / ``NormalizeName``)."""

from __future__ import annotations

import functools
import re

__all__ = ["SYSCTL_NAME_MESSAGE", "is_valid_sysctl_name", "sysctl_namespace"]

_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_PATTERN = "^(" + _SEGMENT + "[\\./])*" + _SEGMENT + "$"
_NAME_RE = re.compile(_PATTERN)
_MAX_LENGTH = 253
SYSCTL_NAME_MESSAGE = f"must have at most {_MAX_LENGTH} characters and match regex {_PATTERN}"

_BY_NAME = {
    "kernel.domainname": "UTS", "kernel.sem": "IPC", "kernel.shmall": "IPC", "kernel.shmmax": "IPC",
    "kernel.shmmni": "IPC", "kernel.shm_rmid_forced": "IPC", "kernel.shm": "IPC",
    "kernel.msgmax": "IPC", "kernel.msgmnb": "IPC", "kernel.msgmni": "IPC", "kernel.msg": "IPC",
}
_BY_PREFIX = (("net.", "Net"), ("fs.mqueue.", "IPC"), ("user.", "User"))


def is_valid_sysctl_name(name: str) -> bool:
    """At most 253 characters of dot- or slash-separated lower-case segments."""
    # fullmatch: Go's ``$`` is the end of the text, never before a final "\n"
    return len(name) <= _MAX_LENGTH and _NAME_RE.fullmatch(name) is not None


def _normalize(name: str) -> str:
    """``NormalizeName``: a slash-separated name (``net/ipv4/conf/eno2.100/rp_filter``) swaps its
    separators, so that ``.`` always separates the levels."""
    first = min((i for i in (name.find("."), name.find("/")) if i >= 0), default=-1)
    if first == -1 or name[first] == ".":
        return name
    return name.translate(str.maketrans("./", "/."))


@functools.lru_cache(maxsize=256)
def sysctl_namespace(name: str) -> str:
    """``GetNamespace``: ``Net``, ``IPC``, ``UTS``, ``User`` or ``""`` (not namespaced); a
    ``*`` ends the name (a prefix pattern)."""
    base = _normalize(name).split("*", 1)[0]
    if base in _BY_NAME:
        return _BY_NAME[base]
    return next((ns for prefix, ns in _BY_PREFIX if base.startswith(prefix)), "")
