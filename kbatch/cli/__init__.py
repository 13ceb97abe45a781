"""The ``kbatch`` command line (typer). Thin: parse, call the library, print.

Start-up: pydantic looks for plugins (the ``pydantic`` entry-point group of every installed
distribution) when the first model is built, ~70 ms on the development machine; kbatch uses none, so
the command line turns the lookup off (``PYDANTIC_DISABLE_PLUGINS``, pydantic ≥ 2.7) unless the
environment already sets the variable (export it empty to keep plugins).
"""

import os

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from kbatch.cli.app import app, main

__all__ = ["app", "main"]
