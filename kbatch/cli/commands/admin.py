"""State and process commands: snapshot, reset, trace, version, controllers, serve, kubeconfig."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import typer

from kbatch.cli.errors import UserError, command
from kbatch.cli.options import global_options
from kbatch.cli.render import align, render_yaml

if TYPE_CHECKING:
    from kbatch.cli.options import GlobalOptions
    from kbatch.runtime.leaderelection import LeaseTiming

__all__ = ["register"]

snapshot_app = typer.Typer(help="Save the whole control plane to a file, or restore it.",
                           no_args_is_help=True)
KUBECONFIG = "kubeconfig"


@snapshot_app.command("save")
@command
def snapshot_save(ctx: typer.Context, file: Path = typer.Argument(..., help="Output file."),
                  objects_only: bool = typer.Option(
                      False, "--objects-only",
                      help="Only the objects and the clock (a portable file that any kbatch version "
                           "restores; its controllers start afresh).")) -> None:
    """Write the whole control plane (objects, clock, and everything the runtime holds) to FILE,
    atomically; restoring it continues exactly where it stopped."""
    from kbatch.cli.session import StateDir
    from kbatch.runtime.image import save_image
    from kbatch.server.facade import save_control_plane

    opts = global_options(ctx)
    _not_on_etcd(opts, "snapshot save")
    if opts.server:
        raise UserError("snapshot save works on a local state directory; stop the server (it saves its "
                        "state on exit) or run without --server")
    with StateDir(opts.state).locked() as state:
        cp, config = state.load(opts)
        cp.run_until_idle()
        if objects_only:
            save_control_plane(cp, file)
        else:
            save_image(cp, file, config.to_dict())
        state.save(cp, config)
    typer.echo(f"snapshot saved to {file}")


@snapshot_app.command("restore")
@command
def snapshot_restore(ctx: typer.Context, file: Path = typer.Argument(..., help="Snapshot file.")) -> None:
    """Replace the state with the snapshot in FILE (a whole control plane, or objects only)."""
    import shutil

    from kbatch.api.errors import StatusError
    from kbatch.cli.session import StateDir
    from kbatch.cli.state import StateConfig
    from kbatch.runtime.image import MAGIC, ImageError, load_image
    from kbatch.server.facade import restore_control_plane

    opts = global_options(ctx)
    _not_on_etcd(opts, "snapshot restore")
    if opts.server:
        raise UserError("snapshot restore works on a local state directory; run without --server")
    try:
        head = file.read_bytes()[:len(MAGIC)]
    except OSError as err:
        raise UserError(f"cannot read {file}: {err.strerror}") from None
    with StateDir(opts.state).locked() as state:
        state.reset()
        if head == MAGIC:
            try:
                load_image(file)  # the same checks as a command's load: refuse what cannot continue
            except ImageError as err:
                raise UserError(str(err)) from None
            shutil.copyfile(file, state.image)
        else:
            config = StateConfig().with_options(opts)
            try:
                cp = restore_control_plane(file, config=config)
            except StatusError as err:
                raise UserError(err.message) from None
            cp.run_until_idle()
            cp.trace.drain()
            state.save(cp, config)
    typer.echo(f"state restored from {file}")


def _not_on_etcd(opts: Any, what: str) -> None:
    if opts.etcd_servers:
        raise UserError(f"{what} works on a local state directory; with --etcd-servers the state is "
                        "etcd's (etcdctl snapshot save/restore backs it up)")


@command
def reset(ctx: typer.Context) -> None:
    """Forget everything: an empty control plane (no nodes) at the start of virtual time."""
    from kbatch.cli.session import StateDir

    opts = global_options(ctx)
    _not_on_etcd(opts, "reset")
    if opts.server:
        raise UserError("reset works on a local state directory; restart kbatch serve with an empty --state")
    with StateDir(opts.state).locked() as state:
        state.reset()
    typer.echo(f"state in {opts.state} reset")


@command
def trace(ctx: typer.Context, digest: bool = typer.Option(False, "--digest",
                                                          help="Print only the digest.")) -> None:
    """Print the canonical trace of the commands so far (one JSON line per change), or its digest."""
    from kbatch.cli.session import StateDir, session

    opts = global_options(ctx)
    _not_on_etcd(opts, "trace")
    if opts.server:
        with session(opts, save=False) as backend:
            lines = backend.action("trace", {})["lines"]
    else:
        state = StateDir(opts.state)
        if digest:  # the image's digest covers every line, rotated ones too
            from kbatch.runtime.trace import chain

            typer.echo(state.digest() or chain(()).hex())
            return
        lines = [line for path in (state.rotated_trace, state.trace) if path.exists()
                 for line in path.read_text().splitlines()]
    if digest:
        from kbatch.runtime.trace import chain

        typer.echo(chain(lines).hex())
        return
    for line in lines:
        typer.echo(line)


@command
def version(ctx: typer.Context) -> None:
    """Print the kbatch version, the Kubernetes release it models, and the feature gates in force."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    from kbatch.api.kube_version import KUBERNETES_VERSION

    try:
        typer.echo(f"kbatch {dist_version('kbatch')}")
    except PackageNotFoundError:
        typer.echo("kbatch (not installed)")
    typer.echo(f"Kubernetes {KUBERNETES_VERSION} (the release whose batch semantics kbatch models)")
    typer.echo(_gates_line(ctx))


