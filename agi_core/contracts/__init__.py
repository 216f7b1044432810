"""LLM output contracts: data files, the validate/normalize engine and the contract call.

Public API::

    from agi_core.contracts import (load_contract, registry_from_plugins,
                                    validate_and_normalize, call_contract, Budget)

    registry = registry_from_plugins(load_plugins())
    result = validate_and_normalize(registry["intent_ingestion"], text)   # never raises
    call = call_contract(registry["intent_ingestion"], provider, {"text": "hi"},
                         budget=Budget(attempts=3, tokens=4000))          # or ContractViolation
"""

from agi_core.contracts.errors import (
    ContractError,
    ContractFileError,
    ContractViolation,
    ReplayExhausted,
    UnknownContract,
)
from agi_core.contracts.frozen import thaw
from agi_core.contracts.loader import contract_from_dict, load_contract, meta_schema_path
from agi_core.contracts.model import Contract, Issue, Prompt, Result, Rule
from agi_core.contracts.pipeline import Budget, CallResult, call_contract, run_fallback
from agi_core.contracts.provider import Completion, Provider, RecordedProvider
from agi_core.contracts.registry import ContractRegistry, registry_from_plugins
from agi_core.contracts.validate import validate_and_normalize

__all__ = [
    "Budget",
    "CallResult",
    "Completion",
    "Contract",
    "ContractError",
    "ContractFileError",
    "ContractRegistry",
    "ContractViolation",
    "Issue",
    "Prompt",
    "Provider",
    "RecordedProvider",
    "ReplayExhausted",
    "Result",
    "Rule",
    "UnknownContract",
    "call_contract",
    "contract_from_dict",
    "load_contract",
    "meta_schema_path",
    "registry_from_plugins",
    "run_fallback",
    "thaw",
    "validate_and_normalize",
]
