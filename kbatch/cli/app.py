"""The typer application behind the ``kbatch`` console script.

Global options, before or after the command (:mod:`kbatch.cli.options`): ``--state DIR`` (env
``KBATCH_STATE``, default ``./.kbatch``), ``--server URL`` (env ``KBATCH_SERVER``: talk to a running
``kbatch serve``), ``--controllers`` (env ``KBATCH_CONTROLLERS``, kube-controller-manager syntax:
``*``, ``*,-podgc``, ``job,kubelet``), ``--token`` (env ``KBATCH_TOKEN``), ``-n/--namespace``, and the
control plane's configuration, recorded in the state (a change restarts it): ``--feature-gates``,
``--enable-admission-plugins``, ``--disable-admission-plugins``, ``--scheduler-config FILE``;
``-v N`` (env ``KBATCH_V``): the in-process control plane's logs (:mod:`kbatch.cli.verbosity`).
Errors print one line and exit with code 1; ``--help`` works on every command.
"""

from __future__ import annotations

import sys

import typer

from kbatch.cli.commands import (
    admin,
    apiresources,
    cluster,
    conformance,
    create_generators,
    create_token,
    drain,
    experiment,
    explain,
    metadata,
    objects,
    report,
    timecmd,
    top,
    view,
)
from kbatch.cli.options import DEFAULT_STATE, GlobalOptions, KbatchGroup
from kbatch.cli.verbosity import set_verbosity

__all__ = ["app", "main"]

app = typer.Typer(help="kbatch: a local Kubernetes batch control plane in one process. Global options "
                  "(--state, --server, --controllers, --token, -n) go before or after the command.",
                  cls=KbatchGroup, no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False,
                  context_settings={"help_option_names": ["-h", "--help"]})


@app.callback()
def _global(ctx: typer.Context,
            state: str = typer.Option(DEFAULT_STATE, "--state", envvar="KBATCH_STATE",
                                      help="State directory of the local control plane."),
            server: str | None = typer.Option(None, "--server", envvar="KBATCH_SERVER",
                                              help="URL of a running `kbatch serve` to use instead."),
            etcd_servers: str | None = typer.Option(
                None, "--etcd-servers", envvar="KBATCH_ETCD_SERVERS",
                help="Keep the state in etcd (http://HOST:PORT,...), shared with `kbatch serve "
                     "--etcd-servers` processes, whose elected leader runs the controllers."),
            controllers: str | None = typer.Option(None, "--controllers", envvar="KBATCH_CONTROLLERS",
                                                   help="Controllers: '*', '*,-podgc', 'job,kubelet'; "
                                                        "'' none."),
            token: str | None = typer.Option(None, "--token", envvar="KBATCH_TOKEN",
                                             help="Bearer token for --server."),
            namespace: str | None = typer.Option(None, "-n", "--namespace",
                                                 help="Namespace (default: default)."),
            feature_gates: str | None = typer.Option(
                None, "--feature-gates", envvar="KBATCH_FEATURE_GATES",
                help="Feature gates, as the Kubernetes components take them: 'A=true,B=false'."),
            enable_admission: str | None = typer.Option(
                None, "--enable-admission-plugins", envvar="KBATCH_ENABLE_ADMISSION_PLUGINS",
                help="Admission plugins to turn on besides the defaults (kube-apiserver's flag)."),
            disable_admission: str | None = typer.Option(
                None, "--disable-admission-plugins", envvar="KBATCH_DISABLE_ADMISSION_PLUGINS",
                help="Admission plugins to turn off (kube-apiserver's flag)."),
            scheduler_config: str | None = typer.Option(
                None, "--scheduler-config", envvar="KBATCH_SCHEDULER_CONFIG",
                help="A KubeSchedulerConfiguration file (kube-scheduler's --config)."),
            clock_start: str | None = typer.Option(
                None, "--clock-start", envvar="KBATCH_CLOCK_START",
                help="Where a NEW state directory's virtual clock starts: 'now' (the wall clock, to the "
                     "second) or an RFC 3339 time; recorded, ignored once the state exists "
                     "(default 2025-01-01T00:00:00Z)."),
            kueue_config: str | None = typer.Option(
                None, "--kueue-config", envvar="KBATCH_KUEUE_CONFIG",
                help="Kueue's Configuration file (config.kueue.x-k8s.io; Kueue's --config)."),
            no_default_storage_class: bool = typer.Option(
                False, "--no-default-storage-class", envvar="KBATCH_NO_DEFAULT_STORAGE_CLASS",
                help="A NEW state directory's cluster starts without the default StorageClass "
                     "'standard' (as kubeadm's; kind's has it); recorded, ignored once the state exists."),
            verbosity: int = typer.Option(
                0, "-v", "--v", envvar="KBATCH_V", min=0,
                help="Log level of the in-process control plane, as kubectl's -v: 1 warnings (a failed "
                     "reconcile and its retry), 2 info, 5 debug; 0 (default) prints none.")) -> None:
    set_verbosity(verbosity, component=ctx.invoked_subcommand == "serve")
    _check_controllers(controllers)
    _check_feature_gates(feature_gates)
    ctx.obj = GlobalOptions(state=state, server=server or None, etcd_servers=etcd_servers or None,
                            controllers=controllers, token=token,
                            namespace=namespace or None, feature_gates=feature_gates,
                            enable_admission_plugins=enable_admission,
                            disable_admission_plugins=disable_admission, scheduler_config=scheduler_config,
                            clock_start=clock_start or None, kueue_config=kueue_config or None,
                            no_default_storage_class=no_default_storage_class)


