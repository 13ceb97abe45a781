"""A saved image of a busy world is the same bytes whatever the process's ``PYTHONHASHSEED``.

``test_image_columns.py`` checks a plain Job run; a world where the scheduler keeps unschedulable
pods' decisions (their cycle state names the plugins whose Score was skipped) and Kueue holds its
ClusterQueues' settings (a resource group's covered resources) stored sets of strings, which pickle
writes in their hash order: two processes with different seeds wrote different images of the same
run. Both now reach the image ordered (the scheduler keeps the names as dict keys in the order
skipped, ``ResourceGroup`` pickles its frozenset sorted)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

_WRITE_IMAGE = """
import io, pickle, sys, hashlib
from pathlib import Path
from kbatch.api.core_v1 import Pod
from kbatch.apiserver.manifests import load_manifests
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.pickling import ImagePickler

cp = ControlPlane()
for i in range(3):  # 6 cpu in all: the big Job below leaves pods unschedulable
    cp.apply({{"apiVersion": "v1", "kind": "Node",
              "metadata": {{"name": f"n{{i}}", "labels": {{"zone": f"z{{i % 2}}"}}}},
              "status": {{"capacity": {{"cpu": "2", "memory": "8Gi", "pods": "110"}}}}}})
for name in {files!r}:
    for doc in load_manifests((Path({examples!r}) / name).read_text()):
        cp.apply(doc)
cp.apply({{"apiVersion": "batch/v1", "kind": "Job", "metadata": {{"name": "big", "namespace": "default"}},
          "spec": {{"completions": 40, "parallelism": 40, "template": {{"spec": {{"restartPolicy": "Never",
           "containers": [{{"name": "m", "image": "busybox", "command": ["sleep", "600"],
                           "resources": {{"requests": {{"cpu": "300m"}}}}}}]}}}}}}}})
cp.advance(20)
pending = [p for p in cp.client.list(Pod).items if p.status is not None and p.status.phase == "Pending"]
assert pending, "the world must hold unschedulable pods"
out = io.BytesIO()
ImagePickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(cp)
sys.stdout.write(hashlib.sha256(out.getvalue()).hexdigest())
"""

FILES = ["kueue/queues.yaml", "kueue/job.yaml", "jobset.yaml", "gang/coscheduling-podgroup.yaml",
         "pod-failure-policy.yaml"]


def test_a_busy_world_image_does_not_follow_the_hash_seed() -> None:
    code = _WRITE_IMAGE.format(files=FILES, examples=str(EXAMPLES))
    digests = {seed: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                    timeout=600, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2", "3")}
    assert len(set(digests.values())) == 1, digests
    assert all(len(d) == len(hashlib.sha256().hexdigest()) for d in digests.values())
