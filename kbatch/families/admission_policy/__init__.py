"""The admission-policy family: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and
ValidatingAdmissionPolicyBinding (GA since Kubernetes 1.30), MutatingAdmissionPolicy and
MutatingAdmissionPolicyBinding (GA since 1.36), and the ``ValidatingAdmissionPolicy`` and
``MutatingAdmissionPolicy`` admission plugins (on by default, as in kube-apiserver).

* kinds (cluster-scoped) with upstream's defaulting and validation, CEL compile errors included
  (:mod:`kbatch.api.strategies.admission_policy`) and ``kubectl get`` columns
  (:mod:`kbatch.families.admission_policy.printers`);
* admission plugin ``ValidatingAdmissionPolicy``
  (:mod:`kbatch.apiserver.admission_plugins.validating_policy`): every write of every kind is judged
  by the policies and bindings that match it; Deny refuses it, Warn adds a warning;
* admission plugin ``MutatingAdmissionPolicy``
  (:mod:`kbatch.apiserver.admission_plugins.mutating_policy`), in the mutating phase: the mutations of
  the matching policies and bindings patch the object (ApplyConfiguration or JSONPatch).

docs/admission-policy.md says what is modelled and every deliberate difference.
"""

from __future__ import annotations

from kbatch.api.admissionregistration_v1 import (
    MutatingAdmissionPolicy,
    MutatingAdmissionPolicyBinding,
    ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
)
from kbatch.api.strategies.admission_policy import PolicyBindingStrategy, PolicyStrategy
from kbatch.api.strategies.mutating_policy import MutatingPolicyBindingStrategy, MutatingPolicyStrategy
from kbatch.families.admission_policy import printers
from kbatch.families.family import AdmissionPlugin, Family, KindEntry

__all__ = ["ADMISSION_POLICY"]

ADMISSION_POLICY = Family(
    name="admission-policy",
    description="admissionregistration.k8s.io/v1 Validating- and MutatingAdmissionPolicy and their "
    "bindings, and the ValidatingAdmissionPolicy and MutatingAdmissionPolicy admission plugins",
    kinds=(
        KindEntry(ValidatingAdmissionPolicy, PolicyStrategy(), printers.POLICY),
        KindEntry(ValidatingAdmissionPolicyBinding, PolicyBindingStrategy(), printers.BINDING),
        KindEntry(MutatingAdmissionPolicy, MutatingPolicyStrategy(), printers.MUTATING_POLICY),
        KindEntry(MutatingAdmissionPolicyBinding, MutatingPolicyBindingStrategy(), printers.BINDING),
    ),
    admission=(
        AdmissionPlugin(
            "ValidatingAdmissionPolicy",
            "kbatch.apiserver.admission_plugins.validating_policy:install",
            description="CEL validations of ValidatingAdmissionPolicies, as their bindings say",
        ),
        # mutating phase; its place among the mutating plugins is this family's place in
        # BUILTIN_FAMILIES, before the webhook-like plugins of the later families (AllOrderedPlugins:
        # MutatingAdmissionPolicy, then MutatingAdmissionWebhook, then the validating plugins)
        AdmissionPlugin(
            "MutatingAdmissionPolicy",
            "kbatch.apiserver.admission_plugins.mutating_policy:install",
            description="CEL mutations of MutatingAdmissionPolicies (ApplyConfiguration, JSONPatch)",
        ),
    ),
)
