"""Kubernetes protobuf request bodies (``application/vnd.kubernetes.protobuf``), decoded to JSON dicts.

kubectl's typed clients (``kubectl create job|cronjob|namespace|priorityclass|poddisruptionbudget``,
``kubectl drain``'s evictions) send built-in kinds in this encoding. kube-apiserver decodes it for
every built-in kind (its 415 "accepted media types include …" answer is for kinds without protobuf,
i.e. custom resources), and client-go falls back to JSON on a 415 only for CBOR
(client-go ``rest/client.go`` ``UnsupportedMediaType``), so ``kbatch serve`` decodes it too.
"""

from kbatch.server.protobuf.decode import PROTOBUF, decode_object

__all__ = ["PROTOBUF", "decode_object"]
