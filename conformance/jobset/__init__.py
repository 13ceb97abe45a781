"""The ``jobset`` conformance family: jobset.x-k8s.io/v1alpha2 JobSet (kubernetes-sigs/jobset v0.12),
its controller and webhooks, checked through the :class:`~conformance.target.Target` protocol.

On a real cluster the JobSet controller must be installed (its CRD, webhooks and manager); without
it select the other families (``--family job``).
"""
