"""Typed models of the batch APIs, their strategies and the value types around them.

Objects read from kbatch (gets, lists, watches, informers, write results) are shared and read only:
:func:`edit` gives a private copy to change (:mod:`kbatch.api.frozen`).
"""

from kbatch.api.frozen import edit

__all__ = ["edit"]
