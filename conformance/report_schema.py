"""The JSON Schema (draft 2020-12) of the conformance report ``kbatch conformance -o json`` prints and
``--conformance-json FILE`` writes (:func:`conformance.report.report_json`); docs/conformance.md
describes each field. ``apiVersion`` changes when a field changes meaning or goes away."""

from __future__ import annotations

from typing import Any

from conformance.report import FORMAT_VERSION, OUTCOMES

__all__ = ["SCHEMA"]

_STRINGS = {"type": "array", "items": {"type": "string"}}
_COUNT = {"type": "integer", "minimum": 0}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://kbatch.dev/schemas/conformance-report-v1.json",
    "title": "kbatch conformance report",
    "type": "object",
    "required": ["apiVersion", "kind", "target", "seed", "families", "exitCode", "summary", "semantics"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": FORMAT_VERSION},
        "kind": {"const": "ConformanceReport"},
        "target": {
            "type": "object",
            "required": ["factory", "descriptions", "kubernetesVersion", "capabilities"],
            "additionalProperties": False,
            "properties": {
                "factory": {"type": "string", "description": "package.module:function that built the target"},
                "descriptions": _STRINGS,
                "kubernetesVersion": {"type": ["string", "null"], "description": "the target's /version"},
                "capabilities": _STRINGS,
            },
        },
        "seed": {"type": "integer", "description": "the seed of the per-check namespace names"},
        "families": _STRINGS,
        "exitCode": {"type": ["integer", "null"], "description": "pytest's exit code"},
        "summary": {
            "type": "object",
            "required": [*OUTCOMES, "total"],
            "additionalProperties": False,
            "properties": {name: _COUNT for name in (*OUTCOMES, "total")},
        },
        "semantics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "family", "title", "source", "requires", "excludes", "outcome", "duration",
                             "message", "details", "nodeid"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": r"^[a-z0-9_]+(\.[A-Za-z0-9_\[\]\-.]+)+$"},
                    "family": {"type": "string", "minLength": 1},
                    "title": {"type": "string", "minLength": 1},
                    "source": {"type": "string", "minLength": 1},
                    "requires": _STRINGS,
                    "excludes": _STRINGS,
                    "outcome": {"enum": list(OUTCOMES)},
                    "duration": {"type": "number", "minimum": 0},
                    "message": {"type": "string"},
                    "details": {"type": "string"},
                    "nodeid": {"type": "string"},
                },
            },
        },
    },
}
