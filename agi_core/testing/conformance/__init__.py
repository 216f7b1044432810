"""The conformance suite: the executable definition of a correct memory backend.

A backend author runs ``pytest --agi-backend=NAME`` (the option comes with agi-core's pytest
plugin, :mod:`agi_core.testing`); the backend is looked up through ``agi_register_memory_backends``
among the installed plugins, and every check of :class:`BackendConformance` runs against it.
Or subclass it in a test file::

    class TestMyBackend(BackendConformance):
        backend_name = "mydb"
        plugin_modules = ("my_package.plugin",)  # when the plugin is not installed

Modelled on LangGraph's ``checkpoint-conformance``: store-level checks (each protocol method's
ordering, last-write-wins, limits, bad input) and kernel-level ones (atomic ticks, rollback,
replay equality, two processes on one agent, tamper detection).
"""

from __future__ import annotations

from agi_core.testing.conformance.kernel_contract import KernelContract
from agi_core.testing.conformance.store_contract import StoreContract
from agi_core.testing.conformance.transfer_contract import TransferContract


class BackendConformance(StoreContract, KernelContract, TransferContract):
    """Every check of the :class:`~agi_core.memory.backend.MemoryBackend` contract."""


__all__ = ["BackendConformance"]