def _gates_line(ctx: typer.Context) -> str:
    gates = feature_gates_in_force(global_options(ctx))
    return "feature gates: " + (",".join(f"{k}={str(v).lower()}" for k, v in sorted(gates.items()))
                                or "(none)")


def feature_gates_in_force(opts: Any = None) -> dict[str, bool]:
    """Every feature gate the built-in families declare, with its value: ``--feature-gates`` when
    given, else those the local state directory's control plane was built with (its image's
    configuration), else the defaults."""
    from kbatch.cli.session import StateDir
    from kbatch.families import builtin

    chosen = opts.feature_gates if opts is not None else None
    if chosen is None and opts is not None and not opts.server and not opts.etcd_servers:
        chosen = _recorded_feature_gates(StateDir(opts.state))
    gates = builtin().feature_gates(chosen or None)
    return {spec.name: gates.enabled(spec.name) for spec in gates.specs}


def _recorded_feature_gates(state: Any) -> str | None:
    from kbatch.cli.state import StateConfig
    from kbatch.runtime.image import ImageError, read_header

    if not state.image.exists():
        return None
    try:
        return StateConfig.of(read_header(state.image).config).feature_gates
    except ImageError as err:
        raise UserError(str(err)) from None


@command
def controllers(ctx: typer.Context) -> None:
    """List the controllers kbatch knows, one a line: on by default, and on under --controllers.

    The selection is the global --controllers (env KBATCH_CONTROLLERS), default *."""
    from kbatch.runtime.catalog import default_catalog
    from kbatch.runtime.selection import select

    catalog = default_catalog()
    selection = global_options(ctx).controllers
    enabled = set(select("*" if selection is None else selection, catalog.infos()))
    rows = []
    for spec in catalog.specs:
        state = "on" if spec.enabled_by_default else "off"
        if not catalog.available(spec.name):
            state += " (not in this build)"
        rows.append((spec.name, state, "yes" if spec.name in enabled else "no", spec.description))
    typer.echo(align([("NAME", "DEFAULT", "ENABLED", "DESCRIPTION"), *rows]))
    typer.echo(_gates_line(ctx))
    typer.echo(_kueue_config_line(global_options(ctx)))


def _kueue_config_line(opts: Any) -> str:
    """Which Kueue Configuration a command here runs with: ``--kueue-config`` when given, else the one
    the state directory's control plane was built with (recorded in its image)."""
    from kbatch.cli.state import StateConfig, StateDir, read_kueue_config
    from kbatch.controllers.kueue.config import describe_config
    from kbatch.runtime.image import ImageError, read_header

    if opts.kueue_config is not None:
        text = read_kueue_config(opts.kueue_config)
        return f"kueue configuration: {opts.kueue_config}; {describe_config(text)}"
    image = StateDir(opts.state).image
    recorded: str | None = None
    if image.exists():
        try:
            recorded = StateConfig.of(read_header(image).config).kueue_config
        except ImageError as err:
            raise UserError(str(err)) from None
    source = f"as recorded in {image}" if recorded else "the shipped default (controller_manager_config.yaml)"
    return f"kueue configuration: {source}; {describe_config(recorded)}"


