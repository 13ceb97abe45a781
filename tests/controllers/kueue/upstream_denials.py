"""Reading an API refusal as upstream's table tests compare errors: (type, field path) pairs.

Upstream's webhook tables compare ``field.ErrorList`` ignoring ``Detail`` and ``BadValue``; through
kbatch's API the errors come back inside a refusal's message (a webhook's 403 denial, the CRD
schema's 422, or a Kueue Configuration's ``Invalid``), each rendered ``<path>: <Type label>...``
as ``field.Error.Error()`` renders it. :func:`causes` recovers the pairs from that text.
"""

from __future__ import annotations

import re
from typing import Any

from kbatch.api.errors import FieldErrorType

__all__ = ["causes", "refusal"]

_LABELS = {t.label: t.reason for t in FieldErrorType}
_ERROR = re.compile(
    r"(?:^|: |, |\[)((?:spec|status|metadata|integrations|waitForPodsReady|multiKueue|resources|"
    r"fairSharing|admissionFairSharing|managedJobsNamespaceSelector|objectRetentionPolicies|"
    r"visibilityServer|internalCertManagement|featureGates)[\w.\[\]/@^=-]*): ("
    + "|".join(re.escape(label) for label in _LABELS)
    + ")"
)


def causes(err: Any) -> list[tuple[str, str]]:
    """Sorted (reason, path) of every field error named in ``err``'s message."""
    text = str(getattr(err, "message", err))
    return sorted({(_LABELS[m.group(2)], m.group(1)) for m in _ERROR.finditer(text)})


def refusal(action: Any) -> list[tuple[str, str]]:
    """``causes`` of what ``action()`` raised, or ``[]`` when it went through."""
    from kbatch.api.errors import StatusError

    try:
        action()
    except StatusError as err:
        return causes(err)
    return []
