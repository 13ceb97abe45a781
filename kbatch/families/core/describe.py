"""``kubectl describe`` lines of a Pod (k8s.io/kubectl ``pkg/describe/describe.go``, ``describePod``),
after the common header. A Node has kubectl's whole page, :mod:`kbatch.families.core.node_page`."""

from __future__ import annotations

from kbatch.api.printing import Obj

__all__ = ["describe_pod"]


def describe_pod(pod: Obj) -> list[tuple[str, str]]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    out = [("Node", spec.get("nodeName") or "<none>"), ("Start Time", status.get("startTime") or "<unset>"),
           ("Status", status.get("phase", "")), ("IP", status.get("podIP") or "")]
    if status.get("reason"):
        out.append(("Reason", status["reason"]))
    generated = {c.get("name"): c.get("resourceClaimName") for c in status.get("resourceClaimStatuses") or ()}
    for i, claim in enumerate(spec.get("resourceClaims") or ()):  # DRA: each claim and where it comes from
        source = (f"ResourceClaim {claim['resourceClaimName']}" if claim.get("resourceClaimName") else
                  f"template {claim.get('resourceClaimTemplateName')} -> "
                  f"{generated.get(claim.get('name')) or '<not created yet>'}")
        out.append(("Resource Claims" if i == 0 else "", f"{claim.get('name')}: {source}"))
    for st in status.get("containerStatuses") or ():
        state = st.get("state") or {}
        which = next(iter(state), "waiting")
        detail = state.get(which) or {}
        out.append((f"Container {st.get('name')}", f"{which.capitalize()}"
                    + (f" ({detail['reason']})" if detail.get("reason") else "")
                    + (f", exit code {detail['exitCode']}" if "exitCode" in detail else "")
                    + f", restarts {st.get('restartCount', 0)}"))
    return out

