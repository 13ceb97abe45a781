"""``kbatch describe jobset`` lines after the common header.

kubectl describes a custom resource with its generic describer (the whole object as nested fields);
kbatch gives the same information as readable lines: the policies, each replicated job with its
replicas and its Jobs' counts, the restarts and the terminal state (the conditions and events follow,
as for every kind).
"""

from __future__ import annotations

from kbatch.api.printing import Obj

__all__ = ["describe_jobset"]


def _rules(policy: Obj) -> list[tuple[str, str]]:
    out = []
    for rule in policy.get("rules") or ():
        parts = [f"{rule.get('name', '')}: {rule.get('action', '')}"]
        for key, label in (("onJobFailureReasons", "reasons"), ("onJobFailureMessagePatterns", "messages"),
                           ("targetReplicatedJobs", "targets")):
            if rule.get(key):
                parts.append(f"{label} {','.join(rule[key])}")
        out.append(("", "; ".join(parts)))
    return out


def _policies(spec: Obj) -> list[tuple[str, str]]:
    success = spec.get("successPolicy") or {}
    targets = ",".join(success.get("targetReplicatedJobs") or ()) or "all"
    out = [("Success Policy", f"{success.get('operator', '<unset>')} of {targets}")]
    failure = spec.get("failurePolicy")
    if failure is None:
        out.append(("Failure Policy", "<unset> (the first Job failure fails the JobSet)"))
    else:
        out.append(("Failure Policy", f"maxRestarts {failure.get('maxRestarts', 0)}, restartStrategy "
                                      f"{failure.get('restartStrategy', 'Recreate')}"))
        out += _rules(failure)
    order = (spec.get("startupPolicy") or {}).get("startupPolicyOrder", "AnyOrder")
    out.append(("Startup Policy", order))
    network = spec.get("network") or {}
    out.append(("Network", f"DNS hostnames {str(network.get('enableDNSHostnames', False)).lower()}, "
                           f"subdomain {network.get('subdomain') or '<jobset name>'}, publish not ready "
                           f"{str(network.get('publishNotReadyAddresses', True)).lower()}"))
    return out


def _replicated_jobs(spec: Obj, status: Obj) -> list[tuple[str, str]]:
    counts = {s.get("name"): s for s in status.get("replicatedJobsStatus") or ()}
    out: list[tuple[str, str]] = []
    for i, rjob in enumerate(spec.get("replicatedJobs") or ()):
        name = rjob.get("name", "")
        line = f"{name}: {rjob.get('replicas', 1)} x Job (group {rjob.get('groupName', 'default')})"
        deps = ", ".join(f"{d.get('name')} {d.get('status')}" for d in rjob.get("dependsOn") or ())
        if deps:
            line += f", after {deps}"
        st = counts.get(name)
        if st is not None:
            line += (f"; {st.get('ready', 0)} ready, {st.get('active', 0)} active, {st.get('succeeded', 0)} "
                     f"succeeded, {st.get('failed', 0)} failed, {st.get('suspended', 0)} suspended")
        out.append(("Replicated Jobs" if i == 0 else "", line))
    return out or [("Replicated Jobs", "<none>")]


def describe_jobset(js: Obj) -> list[tuple[str, str]]:
    spec, status = js.get("spec") or {}, js.get("status") or {}
    out = [("Suspend", str(bool(spec.get("suspend"))).lower())]
    out += _replicated_jobs(spec, status)
    out += _policies(spec)
    coordinator = spec.get("coordinator")
    if coordinator:
        out.append(("Coordinator", f"{coordinator.get('replicatedJob')} job {coordinator.get('jobIndex', 0)} "
                                   f"pod {coordinator.get('podIndex', 0)}"))
    for key, label in (("managedBy", "Managed By"),
                       ("ttlSecondsAfterFinished", "TTL Seconds After Finished")):
        if spec.get(key) is not None:
            out.append((label, str(spec[key])))
    out.append(("Restarts", f"{status.get('restarts', 0)} ({status.get('restartsCountTowardsMax', 0)} count "
                            "towards max)"))
    out.append(("Terminal State", status.get("terminalState") or "<none>"))
    return out