@command
def serve(ctx: typer.Context,
          port: int = typer.Option(6443, "--port", help="TCP port (0 picks a free one)."),
          address: str = typer.Option("127.0.0.1", "--address",
                                      help="Interface to bind; anything but loopback needs --token."),
          token: str | None = typer.Option(None, "--token", envvar="KBATCH_TOKEN",
                                           help="Require this bearer token from clients."),
          clock: str | None = typer.Option(None, "--clock", help="virtual (moved by kbatch advance; the "
                                           "default) or real (always with --etcd-servers)."),
          kubeconfig_path: Path | None = typer.Option(None, "--kubeconfig",
                                                      help="Also write the kubeconfig here."),
          max_token_expiration: str | None = typer.Option(
              None, "--service-account-max-token-expiration",
              help="Cap service-account tokens at this duration (1h to 2^32 s; kube-apiserver's flag)."),
          jwks_uri: str | None = typer.Option(
              None, "--service-account-jwks-uri",
              help="The key set's URI in /.well-known/openid-configuration (an https URL; "
                   "kube-apiserver's flag)."),
          tls: bool = typer.Option(False, "--tls", help="Serve HTTPS with a self-signed certificate kept "
                                   "in STATE/tls (kubectl sends --token and kubeconfig tokens only over "
                                   "HTTPS; docs/serve.md)."),
          etcd_servers: str | None = typer.Option(
              None, "--etcd-servers", envvar="KBATCH_ETCD_SERVERS",
              help="Keep the state in etcd (comma-separated http://HOST:PORT, as kube-apiserver's flag); "
                   "several servers may share it, controllers run in the elected leader (docs/etcd.md)."),
          lease_duration: float = typer.Option(15.0, "--leader-elect-lease-duration",
                                               help="With etcd: how long a leader's Lease holds (s)."),
          renew_deadline: float = typer.Option(10.0, "--leader-elect-renew-deadline",
                                               help="With etcd: the leader gives up after failing to "
                                                    "renew for this long (s)."),
          retry_period: float = typer.Option(2.0, "--leader-elect-retry-period",
                                             help="With etcd: seconds between acquire/renew tries."),
          authorization_mode: str = typer.Option(
              "Node,RBAC", "--authorization-mode",
              help="Authorizers in order: Node,RBAC (kind's and kubeadm's) or RBAC (docs/rbac.md).")) -> None:
    """Serve the Kubernetes REST API on localhost so kubectl and client libraries work unchanged."""
    from kbatch.server.runner import ServeOptions, dump_stacks_on_sigusr1, is_loopback, serve_forever

    dump_stacks_on_sigusr1()

    opts = global_options(ctx)
    modes = _authorization_modes(authorization_mode)
    token = token or opts.token  # `kbatch --token T serve` as `kbatch serve --token T`
    etcd_servers = etcd_servers or opts.etcd_servers  # likewise `kbatch --etcd-servers URL serve`
    if clock not in (None, "virtual", "real"):
        raise UserError(f'--clock must be "virtual" or "real", got "{clock}"')
    if etcd_servers and clock == "virtual":
        raise UserError("--clock virtual cannot be used with --etcd-servers: a virtual clock moves only "
                        "when its one owner advances it, and a state in etcd is shared by processes that "
                        "each run on their own clock; with etcd the clock is real (docs/etcd.md)")
    clock = "real" if etcd_servers else clock or "virtual"
    if not is_loopback(address) and not token:
        raise UserError(f"binding to {address} exposes the API beyond this machine: give --token")
    max_seconds = _max_token_expiration(max_token_expiration)
    jwks_uri = _jwks_uri(jwks_uri)
    serve_opts = ServeOptions(address, port, token, _serving_cert(opts.state, address) if tls else None,
                              jwks_uri)
    if etcd_servers:
        timing: LeaseTiming = {"lease_duration": lease_duration, "renew_deadline": renew_deadline,
                  "retry_period": retry_period}
        _serve_on_etcd(opts, etcd_servers, timing, serve_opts, kubeconfig_path, max_seconds, modes)
        return
    held = contextlib.ExitStack()  # the state directory's lock, from load() until the server stops
    loaded: list[Any] = []
    url: list[str] = []

    def load() -> tuple[Any, Any]:
        """In a worker thread, while the socket already answers (kbatch/server/starting.py): take the
        state directory, announce, load the control plane."""
        from kbatch.apiserver.cluster_info import publish_cluster_info
        from kbatch.cli.session import StateDir
        from kbatch.server.app import KbatchApp
        from kbatch.server.facade import ControlPlaneBackend

        state = held.enter_context(StateDir(opts.state).locked())
        held.callback(state.server_file.unlink, missing_ok=True)
        _announce(state, url[0], token, clock, kubeconfig_path, ca=serve_opts.tls)
        cp, config = state.load(opts, clock)
        publish_cluster_info(cp.server, url[0])  # kube-public/cluster-info names this server
        backend = ControlPlaneBackend(cp)
        backend.settle()
        loaded.append((state, cp, config))
        app = KbatchApp(backend, token=token, max_token_expiration=max_seconds, authorization_modes=modes,
                        external_address=urlsplit(url[0]).netloc, jwks_uri=jwks_uri)
        return app, (cp.run if clock == "real" else None)

    with held:
        try:
            serve_forever(load, serve_opts, on_listening=url.append)
        except OSError as err:
            raise UserError(f"cannot listen on {address}:{port}: {err.strerror or err}") from None
        finally:
            if loaded:  # a state that could not be loaded (or taken) is left as it is
                state, cp, config = loaded[0]
                backend_settle(cp)
                state.save(cp, config)
                typer.echo(f"state saved to {state.path}")


