"""Feature gates as kube-* components have them: ``--feature-gates=Name=true,Other=false``.

A :class:`FeatureSpec` is what a gate is at the modelled release (Kubernetes 1.37): its stage
(``ALPHA``, ``BETA``, ``GA``, ``DEPRECATED``), its default, and whether it is locked to that default
(upstream locks a gate when it goes GA). Families declare the gates their behaviour depends on
(:class:`kbatch.families.Family`); :class:`FeatureGates` is the resolved value a control plane owns
and hands to whatever decides by a gate (controllers through their context, the API server, the
scheduler's plugins). It never changes after construction: one run, one set of gates.

Upstream: ``k8s.io/component-base/featuregate/feature_gate.go`` (``Set``/``SetFromMap``: an unknown
gate is an error; a locked gate may only be set to its locked value; an enabled gate whose
dependencies are not all enabled is an error, ``unsafeSetFromMap`` at v0.37.0-beta.0, the
dependencies declared with ``AddDependencies`` as ``pkg/features/kube_features.go``'s
``defaultKubernetesFeatureGateDependencies``) and the per-release gate pages of kubernetes/website
``content/en/docs/reference/command-line-tools-reference/feature-gates/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["FeatureGateError", "FeatureGates", "FeatureSpec", "Stage", "parse_feature_gates"]


class Stage(StrEnum):
    ALPHA = "ALPHA"
    BETA = "BETA"
    GA = ""
    DEPRECATED = "DEPRECATED"


class FeatureGateError(ValueError):
    """A ``--feature-gates`` value that cannot be applied (unknown gate, bad value, locked gate)."""


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """One gate at the modelled release; ``source`` cites where its stage and default come from."""

    name: str
    default: bool
    stage: Stage
    locked: bool = False
    source: str = ""
    depends_on: tuple[str, ...] = ()  # gates that must be on while this one is (AddDependencies)

    def describe(self) -> str:
        """``Name=true|false (STAGE - default=…)`` as ``kube-apiserver --help`` lists gates."""
        stage = self.stage.value or "GA"
        return f"{self.name}=true|false ({stage} - default={str(self.default).lower()})"


# Go's strconv.ParseBool
_GO_BOOLS = {**dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
             **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False)}


def parse_feature_gates(text: str | None) -> dict[str, bool]:
    """``"A=true, B=false"`` → ``{"A": True, "B": False}`` (upstream ``Set``'s syntax)."""
    out: dict[str, bool] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep:
            raise FeatureGateError(f"missing bool value for {name}")
        if value not in _GO_BOOLS:
            raise FeatureGateError(f"invalid value of {name}={value}, err: strconv.ParseBool: "
                                   f'parsing "{value}": invalid syntax')
        out[name] = _GO_BOOLS[value]
    return out


class FeatureGates:
    """The gates in force: every known gate's default, overridden by ``overrides``."""

    def __init__(self, specs: Iterable[FeatureSpec] = (), overrides: Mapping[str, bool] | str | None = None
                 ) -> None:
        self._specs: dict[str, FeatureSpec] = {}
        for spec in specs:
            if spec.name in self._specs and self._specs[spec.name] != spec:
                raise FeatureGateError(f"feature gate {spec.name} is declared twice, differently")
            self._specs[spec.name] = spec
        wanted = parse_feature_gates(overrides) if isinstance(overrides, str) or overrides is None \
            else dict(overrides)
        self._enabled = {name: spec.default for name, spec in self._specs.items()}
        for name in sorted(wanted):
            known = self._specs.get(name)
            if known is None:
                raise FeatureGateError(f"unrecognized feature gate: {name}")
            if known.locked and wanted[name] != known.default:
                raise FeatureGateError(f"cannot set feature gate {name} to {str(wanted[name]).lower()}, "
                                       f"feature is locked to {str(known.default).lower()}")
            self._enabled[name] = wanted[name]
        self._check_dependencies()

    def _check_dependencies(self) -> None:
        """Upstream's check after a successful set: every enabled gate's dependencies are enabled
        ("X is enabled, but depends on features that are disabled: [Y]"; several such errors are
        listed as ``utilerrors.NewAggregate`` prints them, in gate order here for determinism)."""
        errors = []
        for name, spec in sorted(self._specs.items()):
            for dep in spec.depends_on:
                if dep not in self._specs:
                    raise FeatureGateError(f"cannot add dependency from {name} to unknown feature {dep}")
            off = sorted(dep for dep in spec.depends_on if not self._enabled[dep])
            if self._enabled[name] and off:
                errors.append(f"{name} is enabled, but depends on features that are disabled: "
                              f"[{' '.join(off)}]")
        if len(errors) == 1:
            raise FeatureGateError(errors[0])
        if errors:
            raise FeatureGateError(f"[{', '.join(errors)}]")

    def enabled(self, name: str) -> bool:
        """Whether gate ``name`` is on; asking for a gate nobody declared is a programming error."""
        try:
            return self._enabled[name]
        except KeyError:
            raise KeyError(f"feature gate {name!r} is not declared by any family") from None

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    @property
    def specs(self) -> list[FeatureSpec]:
        """Every known gate, sorted by name."""
        return [self._specs[n] for n in sorted(self._specs)]

    def overridden(self) -> dict[str, bool]:
        """The gates whose value differs from their default, sorted by name."""
        return {n: v for n, v in sorted(self._enabled.items()) if v != self._specs[n].default}

    def as_flag(self) -> str:
        """The ``--feature-gates`` value that reproduces these gates (``""`` for the defaults)."""
        return ",".join(f"{n}={str(v).lower()}" for n, v in self.overridden().items())

    def __repr__(self) -> str:
        return f"FeatureGates({self.as_flag()!r})"
