"""The ``kbatch`` command line (typer). Thin: parse, call the library, print."""

from kbatch.cli.app import app, main

__all__ = ["app", "main"]