def _authorization_modes(text: str) -> tuple[str, ...]:
    """``--authorization-mode``: the modes kbatch has (``Node``, ``RBAC``), each once (kube-apiserver's
    ``pkg/kubeapiserver/options/authorization.go`` validation, for the modes kbatch models); RBAC
    among them (kbatch's rule: its chain always ends with RBAC)."""
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    for mode in modes:
        if mode not in ("Node", "RBAC"):
            raise UserError(f'--authorization-mode: "{mode}" is not a mode kbatch has (Node, RBAC)')
        if modes.count(mode) > 1:
            raise UserError(f'--authorization-mode: "{mode}" has mode specified more than once')
    if "RBAC" not in modes:
        raise UserError("--authorization-mode must include RBAC (kbatch has no other way to allow a "
                        "request: Node alone would refuse every user but the kubelets)")
    return modes


def _serve_on_etcd(opts: GlobalOptions, servers: str, timing: LeaseTiming, serve: Any,
                   kubeconfig_path: Path | None, max_token_expiration: int = 0,
                   modes: tuple[str, ...] = ("Node", "RBAC")) -> None:
    """``kbatch serve --etcd-servers``: the state is etcd's (nothing is loaded from or saved to the
    state directory, which keeps only the kubeconfig); controllers run while this process holds the
    ``kube-system/kube-controller-manager`` Lease."""
    import asyncio
    import os
    import socket
    import uuid

    from kbatch.cli.session import StateDir
    from kbatch.cli.state import addons_option
    from kbatch.runtime.leaderelection import LeaderElectionConfig, control_plane_elector, run_while_leading
    from kbatch.server.app import KbatchApp
    from kbatch.server.facade import SelfDrivenBackend, new_control_plane
    from kbatch.server.runner import serve_forever
    from kbatch.server.service_account_tokens import TokenService
    from kbatch.store import StoreError

    try:
        LeaderElectionConfig(identity="check", **timing)
    except ValueError as err:
        raise UserError(f"leader election: {err}") from None
    try:
        from kbatch.store import EtcdStore

        store = EtcdStore(servers)
    except (ImportError, ValueError, StoreError) as err:
        raise UserError(f"--etcd-servers {servers}: {err}") from None
    identity = f"{socket.gethostname()}_{uuid.uuid4()}"  # client-go's id + "_" + uuid
    state = StateDir(opts.state)
    url: list[str] = []
    made: list[Any] = []

    def load() -> tuple[Any, Any]:
        # uids and generated names come from the seeded rng: each process needs its own sequence
        cp = new_control_plane(controllers=opts.controllers, clock="real", store=store,
                               seed=int.from_bytes(os.urandom(8), "big"), feature_gates=opts.feature_gates,
                               addons=addons_option(opts))  # installed only on an etcd with no cluster
        made.append(cp)
        elector = control_plane_elector(cp, identity, **timing)
        _announce(state, url[0], serve.token, "real", kubeconfig_path,
                  f"state in etcd {servers}, identity {identity}", ca=serve.tls)

        async def background() -> None:
            store.bind_event_loop(asyncio.get_running_loop())
            await run_while_leading(cp.run, elector)

        # every server on this etcd signs and accepts the same service-account tokens: the key cannot
        # come from this process's random seed (docs/serviceaccounts.md, "Tokens")
        tokens = TokenService.derived(0, serve.token)
        return KbatchApp(SelfDrivenBackend(cp), token=serve.token, tokens=tokens,
                         max_token_expiration=max_token_expiration, authorization_modes=modes,
                         external_address=urlsplit(url[0]).netloc, jwks_uri=serve.jwks_uri), background

    with state.locked():
        try:
            serve_forever(load, serve, on_listening=url.append)
        except OSError as err:
            raise UserError(f"cannot listen on {serve.host}:{serve.port}: {err.strerror or err}") from None
        finally:
            state.server_file.unlink(missing_ok=True)
            for cp in made:
                cp.close()
            store.close()
            typer.echo("stopped (the state stays in etcd)")


