"""One exception hierarchy: every exception class agi-core and its plugins define derives from AgiError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from agi_core.errors import AgiError

PACKAGES = [
    "agi_core",
    "agi_plugin_autonomy",
    "agi_plugin_beliefs",
    "agi_plugin_learning",
    "agi_plugin_retrieval",
    "agi_plugin_self_improver",
    "agi_plugin_social",
]


def modules() -> list[str]:
    """Every module of the packages above that is importable here (``__main__`` runs the CLI: left out)."""
    names = []
    for package_name in PACKAGES:
        try:
            package = importlib.import_module(package_name)
        except ImportError:
            continue
        names.append(package_name)
        for info in pkgutil.walk_packages(package.__path__, prefix=package_name + "."):
            if not info.name.endswith("__main__"):
                names.append(info.name)
    return names


def exception_classes() -> list[type[BaseException]]:
    found = []
    for name in modules():
        module = importlib.import_module(name)
        found += [
            obj
            for _, obj in inspect.getmembers(module, inspect.isclass)
            if issubclass(obj, BaseException) and obj.__module__ == module.__name__
        ]
    return found


def test_the_walk_sees_the_modules_and_their_exceptions() -> None:
    names = {cls.__qualname__ for cls in exception_classes()}
    assert {"AgiError", "StateNotFound", "ContractViolation", "ProviderError", "CheckpointError", "Unfit"} <= names
    assert len(modules()) > 100 and "agi_core.cli.main" in modules()


@pytest.mark.parametrize("cls", exception_classes(), ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_exception_derives_from_agi_error(cls: type[BaseException]) -> None:
    assert issubclass(cls, AgiError), f"{cls.__module__}.{cls.__qualname__} derives from {cls.__mro__[1].__name__}"
