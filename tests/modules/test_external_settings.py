"""ctx.external reads the outside world replay-safely; ctx.settings are the plugin's own validated settings."""

from __future__ import annotations

import pytest

from agi_core.errors import ConfigError
from agi_core.hookspecs import hookimpl
from agi_core.modules import Candidate, Claim, CognitiveModule, ModuleContext, Proposals
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel


class Weather(CognitiveModule):
    """Answers "weather?" from a file outside the agent (the outside world), for the configured city."""

    name = "weather"

    def __init__(self, source) -> None:
        self.source = source

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        if ctx.text == "broken?":
            ctx.external("missing", lambda: (self.source.parent / "nope.txt").read_text())
        if ctx.text != "weather?":
            return None
        sky = ctx.external("sky", lambda: self.source.read_text().strip())
        city = ctx.settings["city"]
        reply = f"It is {sky} in {city}."
        claim = Claim("world/place/city/sky", sky, reply, ctx.evidence_for("sky"))
        return Proposals(candidates=[Candidate(reply, 0.9, claims=[claim])])


def weather_plugin(source):
    class WeatherPlugin:
        agi_manifest = {  # noqa: RUF012
            "settings": {"type": "object", "properties": {"city": {"type": "string", "default": "Paris"}}}
        }

        @hookimpl
        def agi_register_modules(self, register):
            register(Weather(source))

    return WeatherPlugin()


def test_an_external_read_is_recorded_cited_and_served_back_on_replay(tmp_path):
    source = tmp_path / "sky.txt"
    source.write_text("sunny")
    db = tmp_path / "a.db"
    with open_kernel(db, weather_plugin(source)) as kernel:
        kernel.command("config_set", {"plugin": "WeatherPlugin", "key": "city", "value": "Lima"})
        record = kernel.tick("weather?")
        broken = kernel.tick("broken?")
    assert record.final_output == "It is sunny in Lima."
    assert record.externals["module_read"] == [{"module": "weather", "kind": "sky", "value": "sunny"}]
    (item,) = [item for item in record.evidence_items if item["source"] == "module:weather"]
    assert (item["key"], item["value"], record.claims[0]["evidence"]) == ("sky", "sunny", item["id"])
    assert [v["vote"] for v in record.council_votes] == ["approve", "approve"]
    (call,) = [c for c in broken.modules["calls"] if c["phase"] == "deliberate"]
    failed = "ExternalReadError: module 'weather': reading 'missing' failed: FileNotFoundError"
    assert call["skipped"].startswith(failed)
    source.write_text("rainy")  # the world changed: replay still sees what the tick saw
    assert replay(db, plugins=builtin_plugins(weather_plugin(source))).ok
    source.unlink()  # and never reads it
    assert replay(db, plugins=builtin_plugins(weather_plugin(source))).ok


def test_settings_of_a_plugin_that_is_not_loaded_is_an_error_not_empty(tmp_path):
    with open_kernel(tmp_path / "a.db", weather_plugin(tmp_path / "sky.txt")) as kernel:
        assert kernel.settings("WeatherPlugin") == {"city": "Paris"}
        assert kernel.settings("tools") == {}  # loaded, declares none
        with pytest.raises(ConfigError, match="no plugin named 'weathr' is loaded, so it has no settings; loaded: "):
            kernel.settings("weathr")


TEMPERATURES = {"paris": 21, "london": 14, "oslo": 3}


class Temperature(CognitiveModule):
    """Reads the temperature of its cities (one kind, ``temperature``, a read per city) and claims the last."""

    def __init__(self, name, *cities) -> None:
        self.name, self.cities = name, cities

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        if ctx.text != "how cold is it?":
            return None
        for city in self.cities:
            read = ctx.external("temperature", lambda city=city: {"city": city, "c": TEMPERATURES[city]})
        reply = f"It is {read['c']} C in {read['city']}."
        claim = Claim(f"world/place/{read['city']}/temperature", read["c"], reply, ctx.evidence_for("temperature"))
        return Proposals(candidates=[Candidate(reply, 0.9 if self.cities[-1] == "london" else 0.5, claims=[claim])])


def temperature_plugin():
    class TemperaturePlugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Temperature("oslo_first", "oslo"))  # another module reading the kind first
            register(Temperature("weather_uk", "paris", "london"))  # a comparison read, then its own city

    return TemperaturePlugin()


def test_a_claim_cites_the_modules_own_newest_read_of_a_kind_the_tick_read_before(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, temperature_plugin()) as kernel:
        record = kernel.tick("how cold is it?")
    assert record.final_output == "It is 14 C in london."
    london = [item for item in record.evidence_items if item["value"] == {"city": "london", "c": 14}]
    assert record.claims[0]["evidence"] == london[0]["id"]
    assert [v["vote"] for v in record.council_votes] == ["approve", "approve"]
    assert record.externals["module_read_cited"] == [{"module": "weather_uk", "kind": "temperature"}]
    assert replay(db, plugins=builtin_plugins(temperature_plugin())).ok


def test_a_journal_from_before_that_cited_the_first_read_of_a_kind_replays_equal(tmp_path, monkeypatch):
    """The journal older code wrote: the claim cites the tick's first ``temperature`` read, the council refuses."""
    db = tmp_path / "old.db"
    with monkeypatch.context() as patched:
        patched.setattr(ModuleContext, "evidence_for", lambda ctx, key: ctx._reason.evidence_for(key))
        with open_kernel(db, temperature_plugin()) as kernel:
            record = kernel.tick("how cold is it?")
    assert record.final_output == F1_SEM_MISS and "module_read_cited" not in record.externals
    assert replay(db, plugins=builtin_plugins(temperature_plugin())).ok
