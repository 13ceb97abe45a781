"""core/v1 Secret strategy: ``stringData`` merged into ``data``, ``type`` defaulted, validation.

Upstream (semantics only), kubernetes 1.37:

* ``pkg/apis/core/v1/conversion.go`` ``Convert_v1_Secret_To_core_Secret``: every ``stringData``
  entry is written into ``data`` (UTF-8 bytes, overriding a ``data`` entry of the same key) and
  ``stringData`` is never stored; ``pkg/apis/core/v1/defaults.go`` ``SetDefaults_Secret``: ``type``
  defaults to ``Opaque``. kbatch does both in ``default`` (before validation, on create and update).
* ``pkg/registry/core/secret/strategy.go``: no ``metadata.generation``, no status.
* ``pkg/apis/core/validation/validation.go`` ``ValidateSecret``: every key is a config key
  (``IsConfigMapKey``), the values hold at most 1 MiB (``core.MaxSecretSize``) in all, and a type's
  required keys: ``kubernetes.io/service-account-token`` the annotation
  ``kubernetes.io/service-account.name``; ``kubernetes.io/dockercfg`` ``.dockercfg`` and
  ``kubernetes.io/dockerconfigjson`` ``.dockerconfigjson`` (each a JSON object); ``kubernetes.io/basic-auth``
  ``username`` or ``password``; ``kubernetes.io/ssh-auth`` a non-empty ``ssh-privatekey``;
  ``kubernetes.io/tls`` ``tls.crt`` and ``tls.key``. Other types (``Opaque``,
  ``bootstrap.kubernetes.io/token``, any custom type) need nothing. The basic-auth and ssh-auth
  errors carry upstream's literal path ``data[%s][key]`` (its ``field.NewPath("data[%s]")``).
  ``ValidateSecretUpdate``: ``type`` is immutable; once ``immutable`` is true it stays so and
  ``data`` may not change.
"""

from __future__ import annotations

import base64
import binascii
import json

from kbatch.api.core_v1 import Secret
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategies.core.configmap import config_key_errors
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import key

__all__ = ["MAX_SECRET_SIZE", "SecretStrategy", "merge_string_data", "validate_secret"]

MAX_SECRET_SIZE = 1024 * 1024  # core.MaxSecretSize
OPAQUE = "Opaque"
SA_TOKEN = "kubernetes.io/service-account-token"
SA_NAME_KEY = "kubernetes.io/service-account.name"
DOCKERCFG, DOCKERCFG_KEY = "kubernetes.io/dockercfg", ".dockercfg"
DOCKERJSON, DOCKERJSON_KEY = "kubernetes.io/dockerconfigjson", ".dockerconfigjson"
BASIC_AUTH, SSH_AUTH, TLS = "kubernetes.io/basic-auth", "kubernetes.io/ssh-auth", "kubernetes.io/tls"
_REDACTED = "<secret contents redacted>"
_IMMUTABLE = "field is immutable when `immutable` is set"
_QUIRK = "data[%s]"  # upstream's literal path for the basic-auth and ssh-auth keys


def merge_string_data(secret: Secret) -> None:
    """``stringData`` into ``data`` (base64 of the UTF-8 bytes; ``stringData`` wins), then dropped."""
    if secret.string_data:
        data = dict(secret.data or {})
        for name in sorted(secret.string_data):
            data[name] = base64.b64encode(secret.string_data[name].encode()).decode()
        secret.data = data
    secret.string_data = None


def decoded(value: str) -> bytes | None:
    """The bytes of a base64 ``data`` value, None when it is not base64."""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _json_error(raw: bytes) -> str | None:
    """Why ``raw`` does not unmarshal into a Go ``map[string]interface{}`` (Go's wording for the
    common cases), None when it does."""
    if not raw.strip():
        return "unexpected end of JSON input"
    try:
        value = json.loads(raw)
    except ValueError as err:
        pos = getattr(err, "pos", 0) or 0
        char = raw[pos:pos + 1].decode(errors="replace") or " "
        return f"invalid character '{char}' looking for beginning of value"
    if not isinstance(value, dict):
        go = {list: "array", str: "string", bool: "bool", type(None): ""}.get(type(value), "number")
        return f"json: cannot unmarshal {go} into Go value of type map[string]interface {{}}" if go else None
    return None


def _type_errors(secret: Secret, data: dict[str, bytes]) -> list[FieldError]:
    kind = secret.type or OPAQUE
    if kind == SA_TOKEN:
        if not (secret.metadata.annotations or {}).get(SA_NAME_KEY):
            return [FieldError.required(key("metadata.annotations", SA_NAME_KEY))]
    elif kind in (DOCKERCFG, DOCKERJSON):
        name = DOCKERCFG_KEY if kind == DOCKERCFG else DOCKERJSON_KEY
        if name not in data:
            return [FieldError.required(key("data", name))]
        why = _json_error(data[name])
        if why:
            return [FieldError.invalid(key("data", name), _REDACTED, why)]
    elif kind == BASIC_AUTH:
        if "username" not in data and "password" not in data:
            return [FieldError.required(key(_QUIRK, name)) for name in ("username", "password")]
    elif kind == SSH_AUTH:
        if not data.get("ssh-privatekey"):
            return [FieldError.required(key(_QUIRK, "ssh-privatekey"))]
    elif kind == TLS:
        return [FieldError.required(key("data", name)) for name in ("tls.crt", "tls.key") if name not in data]
    return []


def validate_secret(secret: Secret) -> list[FieldError]:
    errs: list[FieldError] = []
    data: dict[str, bytes] = {}
    for name in sorted(secret.data or {}):
        errs += [FieldError.invalid(key("data", name), name, m) for m in config_key_errors(name)]
        raw = decoded((secret.data or {})[name])
        if raw is None:
            errs.append(FieldError.invalid(key("data", name), _REDACTED, "illegal base64 data"))
            raw = b""
        data[name] = raw
    if sum(len(v) for v in data.values()) > MAX_SECRET_SIZE:
        errs.append(FieldError.too_long("data", MAX_SECRET_SIZE))
    return errs + _type_errors(secret, data)


class SecretStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def default(self, obj: Resource) -> None:
        assert isinstance(obj, Secret)
        merge_string_data(obj)
        if not obj.type:
            obj.type = OPAQUE

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, Secret)
        return validate_secret(obj)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, Secret) and isinstance(old, Secret)
        errs: list[FieldError] = []
        if new.type != old.type:
            errs.append(FieldError.invalid("type", new.type, "field is immutable"))
        if old.immutable:
            if not new.immutable:
                errs.append(FieldError.forbidden("immutable", _IMMUTABLE))
            if (new.data or None) != (old.data or None):
                errs.append(FieldError.forbidden("data", _IMMUTABLE))
        return errs
