"""KWOK-style stage rules: how long a matching pod's containers run and how they end.

Shape of kubernetes-sigs/kwok's ``Stage`` (``kwok.x-k8s.io/v1alpha1``; docs
``site/content/en/docs/user/stages-configuration.md``), read for one purpose: to decide a
container run. A rule applies to pods (``resourceRef.kind: Pod``) that match its ``selector``;
among matching rules one is chosen by ``weight`` with the control plane's seeded random source
(KWOK's weighted choice); its ``delay`` is how long each app container runs and its ``next`` how
it ends::

    apiVersion: kwok.x-k8s.io/v1alpha1
    kind: Stage
    metadata: {name: slow-failures}
    spec:
      resourceRef: {apiGroup: v1, kind: Pod}
      selector:
        matchLabels: {app: flaky}
        matchAnnotations: {example.com/tier: batch}
        matchExpressions:
        - {key: '.spec.containers[0].image', operator: In, values: [busybox]}
      weight: 1
      delay:
        durationMilliseconds: 10000
        jitterDurationMilliseconds: 15000      # the delay is uniform in [10 s, 15 s]
        durationFrom: {expressionFrom: '.metadata.annotations["example.com/runtime"]'}
      next:
        exitCode: 3                            # or phase: Succeeded | Failed
        reason: Error
        message: simulated failure

Differences from KWOK (deliberate; see docs/simulation.md): ``next`` is a container outcome, not a
status template; field expressions are a jq subset (``.a.b``, ``[n]``, ``["key"]``); a
``durationFrom`` value is a Go duration or a number of seconds (``"60"`` from
``args: [sleep, "60"]``). Jitter is drawn from a stream derived from the seed and the pod's uid
and container, so a restarted control plane draws the same delays.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.api.selectors import MODEL_OPERATORS, Requirement, selector_from_set
from kbatch.runtime.duration import parse_duration
from kbatch.sim.command import ContainerRun

__all__ = ["Expression", "StageRule", "evaluate", "load_stages", "parse_stage", "pick_stage"]

_TOKEN = re.compile(r'\.([A-Za-z_][A-Za-z0-9_\-]*)|\[(\d+)\]|\["([^"]*)"\]|\[\'([^\']*)\'\]')


def evaluate(expression: str, obj: Any) -> Any:
    """``.spec.containers[0].args[1]`` on a JSON-shaped object; None when any step is missing."""
    pos, value = 0, obj
    text = expression.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"unsupported expression {expression!r} (use .field, [index] or [\"key\"])")
        pos = match.end()
        name, index, key1, key2 = match.groups()
        if index is not None:
            value = value[int(index)] if isinstance(value, list) and int(index) < len(value) else None
        else:
            key = name if name is not None else (key1 if key1 is not None else key2)
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is None:
            return None
    return value


@dataclass(frozen=True, slots=True)
class Expression:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, obj: Any) -> bool:
        """The label selector operator on the value at ``key`` (missing when None), as KWOK does."""
        value = evaluate(self.key, obj)
        op = MODEL_OPERATORS.get(self.operator)
        if op is None:
            raise ValueError(f"unknown operator {self.operator!r} (In, NotIn, Exists, DoesNotExist)")
        fields = {} if value is None else {self.key: str(value)}
        return Requirement(self.key, op, self.values).matches(fields)


@dataclass(frozen=True, slots=True)
class StageRule:
    name: str
    match_labels: tuple[tuple[str, str], ...] = ()
    match_annotations: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[Expression, ...] = ()
    weight: int = 1
    duration: float = 0.0
    jitter_until: float | None = None
    duration_from: str | None = None
    exit_code: int = 0
    reason: str | None = None
    message: str = ""

    def matches(self, pod: Mapping[str, Any]) -> bool:
        meta = pod.get("metadata") or {}
        return (selector_from_set(dict(self.match_labels)).matches(meta.get("labels"))
                and selector_from_set(dict(self.match_annotations)).matches(meta.get("annotations"))
                and all(e.matches(pod) for e in self.match_expressions))

    def run(self, pod: Mapping[str, Any], rng: random.Random) -> ContainerRun:
        duration = self.duration
        if self.duration_from is not None:
            raw = evaluate(self.duration_from, pod)
            if raw is not None:
                duration = parse_duration(str(raw))
        elif self.jitter_until is not None and self.jitter_until > duration:
            duration = rng.uniform(duration, self.jitter_until)
        return ContainerRun(duration, self.exit_code)


def parse_stage(doc: Mapping[str, Any]) -> StageRule:
    """One ``Stage`` document (already parsed YAML) → a rule; raises ValueError naming the field."""
    if doc.get("kind") != "Stage":
        raise ValueError(f"expected kind: Stage, got {doc.get('kind')!r}")
    spec = doc.get("spec") or {}
    ref = spec.get("resourceRef") or {"kind": "Pod"}
    if ref.get("kind") != "Pod":
        raise ValueError(f"spec.resourceRef.kind: kbatch stages apply to Pods, not {ref.get('kind')!r}")
    selector, delay, nxt = spec.get("selector") or {}, spec.get("delay") or {}, spec.get("next") or {}
    exprs = tuple(Expression(e["key"], e["operator"], tuple(str(v) for v in e.get("values") or ()))
                  for e in selector.get("matchExpressions") or ())
    jitter = delay.get("jitterDurationMilliseconds")
    phase = nxt.get("phase")
    exit_code = int(nxt.get("exitCode", 1 if phase == "Failed" else 0))
    return StageRule(
        name=(doc.get("metadata") or {}).get("name", ""),
        match_labels=tuple(sorted((selector.get("matchLabels") or {}).items())),
        match_annotations=tuple(sorted((selector.get("matchAnnotations") or {}).items())),
        match_expressions=exprs,
        weight=int(spec.get("weight", 1)),
        duration=float(delay.get("durationMilliseconds", 0)) / 1000.0,
        jitter_until=float(jitter) / 1000.0 if jitter is not None else None,
        duration_from=(delay.get("durationFrom") or {}).get("expressionFrom"),
        exit_code=exit_code,
        reason=nxt.get("reason"),
        message=nxt.get("message", ""),
    )


def load_stages(text: str) -> list[StageRule]:
    """Every ``Stage`` in a YAML stream (other kinds are ignored)."""
    from ruamel.yaml import YAML

    docs = [d for d in YAML(typ="safe").load_all(text) if d]
    return [parse_stage(d) for d in docs if d.get("kind") == "Stage"]


def pick_stage(rules: Sequence[StageRule], pod: Mapping[str, Any], rng: random.Random) -> StageRule | None:
    """The matching rule, chosen by weight when several match (rule order breaks nothing)."""
    matching = [r for r in rules if r.matches(pod)]
    if len(matching) <= 1:
        return matching[0] if matching else None
    total = sum(max(r.weight, 0) for r in matching)
    if total <= 0:
        return matching[0]
    draw = rng.uniform(0, total)
    for rule in matching:
        draw -= max(rule.weight, 0)
        if draw <= 0:
            return rule
    return matching[-1]
