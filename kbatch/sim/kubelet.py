"""Where the controller catalog looks for ``kubelet`` (``kbatch.sim.kubelet:setup``); the
controller itself lives in :mod:`kbatch.controllers.kubelet`."""

from kbatch.controllers.kubelet import setup

__all__ = ["setup"]
