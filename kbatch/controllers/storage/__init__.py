"""Controllers of the storage family (docs/storage.md)."""
