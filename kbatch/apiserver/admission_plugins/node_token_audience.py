"""NodeRestriction's audience rule for a node's TokenRequest (``ServiceAccountNodeAudienceRestriction``,
beta and on by default since 1.33, still beta in 1.37).

Upstream: k8s.io/kubernetes ``plugin/pkg/admission/noderestriction/admission.go``
(``admitServiceAccount`` → ``validateNodeServiceAccountAudience``, ``podReferencesAudience``,
``getCSIFromPVC``, ``csiDriverHasAudience``), with the messages of ``test/integration/auth/node_test.go``
(``TestNodeRestrictionServiceAccountAudience``) and the documented authorization check
(docs: "Service account token audience restriction", admission-controllers.md#noderestriction).

Once the token is known to be bound to a pod on the node, the node may ask for at most one audience
(none is the empty audience); it is admitted when the pod references it:

* a projected ``serviceAccountToken`` source with that audience;
* a CSI driver whose CSIDriver lists it in ``spec.tokenRequests``, the driver named by an inline
  ``csi`` volume, or by the PersistentVolume bound to a ``persistentVolumeClaim`` volume's claim or to a
  generic ``ephemeral`` volume's claim (``<pod>-<volume>``).

A lookup on the way that fails (the claim, its volume or the driver missing) does not end the search:
a later volume may still reference the audience. When none does, the failed lookups refuse the
request as ``error validating audience "<a>": <errors>``, the errors aggregated as
k8s.io/apimachinery ``pkg/util/errors`` ``NewAggregate`` prints them (one message alone; several,
each distinct message once, as ``[m1, m2]``). With no failed lookup, the server's authorizer
decides: the node must be allowed ``request-serviceaccounts-token-audience`` on the resource named
after the audience (API group ``""``), the service account's name and namespace; else the refusal
is ``audience "<a>" not found in pod spec volume, <user> is not authorized to request tokens for this
audience``.

The drivers are storage.k8s.io/v1 CSIDriver objects (:mod:`kbatch.api.storage_v1`); a missing one is
the lister's ``csidriver.storage.k8s.io "<driver>" not found``. Not modelled: in-tree volumes
(``azureFile`` …) are not translated to their CSI drivers (``csi-translation-lib``), so they reference
no audience here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.core_v1.volume import Volume
from kbatch.api.errors import NotFound
from kbatch.api.go_quote import go_quote
from kbatch.api.storage_v1 import CSIDriver

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["AUDIENCE_VERB", "GATE", "Lookups", "MissingObject", "aggregate_message", "audience_refusal",
           "references_audience", "server_lookups"]

GATE = "ServiceAccountNodeAudienceRestriction"
M = TypeVar("M", PersistentVolume, CSIDriver)
AUDIENCE_VERB = "request-serviceaccounts-token-audience"


class MissingObject(Exception):
    """A lister's NotFound on the way from a volume to its CSI driver (the message is the lister's)."""


@dataclass(frozen=True, slots=True)
class Lookups:
    """What the rule reads, each ``None`` when missing: a claim's ``spec.volumeName`` (namespace, name),
    a persistent volume's CSI driver name (``""`` for another source), a CSIDriver's token audiences."""

    claim_volume: Callable[[str, str], str | None]
    pv_driver: Callable[[str], str | None]
    driver_audiences: Callable[[str], Sequence[str] | None]


def _claim_driver(lookups: Lookups, namespace: str, claim: str) -> str:
    """``getCSIFromPVC``: the driver of the volume the claim is bound to (``""``: not a CSI volume)."""
    volume = lookups.claim_volume(namespace, claim)
    if volume is None:
        raise MissingObject(f"persistentvolumeclaim {go_quote(claim)} not found")
    driver = lookups.pv_driver(volume)
    if driver is None:
        raise MissingObject(f"persistentvolume {go_quote(volume)} not found")
    return driver


def _volume_driver(pod: Pod, volume: Volume, lookups: Lookups) -> str:
    namespace = pod.metadata.namespace or ""
    if volume.ephemeral is not None and volume.ephemeral.volume_claim_template is not None:
        return _claim_driver(lookups, namespace, f"{pod.metadata.name}-{volume.name}")
    if volume.persistent_volume_claim is not None:
        return _claim_driver(lookups, namespace, volume.persistent_volume_claim.claim_name)
    return volume.csi.driver if volume.csi is not None else ""


def _projects(volume: Volume, audience: str) -> bool:
    sources = volume.projected.sources if volume.projected is not None else None
    return any(s.service_account_token is not None and (s.service_account_token.audience or "") == audience
               for s in sources or ())


def _references(pod: Pod, volume: Volume, audience: str, lookups: Lookups) -> bool:
    """Whether one volume references the audience; :class:`MissingObject` for a failed lookup."""
    if _projects(volume, audience):
        return True
    driver = _volume_driver(pod, volume, lookups)
    if not driver:
        return False
    audiences = lookups.driver_audiences(driver)
    if audiences is None:
        raise MissingObject(f"csidriver.storage.k8s.io {go_quote(driver)} not found")
    return audience in audiences


def references_audience(pod: Pod, audience: str, lookups: Lookups) -> bool:
    """``podReferencesAudience``: True at the first volume that references the audience; else
    :class:`MissingObject` with the aggregate of the lookups that failed, if any."""
    failed: list[str] = []
    for volume in pod.spec.volumes or ():
        try:
            if _references(pod, volume, audience, lookups):
                return True
        except MissingObject as err:
            failed.append(str(err))
    if failed:
        raise MissingObject(aggregate_message(failed))
    return False


def aggregate_message(messages: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one error's message; several as ``[a, b]``, each
    distinct message once, in order (one distinct message alone is printed bare)."""
    distinct = list(dict.fromkeys(messages))
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


