"""The ``kubernetes_feature_enabled`` gauge a Kubernetes component serves on ``/metrics``: one series
per feature gate, labelled with its name and stage, 1 when the gate is on, 0 when off
(k8s.io/component-base ``featuregate`` ``AddMetrics`` → ``metrics/prometheus/feature``
``RecordFeatureInfo``; kubernetes/kubernetes#112690). ``kbatch serve`` appends it to the control
plane's metrics, so a client (the conformance suite's HTTP target) learns the gates in force the way
it would from a cluster's API server."""

from __future__ import annotations

from kbatch.api.features import FeatureGates

__all__ = ["render_feature_enabled"]

HELP = "This metric records the data about the stage and enablement of a k8s feature."


def render_feature_enabled(gates: FeatureGates) -> str:
    """The gauge in the Prometheus text format (0.0.4), series sorted by gate name."""
    lines = ["# HELP kubernetes_feature_enabled " + HELP, "# TYPE kubernetes_feature_enabled gauge"]
    for spec in gates.specs:
        value = 1 if gates.enabled(spec.name) else 0
        lines.append(f'kubernetes_feature_enabled{{name="{spec.name}",stage="{spec.stage.value}"}} {value}')
    return "\n".join(lines) + "\n"
