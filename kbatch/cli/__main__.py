"""``python -m kbatch.cli``: the same as the ``kbatch`` console script."""

from kbatch.cli.app import main

main()
