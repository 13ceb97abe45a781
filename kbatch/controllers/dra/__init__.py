"""Dynamic Resource Allocation: the structured allocator (:mod:`.structured`, pure), the
DynamicResources scheduler plugin (:mod:`.dynamicresources`), the resourceclaim controller
(:mod:`.resourceclaim`), device taint eviction (:mod:`.devicetainteviction`), the kubelet's claim
check (:mod:`.kubelet`) and the family's admission plugin (:mod:`.admission`). docs/dra.md."""
