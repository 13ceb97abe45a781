"""Per-kind API strategies (defaulting, validation, immutability), one module per API group.

``core`` covers core/v1 and scheduling.k8s.io/v1; ``batch`` covers batch/v1. Import the module you
need (``from kbatch.api.strategies.core import default_pod_spec``); nothing is re-exported here so
that importing one group never loads the others.
"""

__all__: list[str] = []
