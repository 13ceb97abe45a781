"""``python -m kbatch``: the same as the ``kbatch`` console script (and ``python -m kbatch.cli``)."""

from kbatch.cli.app import main

main()
