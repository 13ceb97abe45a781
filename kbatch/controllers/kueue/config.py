"""The settled Kueue settings the manager and the webhooks share: the Configuration and the gates.

Kueue reads its ``Configuration`` from ``--config`` (kbatch: ``--kueue-config FILE``,
``KBATCH_KUEUE_CONFIG``, ``ControlPlane(kueue_config=...)``: a mapping, YAML/JSON text or a file
path). Without one, kbatch runs Kueue as it is installed: with the shipped manager configuration
(``config/components/manager/controller_manager_config.yaml``: the integrations list on top of the
API defaults), not the bare API defaults.

Kueue's feature gates are the kueue family's gates (``--feature-gates`` with Kueue's gate names); a
Configuration's ``featureGates`` are applied on top of them, and a gate set both ways to different
values is an error, as Kueue refuses gates set both by flag and by configuration; a gate on
without the gates it needs is an error too (:mod:`.gate_dependencies`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.errors import FieldError, Invalid
from kbatch.api.features import FeatureGateError, FeatureGates
from kbatch.api.kueue_config import KueueConfig, load, shipped
from kbatch.api.kueue_config_metrics import parse_entries, workload_sources
from kbatch.apiserver.go_json_syntax import GoSyntaxError, interpret_json, is_json_buffer
from kbatch.controllers.kueue.gate_dependencies import gate_dependency_errors

__all__ = ["KueueSettings", "parse_config", "settings_for"]

_SETTLED = "kueue.settled"


@dataclass(frozen=True)
class KueueSettings:
    config: KueueConfig
    gates: FeatureGates

    def on(self, gate: str) -> bool:
        return self.gates.enabled(gate)

    @property
    def frameworks(self) -> tuple[str, ...]:
        return self.config.frameworks

    @property
    def label_keys_to_copy(self) -> tuple[str, ...]:
        """``getLabelsAndAnnotationsToCopy`` (``cmd/kueue/main.go``): ``integrations.labelKeysToCopy``,
        and with ``CustomMetricLabels`` the Workload custom labels' label sources before them."""
        if not self.on("CustomMetricLabels"):
            return self.config.label_keys_to_copy
        labels, _ = workload_sources(parse_entries(self.config.metrics.get("customLabels")))
        return tuple(dict.fromkeys((*labels, *self.config.label_keys_to_copy)))

    @property
    def annotation_keys_to_copy(self) -> tuple[str, ...]:
        """The Workload custom labels' annotation sources (``CustomMetricLabels`` on), copied from a
        job to its Workload."""
        if not self.on("CustomMetricLabels"):
            return ()
        return workload_sources(parse_entries(self.config.metrics.get("customLabels")))[1]