def _jwks_uri(value: str | None) -> str | None:
    """``--service-account-jwks-uri``, checked as kube-apiserver's authentication options check it
    (``pkg/kubeapiserver/options/authentication.go``: a URL ``url.Parse`` accepts, scheme ``https``)."""
    if not value:
        return None
    from kbatch.server.oidc_discovery import jwks_uri_error

    error = jwks_uri_error(value)
    if error:
        raise UserError(error)
    return value


def _max_token_expiration(value: str | None) -> int:
    """``--service-account-max-token-expiration`` in seconds (0: none), checked as kube-apiserver's
    options check it (``pkg/kubeapiserver/options/authentication.go``)."""
    if value is None:
        return 0
    from kbatch.runtime.duration import parse_duration

    try:
        seconds = int(parse_duration(value))
    except ValueError as err:
        raise UserError(f"--service-account-max-token-expiration: {err}") from None
    if seconds and not 3600 <= seconds <= 1 << 32:
        raise UserError("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds")
    return seconds


def _serving_cert(state: str, address: str) -> Any:
    """``--tls``: the certificate in ``STATE/tls`` (kbatch/server/tls.py)."""
    from kbatch.server.tls import serving_cert

    return serving_cert(Path(state) / "tls", (address,))


def _announce(state: Any, url: str, token: str | None, clock: str, extra: Path | None,
              where: str | None = None, *, ca: Any = None) -> None:
    """The URL in ``DIR/server``, the kubeconfig, and the "listening" line (``where``: what follows
    the clock there; default the state directory; ``ca``: the ``--tls`` certificate)."""
    from kbatch.server.kubeconfig import kubeconfig, write_kubeconfig

    state.server_file.write_text(url + "\n")
    config = kubeconfig(url, token=token, tls=ca)
    written = write_kubeconfig(state.path / KUBECONFIG, config)
    if extra is not None:
        write_kubeconfig(extra, config)
        written = extra
    typer.echo(f"kbatch serve listening on {url} (clock {clock}, {where or f'state {state.path}'})")
    typer.echo(f"kubeconfig: {written}   e.g.  KUBECONFIG={written} kubectl get pods")
    if token and url.startswith("http:"):  # client-go sends credentials to https servers only
        typer.echo("note: kubectl sends the kubeconfig's token (and --token) only over HTTPS; "
                   "start with --tls for kubectl (docs/serviceaccounts.md)")
    sys.stdout.flush()


def backend_settle(cp: Any) -> None:
    """Settle a virtual-clock control plane before it is saved (a real clock's loop has stopped)."""
    from kbatch.runtime.clock import VirtualClock

    if isinstance(cp.clock, VirtualClock):
        cp.run_until_idle()


@command
def kubeconfig(ctx: typer.Context,
               output: Path | None = typer.Option(None, "--output", "-o",
                                                  help="Write to this file.")) -> None:
    """Print the kubeconfig of the `kbatch serve` using this state directory (or --server)."""
    from kbatch.server.kubeconfig import kubeconfig as make
    from kbatch.server.kubeconfig import write_kubeconfig

    opts = global_options(ctx)
    if opts.server:
        config = make(opts.server, token=opts.token)
    else:
        path = Path(opts.state) / KUBECONFIG
        if not path.exists():
            raise UserError(f"no kubeconfig in {opts.state}: start `kbatch serve` (or pass --server URL)")
        config = json.loads(path.read_text())
    if output is not None:
        write_kubeconfig(output, config)
        typer.echo(f"kubeconfig written to {output}")
        return
    typer.echo(render_yaml(config))


def register(app: typer.Typer) -> None:
    app.add_typer(snapshot_app, name="snapshot")
    app.command()(reset)
    app.command()(trace)
    app.command()(version)
    app.command()(controllers)
    app.command()(serve)
    app.command()(kubeconfig)

