"""The admission-policy family: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and
ValidatingAdmissionPolicyBinding (GA since Kubernetes 1.30) and the ``ValidatingAdmissionPolicy``
admission plugin (on by default, as in kube-apiserver).

* kinds (cluster-scoped) with upstream's defaulting and validation, CEL compile errors included
  (:mod:`kbatch.api.strategies.admission_policy`) and ``kubectl get`` columns
  (:mod:`kbatch.families.admission_policy.printers`);
* admission plugin ``ValidatingAdmissionPolicy``
  (:mod:`kbatch.apiserver.admission_plugins.validating_policy`): every write of every kind is judged
  by the policies and bindings that match it; Deny refuses it, Warn adds a warning.

docs/admission-policy.md says what is modelled and every deliberate difference.
"""

from __future__ import annotations

from kbatch.api.admissionregistration_v1 import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from kbatch.api.strategies.admission_policy import PolicyBindingStrategy, PolicyStrategy
from kbatch.families.admission_policy import printers
from kbatch.families.family import AdmissionPlugin, Family, KindEntry

__all__ = ["ADMISSION_POLICY"]

ADMISSION_POLICY = Family(
    name="admission-policy",
    description="admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its binding, and the "
    "ValidatingAdmissionPolicy admission plugin",
    kinds=(
        KindEntry(ValidatingAdmissionPolicy, PolicyStrategy(), printers.POLICY),
        KindEntry(ValidatingAdmissionPolicyBinding, PolicyBindingStrategy(), printers.BINDING),
    ),
    admission=(
        AdmissionPlugin(
            "ValidatingAdmissionPolicy",
            "kbatch.apiserver.admission_plugins.validating_policy:install",
            description="CEL validations of ValidatingAdmissionPolicies, as their bindings say",
        ),
    ),
)
