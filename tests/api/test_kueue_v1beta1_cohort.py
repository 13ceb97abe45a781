"""Kueue v1beta1 Cohort: its status carries ``fairSharing.admissionFairSharingStatus`` (kueue v0.19.2
``config/components/crd/bases/kueue.x-k8s.io_cohorts.yaml``, v1beta1), which the generated
conversion to v1beta2 drops (``apis/kueue/v1beta1/cohort_conversion.go``; v1beta2's
``FairSharingStatus`` has only ``weightedShare``)."""

from __future__ import annotations

from kbatch.api.kueue_v1beta1 import Cohort
from kbatch.api.kueue_v1beta1.conversion import CONVERSIONS
from kbatch.api.kueue_v1beta2 import Cohort as CohortV2

STATUS = {"fairSharing": {"weightedShare": 3, "admissionFairSharingStatus": {
    "consumedResources": {"cpu": "2"}, "lastUpdate": "2026-01-01T00:00:00Z"}}}
V1 = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Cohort", "metadata": {"name": "team"},
      "status": STATUS}


def test_the_v1beta1_model_keeps_admission_fair_sharing_status() -> None:
    cohort = Cohort.model_validate(V1)
    fair = cohort.model_dump(by_alias=True, exclude_none=True)["status"]["fairSharing"]
    assert fair["admissionFairSharingStatus"]["consumedResources"] == {"cpu": "2"}


def test_conversion_up_drops_it_and_v1beta2_accepts_the_result() -> None:
    up = CONVERSIONS["Cohort"].to_storage(V1)
    assert up["status"]["fairSharing"] == {"weightedShare": 3}
    assert CohortV2.model_validate(up).status.fair_sharing.weighted_share == 3  # type: ignore[union-attr]
    assert V1["status"]["fairSharing"]["admissionFairSharingStatus"]  # the argument is untouched