def parse_config(raw: Mapping[str, Any] | str | None) -> dict[str, Any] | None:
    """A Configuration as a dict: ``raw`` is a mapping (taken as YAML), YAML/JSON text or a path to a
    file. Kueue's ``fromFile`` decodes with a codec factory's ``UniversalDecoder``, whose recognizer
    gives text starting with ``{`` (after blanks) to the JSON serializer and anything else to the YAML
    one (apimachinery ``serializer/json/json.go`` ``RecognizesData``, ``util/yaml`` ``IsJSONBuffer``):
    JSON text is decoded as written, a number keeping its literal (:func:`_json_document`), where YAML
    goes through ``YAMLToJSON`` (:func:`~kbatch.api.go_unmarshal.marshalled`)."""
    if raw is None:
        return None
    if isinstance(raw, Mapping):
        return dict(raw)
    from kbatch.apiserver.manifests import ManifestError, parse_documents

    text, source = raw, "the Kueue configuration"
    if "\n" not in raw and os.path.exists(raw):
        source = raw
        try:
            with open(raw, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as err:
            raise Invalid(f"invalid Kueue configuration: cannot read {raw}: {err.strerror}") from None
    try:
        docs = _json_document(text) or parse_documents(text, source)
    except ManifestError as err:
        raise Invalid(f"invalid Kueue configuration: {err}") from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise Invalid(f"invalid Kueue configuration: {source} must hold one Configuration object")
    _refuse_repeated_keys(text)
    return docs[0]


def _json_document(text: str) -> list[Any] | None:
    """The one document of text whose first non-blank character is ``{``, read as JSON with its
    numbers as written, even where YAML's flow style would read it (the recognizer gives it to the
    JSON serializer: ``IsJSONBuffer``); ``None``: other text, which is YAML. Text that is no JSON
    fails as the serializer's first step fails (``SimpleMetaFactory.Interpret``)."""
    if not is_json_buffer(text):
        return None
    try:
        return [interpret_json(text)]
    except GoSyntaxError as err:
        raise Invalid(f"invalid Kueue configuration: {err}") from None


def _refuse_repeated_keys(text: str) -> None:
    """Kueue decodes its configuration with a strict codec (``serializer.EnableStrict``), whose YAML
    serializer refuses a repeated key (sigs.k8s.io/yaml ``YAMLToJSONStrict``); manifests keep the
    last value instead (:mod:`kbatch.apiserver.yaml_duplicates`)."""
    from kbatch.apiserver.yaml_duplicates import duplicate_key_problems, duplicate_keys_error

    problems = duplicate_key_problems(text)
    if problems:
        raise Invalid(f"invalid Kueue configuration: strict decoding error: {duplicate_keys_error(problems)}")


def _gates(features: FeatureGates, config: KueueConfig) -> FeatureGates:
    if not config.feature_gates:
        return features
    flagged = features.overridden()
    errs = []
    for name in sorted(config.feature_gates):
        value = config.feature_gates[name]
        if name in flagged and flagged[name] != value:
            errs.append(
                FieldError.invalid(
                    f"featureGates[{name}]",
                    value,
                    "feature gate set both by --feature-gates and in the configuration",
                )
            )
    if errs:
        raise Invalid.of("Configuration.config.kueue.x-k8s.io", "", errs)
    try:
        return FeatureGates(features.specs, {**flagged, **dict(config.feature_gates)})
    except FeatureGateError as err:
        raise Invalid(f"invalid Kueue configuration: featureGates: {err}") from None


def settings_for(configurations: dict[str, Any], features: FeatureGates) -> KueueSettings:
    """The settings for ``configurations["kueue"]`` (settled once and kept alongside)."""
    settled = configurations.get(_SETTLED)
    if isinstance(settled, KueueSettings):
        return settled
    data = parse_config(configurations.get("kueue"))
    disable = "DisableWaitForPodsReady" in features and features.enabled("DisableWaitForPodsReady")
    flags = features.overridden()
    source = data if data is not None else shipped()
    config = load(source, disable_wait_for_pods_ready=disable, flag_gates=flags)
    gates = _gates(features, config)
    gate_errors = gate_dependency_errors(gates)
    if gate_errors:
        raise Invalid.of("Configuration.config.kueue.x-k8s.io", "", gate_errors)
    if (
        gates is not features
        and "DisableWaitForPodsReady" in gates
        and gates.enabled("DisableWaitForPodsReady")
    ):
        config = load(source, disable_wait_for_pods_ready=True, flag_gates=flags)
    settled = KueueSettings(config, gates)
    configurations[_SETTLED] = settled
    return settled


def check_config_text(text: str, feature_gates: str | None = None) -> KueueConfig:
    """Parse and validate a Configuration given as text (the CLI checks it before keeping it), with
    the gates a ``--feature-gates`` value sets."""
    flags = {}
    for part in (feature_gates or "").split(","):
        name, _, value = part.partition("=")
        if name.strip():
            flags[name.strip()] = value.strip().lower() == "true"
    return load(parse_config(text if "\n" in text else text + "\n"), flag_gates=flags)


def describe_config(text: str | None) -> str:
    """One line on what a Configuration (``None``: the shipped one) makes Kueue do."""
    cfg = load(parse_config(text) if text is not None else shipped())
    wait, afs = cfg.wait_for_pods_ready, cfg.admission_fair_sharing
    parts = [f"integrations: {', '.join(cfg.frameworks)}",
             "waitForPodsReady: " + (f"timeout {wait.timeout:g}s, blockAdmission "
                                     f"{str(wait.block_admission).lower()}" if wait else "off"),
             "fairSharing: " + (", ".join(cfg.fair_sharing_strategies or ()) if cfg.fair_sharing else "off"),
             "admissionFairSharing: " + (f"usageHalfLifeTime {afs.usage_half_life_time:g}s, "
                                         f"usageSamplingInterval {afs.usage_sampling_interval:g}s"
                                         if afs else "off"),
             f"manageJobsWithoutQueueName: {str(cfg.manage_jobs_without_queue_name).lower()}"]
    return "; ".join(parts)
