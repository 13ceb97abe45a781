"""The ClusterProfile CRD's structural schema, as a :class:`~kbatch.api.strategies.kueue.schema.Node`.

A transcription of kubernetes-sigs/cluster-inventory-api
``config/crd/bases/multicluster.x-k8s.io_clusterprofiles.yaml`` (generated from the ``+kubebuilder``
markers of ``apis/v1alpha1/clusterprofile_types.go``): ``spec.clusterManager`` required and immutable
("ClusterManager is immutable"), the list-map keys of the status lists, a provider's ``cluster.server``
required, the property lengths and the metav1.Condition constraints (no ``maxItems`` here).
"""

from __future__ import annotations

from dataclasses import replace

from kbatch.api.strategies.kueue.schema import Node, Rule
from kbatch.api.strategies.kueue.schemas import CONDITIONS, _list, _obj, _str

__all__ = ["CLUSTER_PROFILE"]

_CONDITIONS = replace(CONDITIONS, max_items=None)  # metav1.Condition, without Kueue's maxItems

_PROVIDERS = _list(
    _obj(
        required=("name",),
        name=_str(),
        cluster=_obj(
            required=("server",),
            extensions=_list(_obj(required=("extension", "name"), name=_str(), extension=Node("any"))),
        ),
    ),
    map_keys=("name",),
)

CLUSTER_PROFILE = _obj(
    required=("spec",),
    spec=_obj(
        required=("clusterManager",),
        clusterManager=_obj(
            required=("name",),
            rules=(Rule(lambda new, old: new == old, "ClusterManager is immutable", transition=True),),
        ),
    ),
    status=_obj(
        conditions=_CONDITIONS,
        properties=_list(
            _obj(
                required=("name", "value"),
                name=_str(max_length=253, min_length=1),
                value=_str(max_length=1024, min_length=1),
            ),
            map_keys=("name",),
        ),
        credentialProviders=_PROVIDERS,
        accessProviders=_PROVIDERS,
    ),
)
