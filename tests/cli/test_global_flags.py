"""kubectl's flag habits: the global options (``--state``, ``--server``, ``--controllers``, ``--token``,
``-n``) are accepted before or after the command, at any depth, the last occurrence winning
(cobra's persistent flags, k8s.io/kubectl ``pkg/cmd/cmd.go``); the environment variables still
apply. Through typer's CliRunner, and as real processes against a real ``kbatch serve``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kbatch.cli.app import app
from kbatch.cli.options import hoist_globals
from kbatch.server.process import ServeProcess

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TIMEOUT = 60


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, list(args), env=env)
    return res.exit_code, res.stdout, res.stderr


def test_state_before_or_after_the_command_is_the_same_directory(tmp_path: Path) -> None:
    state = str(tmp_path / "s")
    assert invoke("nodes", "add", "--count", "2", "--state", state)[0] == 0  # after a nested command
    assert invoke("nodes", "--state", state, "add", "--prefix", "gpu")[0] == 0  # between group and command
    assert invoke("apply", "-f", str(EXAMPLES / "pi-job.yaml"), "--state", state)[0] == 0
    before = invoke("--state", state, "get", "nodes", "-o", "name")
    after = invoke("get", "nodes", "-o", "name", f"--state={state}")
    assert before[0] == after[0] == 0 and before[1] == after[1]
    assert before[1].split() == ["node/gpu-0", "node/node-0", "node/node-1"]
    assert invoke("get", "job", "pi", "--state", state)[0] == 0


def test_namespace_anywhere_and_the_last_one_wins(tmp_path: Path) -> None:
    state = str(tmp_path / "s")
    manifest = (EXAMPLES / "pi-job.yaml").read_text()
    (tmp_path / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n")
    assert invoke("apply", "-f", str(tmp_path / "ns.yaml"), "--state", state)[0] == 0
    (tmp_path / "pi.yaml").write_text(manifest)
    assert invoke("-n", "team", "apply", "-f", str(tmp_path / "pi.yaml"), "--state", state)[0] == 0
    code, out, _ = invoke("get", "jobs", "-A", "--state", state, "--no-headers")
    assert code == 0 and out.split()[0] == "team"
    assert invoke("-n", "team", "--state", state, "get", "job", "pi")[0] == 0  # global before
    assert invoke("get", "job", "pi", "--state", state, "-nteam")[0] == 0  # attached value after
    code, _, err = invoke("-n", "team", "get", "job", "pi", "-n", "default", "--state", state)
    assert code == 1 and 'jobs.batch "pi" not found' in err  # the later -n wins
    code, out, _ = invoke("events", "--for", "job/pi", "-o", "json", "--state", state, "-n", "team")
    events = json.loads(out)["items"]
    assert code == 0 and events and {e["metadata"]["namespace"] for e in events} == {"team"}


def test_controllers_after_the_command_is_validated_and_used(tmp_path: Path) -> None:
    state = str(tmp_path / "s")
    code, _, err = invoke("get", "pods", "--state", state, "--controllers", "bogus")
    assert code == 1 and "unknown controller 'bogus'" in err
    code, out, _ = invoke("controllers", "--controllers", "job")
    rows = {line.split()[0]: line.split()[2] for line in out.splitlines()[1:]}
    assert code == 0 and rows["job"] == "yes" and rows["podgc"] == "no"


def test_environment_variables_still_apply_and_flags_override_them(tmp_path: Path) -> None:
    env = {"KBATCH_STATE": str(tmp_path / "env"), "KBATCH_CONTROLLERS": "job"}
    assert invoke("nodes", "add", env=env)[0] == 0
    assert (tmp_path / "env" / "state.kbatch").exists()
    assert invoke("nodes", "add", "--state", str(tmp_path / "flag"), env=env)[0] == 0
    assert (tmp_path / "flag" / "state.kbatch").exists()
    out = invoke("controllers", env=env)[1]
    assert [r.split()[2] for r in out.splitlines()[1:] if r.split()[0] == "scheduler"] == ["no"]


def test_option_values_that_look_like_global_flags_stay_values(tmp_path: Path) -> None:
    state = str(tmp_path / "s")
    code, _, err = invoke("patch", "pod", "x", "-p", "--state", "--state", state)
    assert code == 1 and 'pods "x" not found' in err  # -p took "--state" as its value
    code, _, err = invoke("get", "pods", "--state")  # click's usage error (main() exits 1 for it)
    assert code == 2 and "Option '--state' requires an argument." in err


def test_a_command_own_option_of_the_same_name_is_kept() -> None:
    # serve --token is the token the server requires; conformance --server its own target
    root = _root()
    assert hoist_globals(root, None, ["serve", "--token", "t"]) == ["serve", "--token", "t"]
    assert hoist_globals(root, None, ["conformance", "--server", "u"]) == ["conformance", "--server", "u"]
    assert hoist_globals(root, None, ["get", "pods", "--state", "d"]) == ["--state", "d", "get", "pods"]
    assert hoist_globals(root, None, ["--state", "a", "get", "--state", "b"]) == [
        "--state", "a", "--state", "b", "get"]
    assert hoist_globals(root, None, ["get", "--", "--state", "d"]) == ["get", "--", "--state", "d"]


def test_a_shorthand_with_equals_is_read_as_pflag_reads_it() -> None:
    # spf13/pflag parseSingleShortArg: "-v=4" is -v with value 4, "-n=team" is -n team
    root = _root()
    assert hoist_globals(root, None, ["-v=4", "get", "pods"]) == ["-v4", "get", "pods"]
    assert hoist_globals(root, None, ["get", "pods", "-v=4", "-n=team"]) == ["-v4", "get", "pods", "-nteam"]
    assert hoist_globals(root, None, ["get", "pods", "-o=name"]) == ["get", "pods", "-oname"]  # own option
    value = ["patch", "pod", "x", "-p", "-n=1"]  # an option's value is left as it is
    assert hoist_globals(root, None, value) == value


def test_v_and_n_with_equals_through_the_cli(tmp_path: Path) -> None:
    code, _, err = invoke("-v=4", "get", "pods", "-n=kube-system", "--state", str(tmp_path / "s"))
    assert code == 0 and err == "No resources found in kube-system namespace.\n"


def _root() -> object:
    import typer.main

    return typer.main.get_command(app)


GLOBALS = [("--state", "S"), ("--controllers", "*"), ("--server", "U"), ("--token", "T"), ("-n", "N")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(GLOBALS), max_size=4), st.lists(st.sampled_from(GLOBALS), max_size=4),
       st.sampled_from([["get", "pods", "-o", "name"], ["nodes", "add", "--count", "2"], ["advance", "1m"],
                        ["apply", "-f", "-", "--dry-run", "client"]]))
def test_hoisting_keeps_the_command_and_puts_globals_in_order_before_it(
        before: list[tuple[str, str]], after: list[tuple[str, str]], command: list[str]) -> None:
    """Moving the globals is a permutation: the command's own tokens keep their order, the globals
    keep theirs (so the last occurrence still wins) and come before the command name, except an
    option the command declares itself."""
    owned = {"-n"} if command[0] in ("get", "apply") else set()  # these declare -n themselves
    flat = [t for pair in before for t in pair]
    tail = [t for pair in after for t in pair]
    out = hoist_globals(_root(), None, [*flat, *command, *tail])
    cut = out.index(command[0])
    assert out[:cut] == [*flat, *(t for pair in after if pair[0] not in owned for t in pair)]
    assert out[cut:] == [*command, *(t for pair in after if pair[0] in owned for t in pair)]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbatch.cli", *args], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env or dict(os.environ))


@pytest.mark.parametrize("token", [None, "s3cret"])
def test_real_processes_with_every_global_after_the_command(tmp_path: Path, token: str | None) -> None:
    extra = ("--token", token) if token else ()
    with ServeProcess(tmp_path / "served", *extra, controllers="*,-podgc", globals_after=True) as server:
        assert (tmp_path / "served" / "kubeconfig").exists()  # `serve --state D` used D
        auth = ("--token", token) if token else ()
        added = run("nodes", "add", "--count", "1", "--server", server.url, *auth)
        assert added.returncode == 0, added.stderr
        listed = run("get", "nodes", "-o", "name", "--server", server.url, *auth)
        assert listed.returncode == 0 and listed.stdout.split() == ["node/node-0"]
        if token:
            refused = run("get", "nodes", "--server", server.url, "--token", "wrong")
            assert refused.returncode == 1 and "must be logged in" in refused.stderr
        controllers = run("get", "--server", server.url, *auth, "pods", "-n", "kube-system")
        assert controllers.returncode == 0 and "No resources found in kube-system" in controllers.stderr
    assert any("state saved" in line for line in server.output)
