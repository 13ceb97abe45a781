"""The image-behaviour table (kbatch.sim.images): what a container runs when its command comes from
its image, and KWOK's rule for what nothing models (kubernetes-sigs/kwok
kustomize/stage/pod/fast/pod-complete.yaml selects pods owned by a Job)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.images import (
    IMAGES,
    PROGRAMS,
    Outcome,
    image_argv,
    image_name,
    owned_by_job,
    unknown_duration,
)

FOREVER, EXITS = Outcome.FOREVER.value, Outcome.EXITS.value


@pytest.mark.parametrize(("image", "want"), [
    ("registry.k8s.io/pause:3.10", "pause"),
    ("docker.io/library/nginx", "nginx"),
    ("registry.k8s.io/e2e-test-images/agnhost:2.53", "agnhost"),
    ("localhost:5000/busybox:1.36@sha256:abc", "busybox"),
    ("perl:5.34.0", "perl"),
    ("myorg/trainer", "trainer"),
])
def test_image_name_drops_registry_path_tag_and_digest(image: str, want: str) -> None:
    assert image_name(image) == want


@pytest.mark.parametrize(("image", "command", "args", "want"), [
    # no command: the image's ENTRYPOINT and CMD
    ("registry.k8s.io/pause:3.6", (), (), FOREVER),
    ("registry.k8s.io/e2e-test-images/agnhost:2.53", (), (), FOREVER),  # CMD ["pause"]
    ("registry.k8s.io/e2e-test-images/agnhost:2.53", (), ("netexec", "--http-port=8080"), FOREVER),
    ("registry.k8s.io/e2e-test-images/agnhost:2.53", (), ("serve-hostname",), FOREVER),
    ("registry.k8s.io/e2e-test-images/agnhost:2.53", (), ("entrypoint-tester", "hello", "world"),
     ("echo", "[/agnhost entrypoint-tester hello world]")),
    ("nginx:1.27", (), (), FOREVER),
    ("httpd", (), (), FOREVER),
    ("redis:7", (), (), FOREVER),
    ("redis:7", (), ("--appendonly", "yes"), FOREVER),  # a flag: the entrypoint runs redis-server
    ("busybox", (), (), EXITS),  # CMD sh, no tty: reads an empty stdin and exits 0
    ("python:3.12", (), (), EXITS),
    ("perl:5.34.0", (), (), EXITS),
    # command naming the image's own program
    ("registry.k8s.io/pause:3.6", ("/pause",), (), FOREVER),
    ("nginx", ("nginx", "-g", "daemon off;"), (), FOREVER),
    ("registry.k8s.io/e2e-test-images/agnhost:2.53", ("/agnhost", "pause"), (), FOREVER),
    # the pod's own command: the vocabulary reads it
    ("registry.k8s.io/pause:3.6", ("sh", "-c", "sleep 5"), (), ("sh", "-c", "sleep 5")),
    ("pause", (), ("sleep", "5"), FOREVER),  # args go to /pause, which ignores them
    ("busybox", (), ("sleep", "30"), ("sleep", "30")),
    ("nginx", (), ("sleep", "30"), ("sleep", "30")),  # docker-entrypoint.sh execs its operands
    ("perl:5.34.0", ("perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"), (),
     ("perl", "-Mbignum=bpi", "-wle", "print bpi(2000)")),
    ("registry.k8s.io/e2e-test-images/agnhost:2.53", (), ("mounttest",), ("/agnhost", "mounttest")),
    # an image nobody knows: args alone are the command, nothing at all is its own entrypoint
    ("myorg/trainer:v1", (), ("sleep", "30"), ("sleep", "30")),
    ("myorg/trainer:v1", (), (), ()),
    ("myorg/trainer:v1", ("sh",), (), EXITS),  # the table's programs, whichever image runs them
    ("myorg/proxy:v1", ("nginx", "-g", "daemon off;"), (), FOREVER),
    ("myorg/proxy:v1", ("docker-entrypoint.sh", "--port", "1"), (), ("docker-entrypoint.sh", "--port", "1")),
])
def test_image_argv(image: str, command: tuple[str, ...], args: tuple[str, ...],
                    want: tuple[str, ...]) -> None:
    assert image_argv(image, command, args) == want


def test_what_each_outcome_does_in_the_vocabulary() -> None:
    assert interpret(FOREVER).duration == math.inf
    assert interpret(EXITS) == interpret(["true"]) and interpret(EXITS).duration == 0
    run = interpret(image_argv("agnhost", (), ("entrypoint-tester", "a")))
    assert (run.duration, run.exit_code, run.logs) == (0, 0, ("[/agnhost entrypoint-tester a]",))


def test_kwok_rule_completes_only_a_jobs_pods() -> None:
    assert owned_by_job(["Job"]) and owned_by_job(["ReplicaSet", "Job"])
    assert not owned_by_job([]) and not owned_by_job(["ReplicaSet"]) and not owned_by_job(["JobSet"])
    assert unknown_duration(True, 1.0) == 1.0 and unknown_duration(False, 1.0) == math.inf


def test_a_line_after_a_command_that_never_ends_is_never_printed() -> None:
    run = interpret(["sh", "-c", "echo a; sleep infinity; echo b"])
    assert run.logs == ("a",) and run.log_offsets == (0.0,)
    run = interpret(["sh", "-c", "echo a; python serve.py; echo b"], default_duration=math.inf)
    assert run.logs == ("a",) and run.duration == math.inf


def test_every_table_entrypoint_and_cmd_program_is_a_known_program_or_a_plain_command() -> None:
    for name, image in IMAGES.items():
        first = (image.entrypoint or image.cmd)[:1]
        assert first and first[0] in PROGRAMS, name


_FOREVER_PROGRAMS = sorted(name for name, program in PROGRAMS.items() if program.always is Outcome.FOREVER)
_WORDS = st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=12)


@given(st.sampled_from(sorted(IMAGES)), st.sampled_from(["", "registry.k8s.io/", "mirror.example/x/"]),
       st.sampled_from(["", ":3.10", ":latest"]), st.sampled_from(_FOREVER_PROGRAMS),
       st.lists(_WORDS, max_size=5))
def test_a_program_that_runs_forever_never_ends_by_itself_whatever_its_args_or_image(
        name: str, registry: str, tag: str, program: str, args: list[str]) -> None:
    run = interpret(image_argv(f"{registry}{name}{tag}", (program,), tuple(args)), default_duration=1.0)
    assert run.duration == math.inf and run.exit_code == 0


@given(st.sampled_from(sorted(n for n in IMAGES if image_argv(n, (), ()) == FOREVER)),
       st.sampled_from(["", "registry.k8s.io/", "mirror.example/x/"]), st.sampled_from(["", ":3.10"]))
def test_an_image_whose_own_command_serves_never_ends_by_itself(name: str, registry: str, tag: str) -> None:
    run = interpret(image_argv(f"{registry}{name}{tag}", (), ()), default_duration=1.0)
    assert run.duration == math.inf and run.exit_code == 0


@given(st.sampled_from(sorted(["pause", "netexec", "serve-hostname", "fake-gitserver", "test-webserver"])),
       st.lists(_WORDS, max_size=5))
def test_agnhosts_serving_subcommands_never_end_whatever_their_flags(sub: str, flags: list[str]) -> None:
    run = interpret(image_argv("registry.k8s.io/e2e-test-images/agnhost:2.53", (), (sub, *flags)))
    assert run.duration == math.inf
