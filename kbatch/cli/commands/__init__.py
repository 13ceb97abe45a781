"""The command groups of the ``kbatch`` CLI; each module has ``register(app)``."""
