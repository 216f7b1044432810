"""The installed plugins' entry points, found without importing ``importlib.metadata``.

``importlib.metadata`` (email, zipfile, csv …) cost about a third of ``agi --help``, which
must list the commands of every installed plugin. :func:`entry_points` reads the same
``entry_points.txt`` files the way ``importlib.metadata.entry_points(group=…)`` does: the
``*.dist-info`` and ``*.egg-info`` folders of each ``sys.path`` folder in order, a distribution
name seen earlier hiding later ones. Where that reading could differ (a zip file on
``sys.path``, a meta-path finder of its own that lists distributions) it asks
``importlib.metadata`` instead. ``tests/test_plugin_entry_points.py`` compares the two.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import reduce
from types import ModuleType
from typing import Any

_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")  # importlib.metadata's


@dataclass(frozen=True)
class PluginEntryPoint:
    """One ``name = module:attribute`` of a group, with its distribution's version."""

    name: str
    value: str
    group: str
    version: str  # "unknown" when the distribution says none

    def load(self) -> Any:
        """The module, or the object the value names in it (as ``EntryPoint.load``)."""
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r} has an invalid value {self.value!r}; use module:attribute")
        module = importlib.import_module(match.group("module"))
        return reduce(getattr, filter(None, (match.group("attr") or "").split(".")), module)


def entry_points(group: str) -> list[PluginEntryPoint]:
    """The entry points of ``group`` of the installed distributions, in ``importlib.metadata``'s order."""
    if not _plain_finders():
        return _from_importlib(group)
    found: list[PluginEntryPoint] = []
    seen: set[str] = set()
    for root in sys.path:
        folders = _metadata_folders(root)
        if folders is None:
            return _from_importlib(group)
        for name, folder in folders:
            if name in seen:
                continue
            seen.add(name)
            text = _read(os.path.join(folder, "entry_points.txt"))
            pairs = [pair for section, pair in _sections(text) if section == group] if text else []
            if pairs:
                version = _version(folder) or "unknown"
                found += [PluginEntryPoint(key, value, group, version) for key, value in pairs]
    return found


def installed_name(obj: object, group: str) -> str | None:
    """The name of the installed entry point of ``group`` that loads ``obj``, without importing anything: a
    module (or its dotted name) named by an entry point without an attribute, or an object the entry point's
    attribute names (that object, or one of its class, or an instance of that class) in a module already
    imported. None when no entry point, or more than one, loads it (a plugin a test registers that is not
    installed keeps the name it is given)."""
    target: object | None = None
    if isinstance(obj, str):
        module: Any = obj
    elif isinstance(obj, ModuleType):
        module = obj.__name__
    else:
        module, target = getattr(obj if isinstance(obj, type) else type(obj), "__module__", None), obj
    if not isinstance(module, str):
        return None
    names = {entry.name for entry in entry_points(group) if _loads(entry.value, module, target)}
    return names.pop() if len(names) == 1 else None


def _loads(value: str, module: str, target: object | None) -> bool:
    """Whether the entry point ``value`` names ``module`` (``target`` None) or ``target`` in it."""
    match = _VALUE.match(value)
    if match is None or match.group("module") != module:
        return False
    attr = match.group("attr")
    if target is None or attr is None:
        return target is None and attr is None
    try:
        found = reduce(getattr, attr.split("."), sys.modules[module])
    except (KeyError, AttributeError):
        return False
    kind = target if isinstance(target, type) else type(target)
    return found is target or found is kind or (not isinstance(found, type) and type(found) is kind)


def distribution_version(name: str) -> str | None:
    """The version of the installed distribution ``name`` (as ``importlib.metadata.version``), None if absent."""
    if not _plain_finders():
        return _version_from_importlib(name)
    wanted = _normalize(name)
    for root in sys.path:
        folders = _metadata_folders(root)
        if folders is None:
            return _version_from_importlib(name)
        for found, folder in folders:
            if found == wanted:
                return _version(folder)
    return None


def _plain_finders() -> bool:
    """Whether only the standard path finder lists distributions (what this module reads)."""
    from importlib.machinery import PathFinder

    return all(finder is PathFinder or getattr(finder, "find_distributions", None) is None for finder in sys.meta_path)


def _metadata_folders(root: str) -> list[tuple[str, str]] | None:
    """``(normalized name, folder)`` of each distribution in ``root``, grouped by name in listing order
    (as ``importlib.metadata``'s ``Lookup``); ``[]`` where there is none, None for a zip file."""
    try:
        children = os.listdir(root or ".")
    except NotADirectoryError:
        return None
    except OSError:
        return []
    infos: dict[str, list[str]] = {}
    eggs: list[tuple[str, str]] = []
    base = os.path.basename(root).lower()
    for child in children:
        low = child.lower()
        if low.endswith((".dist-info", ".egg-info")):
            infos.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(child)
        elif base.endswith(".egg") and low == "egg-info":
            eggs.append((_normalize(base.rpartition(".")[0].partition("-")[0]), child))
    named = [(name, child) for name, children_of in infos.items() for child in children_of] + eggs
    return [(name, os.path.join(root, child)) for name, child in named]


def _normalize(name: str) -> str:
    """PEP 503 normalization with dashes as underscores (importlib.metadata's ``Prepared.normalize``)."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except (OSError, UnicodeDecodeError):
        return None


def _sections(text: str) -> Iterator[tuple[str, tuple[str, str]]]:
    """``(section, (name, value))`` of an ``entry_points.txt`` (importlib.metadata's ``Sectioned``)."""
    section: str | None = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section is not None and "=" in line:
            name, value = line.split("=", 1)
            yield section, (name.strip(), value.strip())


def _version(folder: str) -> str | None:
    """The ``Version`` header of the distribution's ``METADATA`` (``PKG-INFO`` for an egg)."""
    text = _read(os.path.join(folder, "METADATA")) or _read(os.path.join(folder, "PKG-INFO")) or ""
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key.strip().lower() == "version":
            return value.strip()
    return None


def _from_importlib(group: str) -> list[PluginEntryPoint]:
    from importlib import metadata

    return [
        PluginEntryPoint(point.name, point.value, group, (point.dist.version if point.dist else None) or "unknown")
        for point in metadata.entry_points(group=group)
    ]


def _version_from_importlib(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
