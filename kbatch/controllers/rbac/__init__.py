"""Controllers of the rbac family (kube-controller-manager's RBAC controllers)."""
