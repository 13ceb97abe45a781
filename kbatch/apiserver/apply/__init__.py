"""Server-side apply (KEP-555; kubernetes.io "Server-Side Apply"; sigs.k8s.io/structured-merge-diff and
k8s.io/apiserver ``pkg/endpoints/handlers/fieldmanager``).

* :mod:`.fieldpath`: field paths as FieldsV1 keys (``f:``, ``k:{...}``, ``v:``), the FieldsV1 tree,
  the ``.spec.x[name="c"]`` path strings of conflict messages;
* :mod:`.schema`: which lists are associative (merge keys), sets or atomic, which maps are atomic;
* :mod:`.fieldset`: the members (owned paths with their values) of an object;
* :mod:`.merge`: merging an applied configuration into the live object, removing pruned fields;
* :mod:`.managed`: ``metadata.managedFields`` entries ↔ manager → field set;
* :mod:`.conflicts`: the 409 ``FieldManagerConflict`` error;
* :mod:`.plan`: one apply, pure: live + config + managers → merged object and managers;
* :mod:`.tracking`: ``Update`` ownership of ordinary writes (the admission hook) and the rule for
  which writes are tracked;
* :mod:`.operation`: the ``apply`` verb on an ``APIServer``.
"""
