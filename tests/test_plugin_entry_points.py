"""Entry points read without importlib.metadata give exactly what importlib.metadata gives."""

from __future__ import annotations

import importlib
import sys
import zipfile
from importlib import metadata

import pytest

from agi_core.plugin_entry_points import PluginEntryPoint, distribution_version, entry_points


def _importlib_points(group: str) -> list[PluginEntryPoint]:
    importlib.invalidate_caches()
    return [
        PluginEntryPoint(point.name, point.value, group, (point.dist.version if point.dist else None) or "unknown")
        for point in metadata.entry_points(group=group)
    ]


def _dist(site, folder: str, entry_points: str | None, version: str | None = "1.0") -> None:
    info = site / folder
    info.mkdir(parents=True)
    if version is not None:
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: x\nVersion: {version}\n\nbody\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


@pytest.mark.parametrize("group", ["agi", "console_scripts", "pytest11"])
def test_the_installed_entry_points_are_importlib_metadatas(group):
    assert entry_points(group) == _importlib_points(group)


def test_versions_are_importlib_metadatas():
    for name in ["agi-core", "agi_core", "Click", "pluggy", "attrs", "pip", "no-such-distribution"]:
        try:
            expected: str | None = metadata.version(name)
        except metadata.PackageNotFoundError:
            expected = None
        assert distribution_version(name) == expected, name


def test_order_shadowing_names_and_file_syntax_follow_importlib_metadata(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "Shadowed_Plugin-2.0.dist-info", "[agi]\nnew = shadowed.new:plugin\n", "2.0")
    _dist(second, "shadowed.plugin-1.0.dist-info", "[agi]\nold = shadowed.old\n", "1.0")  # hidden: same name
    _dist(
        second,
        "spaced-3.1.dist-info",
        "# a comment\n\n[console_scripts]\nx = spaced:main\n\n"
        "[agi]\n  one=spaced.one  \ntwo = spaced:obj.attr [extra]\n",
        "3.1",
    )
    _dist(second, "legacy.egg-info", "[agi]\nlegacy = legacy_plugin\n", None)
    _dist(second, "nothing-1.0.dist-info", None)
    monkeypatch.setattr(sys, "path", [str(first), str(tmp_path / "missing"), str(second), *sys.path])
    found = entry_points("agi")
    assert found == _importlib_points("agi")
    ours = {"new", "one", "two", "legacy"}
    mine = [(point.name, point.value, point.version) for point in found if point.name in ours]
    assert sorted(mine) == [
        ("legacy", "legacy_plugin", "unknown"),
        ("new", "shadowed.new:plugin", "2.0"),
        ("one", "spaced.one", "3.1"),
        ("two", "spaced:obj.attr [extra]", "3.1"),
    ]
    assert distribution_version("shadowed-plugin") == metadata.version("shadowed-plugin") == "2.0"


def test_a_zip_on_sys_path_is_read_by_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped-4.0.dist-info/METADATA", "Name: zipped\nVersion: 4.0\n")
        bundle.writestr("zipped-4.0.dist-info/entry_points.txt", "[agi]\nzipped = zipped_plugin\n")
    monkeypatch.setattr(sys, "path", [str(archive), *sys.path])
    found = entry_points("agi")
    assert PluginEntryPoint("zipped", "zipped_plugin", "agi", "4.0") in found
    assert found == _importlib_points("agi")
    assert distribution_version("zipped") == "4.0"


def test_load_imports_the_module_and_its_attribute(tmp_path, monkeypatch):
    (tmp_path / "loadable_plugin.py").write_text("class Holder:\n    value = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = PluginEntryPoint("p", "loadable_plugin", "agi", "1").load()
    assert module.__name__ == "loadable_plugin"
    assert PluginEntryPoint("p", "loadable_plugin:Holder.value", "agi", "1").load() == 42
