"""What a container runs when its command comes from the image: the image-behaviour table.

Kubernetes runs a container's ``command`` in place of the image's ENTRYPOINT and its ``args`` in
place of the image's CMD; with no ``command`` the image's ENTRYPOINT runs, given ``args`` or else the
image's CMD (docs "Define a Command and Arguments for a Container", the table "notes" there;
kubernetes/kubernetes ``pkg/kubelet/kuberuntime/kuberuntime_container.go`` passes both to the
runtime, which joins them as the OCI image spec says). kbatch has no images, so :data:`IMAGES`
holds the ENTRYPOINT and CMD of the images batch examples use, and :data:`PROGRAMS` what their
programs do. :func:`image_argv` joins them as the runtime would and rewrites what the table knows
into the command vocabulary (:mod:`kbatch.sim.command`): a program that serves until it is
stopped becomes ``sleep infinity``, one that exits at once ``true``, agnhost's
``entrypoint-tester`` the line it prints. Anything else is left as the argv it is, for the
vocabulary to read; what the vocabulary does not know either follows KWOK's rule
(:func:`unknown_duration`).

An image is named without its registry, tag or digest (``registry.k8s.io/pause:3.10`` →
``pause``; ``docker.io/library/nginx`` → ``nginx``; ``registry.k8s.io/e2e-test-images/agnhost`` →
``agnhost``): the last path component, as the table's images are the same program whichever
mirror or version serves them. An image not in the table is taken to have no ENTRYPOINT (its
``args`` alone are the command, as for the shell-based images most batch examples use); the
programs of :data:`PROGRAMS` are known whichever image runs them (``command: [sh]`` exits at once
anywhere).

Lookups are cached per distinct (image, command, args), so a thousand pods of one Job cost one.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

__all__ = ["DEFAULT_PATH", "IMAGES", "PROGRAMS", "Image", "Outcome", "Program", "image_argv", "image_env",
           "image_name", "owned_by_job", "stop_rule", "unknown_duration"]


class Outcome(Enum):
    """What a program the table knows does, as vocabulary argv."""

    FOREVER = ("sleep", "infinity")  # serves until stopped: Running until the pod is deleted
    EXITS = ("true",)  # ends at once with status 0
    PRINTS_ARGV = ("echo",)  # prints its argv as Go's fmt.Println of a slice, exits 0


@dataclass(frozen=True, slots=True)
class Image:
    """An image's ENTRYPOINT, CMD and STOPSIGNAL, and where they were read."""

    entrypoint: tuple[str, ...]
    cmd: tuple[str, ...]
    source: str
    stop_signal: str = "TERM"  # no STOPSIGNAL: the runtime sends SIGTERM
    env: tuple[tuple[str, str], ...] = ()  # its config's Env beyond the default PATH (image_env)


@dataclass(frozen=True, slots=True)
class Program:
    """What a program does: with no operand (``bare``), whatever its operands (``always``), or by
    its first operand (``subcommands``; an unknown one is left to the vocabulary). ``wrapper``: the
    program execs its operands (an official image's ``docker-entrypoint.sh``); when the first is a
    flag it runs the image's CMD program with them."""

    bare: Outcome | None = None
    always: Outcome | None = None
    subcommands: Mapping[str, Outcome] = field(default_factory=dict)
    wrapper: bool = False
    exits_on: Mapping[str, int] = field(default_factory=dict)  # signal it handles -> exit code, at once


