"""core/v1 ConfigMap strategy: validation only (no spec, no status, no defaults).

Upstream (semantics only): ``pkg/registry/core/configmap/strategy.go`` and
``pkg/apis/core/validation/validation.go`` ``ValidateConfigMap``/``ValidateConfigMapUpdate``: every key
of ``data`` and ``binaryData`` is a config key (apimachinery ``IsConfigMapKey``), no key is in both,
the values together hold at most 1 MiB (``core.MaxSecretSize``); once ``immutable`` is true neither
it nor the data may change.
"""

from __future__ import annotations

import base64
import binascii
import re

from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import chdir_prefix_errors, key

__all__ = ["MAX_CONFIG_MAP_SIZE", "ConfigMapStrategy", "config_key_errors"]

MAX_CONFIG_MAP_SIZE = 1024 * 1024
_KEY_FMT = "[-._a-zA-Z0-9]+"
_KEY_RE = re.compile(_KEY_FMT)
_KEY_MSG = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name', "
            f" or 'KEY_NAME',  or 'key-name', regex used for validation is '{_KEY_FMT}')")
_IMMUTABLE = "field is immutable when `immutable` is set"


def config_key_errors(name: str) -> list[str]:
    """apimachinery ``IsConfigMapKey``: the messages for a key that is not valid (none when it is)."""
    out = []
    if len(name) > 253:
        out.append("must be no more than 253 characters")
    if not _KEY_RE.fullmatch(name):
        out.append(_KEY_MSG)
    return out + chdir_prefix_errors(name)


def _size(value: str, binary: bool) -> int:
    if not binary:
        return len(value.encode())
    try:
        return len(base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return len(value)


def validate_config_map(cm: ConfigMap) -> list[FieldError]:
    errs: list[FieldError] = []
    data, binary = cm.data or {}, cm.binary_data or {}
    total = 0
    for name in sorted(data):
        errs += [FieldError.invalid(key("data", name), name, m) for m in config_key_errors(name)]
        if name in binary:
            errs.append(FieldError.invalid(key("data", name), name, "duplicate of key present in binaryData"))
        total += _size(data[name], False)
    for name in sorted(binary):
        errs += [FieldError.invalid(key("binaryData", name), name, m) for m in config_key_errors(name)]
        total += _size(binary[name], True)
    if total > MAX_CONFIG_MAP_SIZE:
        errs.append(FieldError.too_long("", MAX_CONFIG_MAP_SIZE))
    return errs


class ConfigMapStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, ConfigMap)
        return validate_config_map(obj)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, ConfigMap) and isinstance(old, ConfigMap)
        errs: list[FieldError] = []
        if old.immutable:
            if not new.immutable:
                errs.append(FieldError.forbidden("immutable", _IMMUTABLE))
            if (new.data or None) != (old.data or None):
                errs.append(FieldError.forbidden("data", _IMMUTABLE))
            if (new.binary_data or None) != (old.binary_data or None):
                errs.append(FieldError.forbidden("binaryData", _IMMUTABLE))
        return errs + validate_config_map(new)
