"""A pod whose script uses parameter expansion operators and ``set -e``, through the ``kbatch`` CLI,
each command its own process: ``kbatch logs`` shows what bash and dash would print (``HOSTNAME`` is
the runtime's: the pod's name)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.processes import kbatch_ok

POD = """apiVersion: v1
kind: Pod
metadata: {name: trainer-worker-3}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    env:
    - {name: FILE, value: /data/model.ckpt}
    command: [sh, -ec]
    args:
    - |
      echo "rank ${HOSTNAME##*-} of ${WORLD:-1} from ${FILE##*/} stem ${FILE%.*}"
      false
      echo never
"""


def test_logs_show_the_expanded_operators_and_set_e_stops_the_script(tmp_path: Path) -> None:
    state = tmp_path / "state"
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(POD)
    kbatch_ok(state, "nodes", "add")
    kbatch_ok(state, "apply", "-f", str(manifest))
    kbatch_ok(state, "advance", "10s")
    assert kbatch_ok(state, "logs", "trainer-worker-3") == "rank 3 of 1 from model.ckpt stem /data/model\n"
    status = kbatch_ok(state, "get", "pod", "trainer-worker-3", "-o",
                       "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}")
    assert status == "1"
