"""Each command starts the API server again, and with it kube-apiserver's system-namespaces controller
(pkg/controlplane/controller/systemnamespaces: a post-start hook that syncs at once): a deleted
kube-node-lease is back at the next command."""

from __future__ import annotations

from tests.cli.conftest import Kbatch


def test_the_next_command_recreates_a_deleted_system_namespace(kb: Kbatch) -> None:
    kb.ok("delete", "namespace", "kube-node-lease")
    kb.ok("advance", "30s")  # the namespace controller finishes the delete
    assert "kube-node-lease" in kb.ok("get", "namespaces", "-o", "name")
