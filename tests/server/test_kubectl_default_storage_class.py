"""The real kubectl against ``kbatch serve``: a new cluster's default StorageClass ``standard``
(docs/storage.md, "The default StorageClass"), as a kind user sees it. ``kubectl get storageclass``
shows ``standard (default)``; a claim applied without a class is given it by the DefaultStorageClass
admission, binds once its pod is scheduled (WaitForFirstConsumer) and the pod runs; a class deleted
with kubectl is still gone when ``kbatch serve`` restarts on the same state directory; and
``--no-default-storage-class`` serves a new state without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbatch.cli import main
from kbatch.server.process import ServeProcess
from tests.cli.test_default_storage_class_cli import WORKLOAD  # a classless claim and its pod
from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)


def kb(served: Any, *args: str) -> None:
    try:
        main(["--server", served.url, *args])
    except SystemExit as exit_:
        assert not exit_.code, args


def stop(server: ServeProcess) -> None:
    assert server.stop() == 0, "".join(server.output)


def test_kubectl_sees_standard_and_a_classless_claim_binds(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path / "state").start()
    try:
        rows = kubectl(server, "get", "storageclass").stdout.splitlines()
        assert rows[0].split() == ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE",
                                   "ALLOWVOLUMEEXPANSION", "AGE"]
        assert rows[1].split()[:6] == ["standard", "(default)", "kbatch.io/simulated", "Delete",
                                       "WaitForFirstConsumer", "false"]
        kb(server, "nodes", "add", "--count", "2")
        kubectl(server, "apply", "-f", "-", input_=WORKLOAD)
        got = kubectl(server, "get", "pvc", "data", "-o", "jsonpath={.spec.storageClassName}").stdout
        assert got == "standard"
        kb(server, "advance", "5s")  # PreBind waits for the binding, polling each second
        kubectl(server, "wait", "--for=jsonpath={.status.phase}=Bound", "pvc/data", "--timeout=20s")
        kubectl(server, "wait", "--for=jsonpath={.status.phase}=Running", "pod/user", "--timeout=20s")
        described = kubectl(server, "describe", "pvc", "data").stdout
        assert "StorageClass:  standard" in described and "ProvisioningSucceeded" in described
    finally:
        stop(server)


def test_a_class_deleted_with_kubectl_stays_deleted_after_a_restart(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path / "state").start()
    try:
        out = kubectl(server, "delete", "storageclass", "standard").stdout
        assert out.strip() == 'storageclass.storage.k8s.io "standard" deleted'
    finally:
        stop(server)
    again = ServeProcess(tmp_path / "state").start()
    try:
        assert kubectl(again, "get", "storageclass").stderr.startswith("No resources found")
    finally:
        stop(again)


def test_serve_a_new_state_without_the_default_class(tmp_path: Path) -> None:
    # `kbatch serve --port 0 --no-default-storage-class --state D`: a global option after the command
    server = ServeProcess(tmp_path / "state", "--no-default-storage-class", globals_after=True).start()
    try:
        assert kubectl(server, "get", "storageclass").stderr.startswith("No resources found")
    finally:
        stop(server)
