"""``kbatch api-resources`` and ``kbatch api-versions`` print what the real kubectl (v1.32 on this
machine) prints against ``kbatch serve``, byte for byte: on the served state (``--server``) and on a
local state directory of the same defaults (k8s.io/kubectl ``pkg/cmd/apiresources``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
TIMEOUT = 60

# flag sets whose output kubectl 1.32 and 1.37 print alike (1.32 has no -o json|yaml here)
FLAG_SETS = [[], ["-o", "wide"], ["-o", "name"], ["--namespaced=false"], ["--namespaced=true"],
             ["--api-group", "batch"], ["--api-group="], ["--verbs", "list,watch"], ["--sort-by", "kind"],
             ["--sort-by", "name", "-o", "wide"], ["--categories", "all"], ["--no-headers"],
             ["--api-group", "nothing.example.com"]]


def _out(cmd: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    return done.returncode, done.stdout, done.stderr


def test_api_resources_and_versions_print_what_kubectl_prints(tmp_path: Path) -> None:
    local = [sys.executable, "-m", "kbatch", "--state", str(tmp_path / "local")]
    with ServeProcess(tmp_path / "state") as server:
        remote = [sys.executable, "-m", "kbatch", "--server", server.url]
        for flags in FLAG_SETS:
            code, expected, err = _out([KUBECTL, "api-resources", *flags], server.env())  # type: ignore[list-item]
            assert code == 0, err
            assert expected.count("\n") >= 1, flags  # a header at least
            assert _out([*remote, "api-resources", *flags]) == (0, expected, ""), flags
            assert _out([*local, "api-resources", *flags]) == (0, expected, ""), flags
        code, versions, _ = _out([KUBECTL, "api-versions"], server.env())  # type: ignore[list-item]
        assert code == 0 and "batch/v1\n" in versions and "v1\n" in versions
        assert _out([*remote, "api-versions"]) == (0, versions, "")
        assert _out([*local, "api-versions"]) == (0, versions, "")


def test_api_resources_refusals_are_kubectls(tmp_path: Path) -> None:
    kbatch = [sys.executable, "-m", "kbatch", "--state", str(tmp_path / "local")]
    assert _out([*kbatch, "api-resources", "pods"]) == (
        1, "", "error: unexpected arguments: [pods]\nSee 'kbatch api-resources -h' for help and examples\n")
    assert _out([*kbatch, "api-resources", "--sort-by", "group"]) == (
        1, "", "error: --sort-by accepts only name or kind\n")
    code, _, err = _out([*kbatch, "api-resources", "--namespaced=maybe"])
    assert code == 1 and err.startswith('Error: invalid argument "maybe" for "--namespaced" flag: '
                                        'strconv.ParseBool: parsing "maybe": invalid syntax\n')
    code, _, err = _out([*kbatch, "api-resources", "-o", "table"])
    assert code == 1 and err == ('error: unable to match a printer suitable for the output format "table", '
                                 "allowed formats are: json,name,wide,yaml\n")