_DOCKER_LIBRARY = "docker-library/official-images (the image's Dockerfile)"

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""The ``PATH`` of an image config that sets none (the builder's default) and that containerd gives
a container whose image has no ``Env`` (its default Unix spec): what busybox, alpine, ubuntu,
debian and pause show."""

# docker-library/python 3.14/trixie/Dockerfile (python:3.14, ``latest`` when written): ENV PATH
# /usr/local/bin:$PATH over buildpack-deps:trixie (debian: no Env of its own), PYTHON_VERSION,
# PYTHON_SHA256; 3.14 images no longer set GPG_KEY or LANG.
_PYTHON_ENV = (("PATH", "/usr/local/bin:" + DEFAULT_PATH), ("PYTHON_VERSION", "3.14.2"),
               ("PYTHON_SHA256", "ce543ab854bc256b61b71e9b27f831ffd1bfd60a479d639f8be7f9757cf573e9"))

IMAGES: Mapping[str, Image] = {
    # kubernetes/kubernetes build/pause/Dockerfile: ENTRYPOINT ["/pause"]; pause.c sleeps in
    # pause() until SIGINT/SIGTERM, then exits 0, whatever its arguments: ``args`` cannot make it
    # do anything else (only a ``command`` replacing the ENTRYPOINT can).
    "pause": Image(("/pause",), (), "kubernetes/kubernetes build/pause"),
    # kubernetes/kubernetes test/images/agnhost/Dockerfile: ENTRYPOINT ["/agnhost"], CMD ["pause"]
    "agnhost": Image(("/agnhost",), ("pause",), "kubernetes/kubernetes test/images/agnhost"),
    "busybox": Image((), ("sh",), _DOCKER_LIBRARY),
    "alpine": Image((), ("/bin/sh",), _DOCKER_LIBRARY),
    "ubuntu": Image((), ("/bin/bash",), _DOCKER_LIBRARY),
    "debian": Image((), ("bash",), _DOCKER_LIBRARY),
    "bash": Image(("docker-entrypoint.sh",), ("bash",), _DOCKER_LIBRARY),
    "python": Image((), ("python3",), _DOCKER_LIBRARY, env=_PYTHON_ENV),
    "perl": Image((), ("perl",), _DOCKER_LIBRARY),
    "nginx": Image(("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;"), _DOCKER_LIBRARY, "QUIT"),
    "httpd": Image((), ("httpd-foreground",), _DOCKER_LIBRARY, "WINCH"),
    "redis": Image(("docker-entrypoint.sh",), ("redis-server",), _DOCKER_LIBRARY),
    "memcached": Image(("docker-entrypoint.sh",), ("memcached",), _DOCKER_LIBRARY),
    "postgres": Image(("docker-entrypoint.sh",), ("postgres",), _DOCKER_LIBRARY, "INT"),
}
"""Image name → ENTRYPOINT and CMD."""

_FOREVER = Program(always=Outcome.FOREVER)
# What the servers do with a stop signal: each handles the ones listed and exits 0 (nginx: QUIT is a
# graceful shutdown, TERM/INT a fast one, both exit 0 (nginx.org "Controlling nginx"); httpd:
# WINCH is graceful-stop, TERM stop (httpd.apache.org "Stopping and Restarting"); redis-server saves
# and exits 0 on TERM/INT (redis.io "Signals handling"); postgres: INT fast shutdown, TERM smart
# shutdown, QUIT immediate (exit 0 only for the first two: postgresql.org "Shutting Down the
# Server"); memcached exits 0 on TERM/INT (its sig_handler). Other signals find no handler.
_SERVERS: Mapping[str, Program] = {
    "nginx": Program(always=Outcome.FOREVER, exits_on={"QUIT": 0, "TERM": 0, "INT": 0}),
    "nginx-debug": Program(always=Outcome.FOREVER, exits_on={"QUIT": 0, "TERM": 0, "INT": 0}),
    "httpd-foreground": Program(always=Outcome.FOREVER, exits_on={"WINCH": 0, "TERM": 0}),
    "redis-server": Program(always=Outcome.FOREVER, exits_on={"TERM": 0, "INT": 0}),
    "postgres": Program(always=Outcome.FOREVER, exits_on={"INT": 0, "TERM": 0}),
    "memcached": Program(always=Outcome.FOREVER, exits_on={"TERM": 0, "INT": 0}),
}
_STDIN = Program(bare=Outcome.EXITS)  # reads its program from stdin: a container's is empty

# agnhost's subcommands that serve until stopped (kubernetes/kubernetes test/images/agnhost/*: each
# ends in a blocking serve or select{}); entrypoint-tester prints os.Args and exits 0 (e2e
# test/e2e/common/node/containers.go expects "[/agnhost entrypoint-tester override arguments]").
_AGNHOST_SERVING = ("pause", "netexec", "serve-hostname", "fake-gitserver", "test-webserver", "porter",
                    "liveness", "nettest", "guestbook", "grpc-health-checking", "webhook")

PROGRAMS: Mapping[str, Program] = {
    # pause.c: sigaction(SIGINT/SIGTERM, sigdown) and sigdown exits 0
    "/pause": Program(always=Outcome.FOREVER, exits_on={"TERM": 0, "INT": 0}),
    "/agnhost": Program(bare=Outcome.EXITS,  # no subcommand: cobra prints the usage, status 0
                        subcommands={**dict.fromkeys(_AGNHOST_SERVING, Outcome.FOREVER),
                                     "entrypoint-tester": Outcome.PRINTS_ARGV}),
    **_SERVERS,
    **dict.fromkeys(("sh", "/bin/sh", "bash", "/bin/bash", "ash", "/bin/ash", "python", "python3",
                     "perl"), _STDIN),
    **dict.fromkeys(("docker-entrypoint.sh", "/docker-entrypoint.sh",
                     "/usr/local/bin/docker-entrypoint.sh"), Program(wrapper=True)),
}
"""Program (argv[0]) → what it does."""


def image_name(image: str) -> str:
    """``registry.k8s.io/e2e-test-images/agnhost:2.53@sha256:…`` → ``agnhost``."""
    name = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


@functools.lru_cache(maxsize=4096)
def image_argv(image: str, command: tuple[str, ...], args: tuple[str, ...]) -> tuple[str, ...]:
    """The argv a container runs, in the vocabulary where the table knows the program; ``()`` when
    neither the pod nor a known image gives one (an unknown image's own entrypoint)."""
    known = IMAGES.get(image_name(image))
    if known is None:  # taken to have no ENTRYPOINT; its programs are still the table's
        return _rewrite((*command, *args), ())
    argv = (*command, *args) if command else (*known.entrypoint, *(args or known.cmd))
    return _rewrite(argv, known.cmd[:1])


def _rewrite(argv: tuple[str, ...], server: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` with a known program's behaviour put into vocabulary words; ``server``: the
    image's CMD program, which its entrypoint wrapper runs when given only flags."""
    argv, program = _program(argv, server)
    outcome = _outcome(program, argv[1:]) if program is not None else None
    if outcome is None:
        return argv
    return (*outcome.value, f"[{' '.join(argv)}]") if outcome is Outcome.PRINTS_ARGV else outcome.value


def _program(argv: tuple[str, ...], server: tuple[str, ...]) -> tuple[tuple[str, ...], Program | None]:
    """The argv the container's main process finally runs (through its image's entrypoint wrapper)
    and the table's entry for it (None: not a table program)."""
    for _ in range(3):  # a wrapper execs its operands, which may name another program
        program = PROGRAMS.get(argv[0]) if argv else None
        if program is None or not program.wrapper:
            return argv, program
        operands = argv[1:]
        if not operands or (operands[0].startswith("-") and not server):
            return argv, None
        argv = (*server, *operands) if operands[0].startswith("-") else operands
    return argv, None


@functools.lru_cache(maxsize=1024)
def stop_rule(image: str, command: tuple[str, ...],
              args: tuple[str, ...]) -> tuple[str, Mapping[str, int] | None]:
    """The image's stop signal and, when a table program is the container's main process, the
    signals it exits on (signal → exit code); None: the command decides (a shell's ``trap``)."""
    known = IMAGES.get(image_name(image))
    signal = known.stop_signal if known is not None else "TERM"
    argv: tuple[str, ...] = (*command, *args)
    server: tuple[str, ...] = ()
    if known is not None:
        argv = argv if command else (*known.entrypoint, *(args or known.cmd))
        server = known.cmd[:1]
    argv, program = _program(argv, server)
    if program is None or _outcome(program, argv[1:]) is not Outcome.FOREVER:
        return signal, None
    exits = program.exits_on
    if argv[:1] == ("/agnhost",) and argv[1:2] == ("pause",):  # agnhost pause: exits 0 on INT/TERM
        exits = {"TERM": 0, "INT": 0}
    return signal, exits


def _outcome(program: Program, operands: tuple[str, ...]) -> Outcome | None:
    if program.always is not None:
        return program.always
    if not operands:
        return program.bare
    return program.subcommands.get(operands[0])


def owned_by_job(owner_kinds: Iterable[str]) -> bool:
    """KWOK's ``pod-complete`` stage selects pods with ``.metadata.ownerReferences.[].kind In
    [Job]`` (kubernetes-sigs/kwok ``kustomize/stage/pod/fast/pod-complete.yaml``, the default
    stages of ``kwokctl``, and ``kustomize/stage/pod/general/pod-complete.yaml``)."""
    return "Job" in owner_kinds


def unknown_duration(job_owned: bool, default: float) -> float:
    """How long a command nothing here models runs (KWOK's rule): a Job's pod completes after the
    default delay (``general``'s ``pod-complete`` waits 1000 ms; ``fast`` none); any other pod no
    stage completes, so it stays Running until it is deleted."""
    return default if job_owned else math.inf


@functools.lru_cache(maxsize=1024)
def image_env(image: str) -> Mapping[str, str]:
    """The image config's ``Env`` (OCI image-spec ``config.Env``) as containerd puts it under the
    container's own variables (CRI ``WithEnv``: a container variable of the same name replaces it):
    ``PATH`` (:data:`DEFAULT_PATH`, or the image's own) and whatever else the table's image sets.
    An image not in the table has the default ``PATH`` only. Shared and read only."""
    known = IMAGES.get(image_name(image))
    return {"PATH": DEFAULT_PATH, **dict(known.env if known is not None else ())}
