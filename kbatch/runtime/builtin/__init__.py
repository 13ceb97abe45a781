"""Controllers that belong to the runtime itself: the garbage collector (a stepper around the API
server's collector) and TTL-after-finished. Each module exposes ``setup(ctx)`` for the catalog."""

__all__: list[str] = []
