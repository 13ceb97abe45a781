"""``kubectl describe`` lines of Pod and Node (k8s.io/kubectl ``pkg/describe/describe.go``,
``describePod``, ``describeNode``), after the common header."""

from __future__ import annotations

from kbatch.api.printing import Obj, kv_lines

__all__ = ["describe_node", "describe_pod"]


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


def describe_node(node: Obj) -> list[tuple[str, str]]:
    spec = node.get("spec") or {}
    taints = [f"{t['key']}" + (f"={t['value']}" if t.get("value") else "") + f":{t['effect']}"
              for t in spec.get("taints") or ()]
    out = [("Taints", taints[0] if taints else "<none>")] + [("", t) for t in taints[1:]]
    out.append(("Unschedulable", str(bool(spec.get("unschedulable"))).lower()))
    for title in ("capacity", "allocatable"):
        out += kv_lines(title.capitalize(), (node.get("status") or {}).get(title))
    return out