def _check_controllers(selection: str | None) -> None:
    """An empty selection is kept, not taken for the default: pflag reads ``--controllers=''`` as an
    empty list, which kube-controller-manager's validation accepts and its ``IsControllerEnabled``
    answers "no" for every controller (no ``*``). ``KBATCH_CONTROLLERS=''`` is unset, as click reads it."""
    if selection is None:
        return
    from kbatch.runtime.catalog import default_catalog
    from kbatch.runtime.selection import SelectionError, select

    try:
        select(selection, default_catalog().infos())
    except SelectionError as err:
        typer.echo(f"error: --controllers: {err}", err=True)
        raise typer.Exit(1) from None


def _check_feature_gates(value: str | None) -> None:
    if value is None:
        return
    from kbatch.api.features import FeatureGateError
    from kbatch.families import builtin

    try:
        builtin().feature_gates(value)
    except FeatureGateError as err:
        typer.echo(f"error: --feature-gates: {err}", err=True)
        raise typer.Exit(1) from None


for module in (objects, create_generators, metadata, explain, apiresources, view, top, timecmd, cluster,
               admin, conformance, report, experiment, create_token, drain):
    module.register(app)


def _usage_message(err: Exception) -> str:
    """click's usage error, an unknown option worded as spf13/pflag words it (kubectl's flags,
    ``flag.go``): ``unknown flag: --foo``, ``unknown shorthand flag: 'z' in -z``; a missing required
    option as cobra words it (``command.go`` ``validateRequiredFlags``)."""
    name = getattr(err, "option_name", None)
    # by name: typer vendors click privately (typer._click), so its classes are not imported here
    if type(err).__name__ == "NoSuchOption" and isinstance(name, str):
        if name.startswith("--"):
            return f"unknown flag: {name}"
        return f"unknown shorthand flag: '{name[1:2]}' in {name}"
    param = getattr(err, "param", None)
    if type(err).__name__ == "MissingParameter" and getattr(param, "param_type_name", "") == "option":
        # cobra's MarkFlagRequired (``kubectl create cronjob`` without ``--schedule``)
        flag = max(param.opts, key=len).lstrip("-")  # type: ignore[union-attr]
        return f'required flag(s) "{flag}" not set'
    fmt = getattr(err, "format_message", None)
    return str(fmt() if callable(fmt) else err)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: usage errors print ``error: …`` and exit 1 (kubectl's convention)."""
    try:
        code = app(args=argv, prog_name="kbatch", standalone_mode=False)
    except typer.Exit as exit_:
        sys.exit(exit_.exit_code)
    except typer.Abort:
        sys.exit(130)
    except typer.TyperException as err:  # click's usage errors (typer vendors click)
        print(f"error: {_usage_message(err)}", file=sys.stderr)
        ctx = getattr(err, "ctx", None)
        if ctx is not None:
            print(f"See '{ctx.command_path} --help' for usage.", file=sys.stderr)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
