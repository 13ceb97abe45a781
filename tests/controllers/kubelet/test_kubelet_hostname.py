"""``HOSTNAME`` in a container's environment: the pod's hostname, as the runtime sets it.

Upstream: the kubelet's ``GeneratePodHostNameAndDomain`` and ``truncatePodHostnameIfNeeded``
(``pkg/kubelet/kubelet_pods.go``), the FQDN of ``setHostnameAsFQDN`` (``kuberuntime_sandbox.go``), and
containerd's CRI putting ``HOSTNAME`` before the container's own variables.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from kbatch.controllers.kubelet.hostname import pod_hostname
from kbatch.controllers.kubelet.logs import pod_logs

from .cluster import sim_cluster


def _pod(name: str, hostname: str | None = None, subdomain: str | None = None,
         fqdn: bool | None = None, namespace: str = "ns") -> SimpleNamespace:
    return SimpleNamespace(metadata=SimpleNamespace(name=name, namespace=namespace),
                           spec=SimpleNamespace(hostname=hostname, subdomain=subdomain,
                                                set_hostname_as_fqdn=fqdn))


def test_the_pods_name_or_its_hostname() -> None:
    assert pod_hostname(_pod("p")) == "p"
    assert pod_hostname(_pod("job-0-abcde", hostname="job-0")) == "job-0"


def test_a_long_name_is_cut_to_63_without_a_trailing_dash_or_dot() -> None:
    name = "a" * 62 + "-" + "b" * 10
    assert pod_hostname(_pod(name)) == "a" * 62
    assert pod_hostname(_pod("c" * 61 + ".-x")) == "c" * 61


def test_set_hostname_as_fqdn_needs_a_subdomain() -> None:
    assert pod_hostname(_pod("p", "h", "svc", True)) == "h.svc.ns.svc.cluster.local"
    assert pod_hostname(_pod("p", "h", None, True)) == "h"
    assert pod_hostname(_pod("p", "h", "svc", False)) == "h"


@given(st.text(alphabet="abc-.", min_size=1, max_size=120))
def test_never_longer_than_63_and_never_ends_in_a_separator_when_cut(name: str) -> None:
    got = pod_hostname(_pod(name))
    assert len(got) <= 63
    assert got == name if len(name) <= 63 else not got.endswith(("-", "."))
    assert name.startswith(got)


POD = """
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - {name: runtime, image: bash:5, command: [bash, -c, 'echo "$HOSTNAME ${HOSTNAME}"']}
  - name: own
    image: bash:5
    command: [bash, -c, 'echo "$HOSTNAME"; echo "$REF"']
    env: [{name: HOSTNAME, value: mine}, {name: REF, value: "$(HOSTNAME)"}]
  - name: unexpanded
    image: bash:5
    command: [bash, -c, 'echo "$X"']
    env: [{name: X, value: "$(HOSTNAME)"}]
"""


def test_containers_see_the_runtimes_hostname_under_their_own_variables() -> None:
    cp = sim_cluster(1)
    cp.apply(POD)
    cp.advance(5)
    assert pod_logs(cp, "default", "p", "runtime") == "p p\n"
    assert pod_logs(cp, "default", "p", "own") == "mine\nmine\n", "a variable of the container wins"
    assert pod_logs(cp, "default", "p", "unexpanded") == "$(HOSTNAME)\n", "added after expansion"
