"""An installed plugin a test registers (its module or object) has its installed name, so its settings
keys (``ctx.settings``, ``agi config``, ``AGI_PLUGIN_<NAME>_<KEY>``) are the same in tests and in use."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest

from agi_core.plugin_entry_points import installed_name
from agi_core.testing import builtin_plugins, open_kernel

TONE = """
from agi_core.hookspecs import hookimpl
from agi_core.modules import Candidate, CognitiveModule, Proposals


class Greeting(CognitiveModule):
    name = "greeting"

    def deliberate(self, ctx):
        if ctx.text == "good morning":
            return Proposals(candidates=[Candidate(ctx.settings["greeting"] + "!", 0.9)])
        return None


class TonePlugin:
    agi_manifest = {
        "settings": {"type": "object", "properties": {"greeting": {"type": "string", "default": "Hello"}}}
    }

    @hookimpl
    def agi_register_modules(self, register):
        register(Greeting())


plugin = TonePlugin()
agi_manifest = TonePlugin.agi_manifest
agi_register_modules = hookimpl(lambda register: register(Greeting()))
"""


def install(site, module: str, value: str) -> dict[str, str]:
    """``module`` installed in ``site`` as the distribution acme-tone, its entry point ``tone = value``."""
    info = site / f"{module}-1.0.dist-info"
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(TONE, encoding="utf-8")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[agi]\ntone = {value}\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    env.pop("AGI_LOAD_PLUGINS", None)
    return env


@pytest.fixture(params=["module", "object"])
def tone(request, tmp_path, monkeypatch):
    """The plugin as a test registers it (the module, or an instance of its class), and the installed env."""
    module = f"acme_tone_{request.param}"
    value = module if request.param == "module" else f"{module}:plugin"
    env = install(tmp_path / "site", module, value)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    loaded = importlib.import_module(module)
    yield (loaded if request.param == "module" else loaded.TonePlugin()), env
    sys.modules.pop(module, None)


def test_a_setting_set_under_the_installed_name_reaches_the_module_registered_the_test_way(tmp_path, tone, monkeypatch):
    plugin, env = tone
    assert installed_name(plugin, "agi") == "tone"
    db = tmp_path / "agent.db"
    done = subprocess.run(  # the real CLI, which loads the plugin from its entry point
        [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", "test", "config", "set", "tone.greeting", "Hey"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with open_kernel(db, plugin) as kernel:  # the test way: the object registered, no entry point loaded
        assert kernel.tick("good morning").final_output == "Hey!"
        kernel.command("config_set", {"plugin": "tone", "key": "greeting", "value": "Hi there"})
        assert kernel.tick("good morning").final_output == "Hi there!"
    monkeypatch.setenv("AGI_PLUGIN_TONE_GREETING", "Ahoy")  # an operator's override, by the installed name
    with open_kernel(db, plugin) as kernel:
        assert kernel.tick("good morning").final_output == "Ahoy!"


def test_a_plugin_no_entry_point_loads_keeps_the_name_it_is_given(tmp_path):
    class Unpublished:
        pass

    assert installed_name(Unpublished(), "agi") is None
    assert "Unpublished" in builtin_plugins(Unpublished()).versions()["plugins"]