def audience_refusal(body: Mapping[str, Any], pod: Pod, user: str, lookups: Lookups,
                     authorized: Callable[[str], bool]) -> str | None:
    """Why the node ``user`` may not have a token with the TokenRequest ``body``'s audiences for
    ``pod`` (``None``: it may); ``authorized(audience)`` asks the authorizer chain."""
    audiences = list((body.get("spec") or {}).get("audiences") or ())
    if len(audiences) > 1:
        return "node may only request 0 or 1 audiences"
    audience = str(audiences[0]) if audiences else ""
    try:
        if references_audience(pod, audience, lookups):
            return None
    except MissingObject as err:
        return f"error validating audience {go_quote(audience)}: {err}"
    if authorized(audience):
        return None
    return (f"audience {go_quote(audience)} not found in pod spec volume, {user} is not authorized to "
            "request tokens for this audience")


def _stored(server: APIServer, model: type[M], name: str) -> M | None:
    """The cluster-scoped object ``name`` of ``model``, None when absent (or the kind not served)."""
    if not name or model not in server.registry:
        return None
    try:
        return server.get(model, name)
    except NotFound:
        return None


def server_lookups(server: APIServer) -> Lookups:
    """The lookups over ``server``'s store (upstream's listers)."""
    def claim_volume(namespace: str, name: str) -> str | None:
        if not name:
            return None
        try:
            return server.get(PersistentVolumeClaim, name, namespace).spec.volume_name or ""
        except NotFound:
            return None

    def pv_driver(name: str) -> str | None:
        volume = _stored(server, PersistentVolume, name)
        if volume is None:
            return None
        return volume.spec.csi.driver if volume.spec.csi is not None else ""

    def driver_audiences(name: str) -> list[str] | None:
        driver = _stored(server, CSIDriver, name)
        if driver is None:
            return None
        return [request.audience for request in driver.spec.token_requests or ()]

    return Lookups(claim_volume, pv_driver, driver_audiences)
