"""What a module author gets wrong is refused when the module registers, in one line naming the fix."""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from agi_core.errors import ValidationError
from agi_core.hookspecs import hookimpl
from agi_core.testing import open_kernel

SPECS = Path(__file__).parents[2] / "agi_core" / "contracts" / "specs"
FIX = 'another document, which agi-core never fetches; put that schema under "$defs" and refer to it as "#/$defs/NAME"'


class SchemaHost(ThreadingHTTPServer):
    """A real HTTP server serving a schema at any path, keeping the paths it was asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.asked.append(self.path)
                body = json.dumps({"type": "integer"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/schema+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_port}"


@pytest.fixture
def schema_host():
    host = SchemaHost()
    thread = threading.Thread(target=host.serve_forever, daemon=True)
    thread.start()
    yield host
    host.shutdown()
    host.server_close()
    thread.join()


def test_a_remote_reference_in_a_schema_is_refused_at_registration_and_never_fetched(tmp_path, schema_host):
    """A state_schema, a contract's output_schema or a settings declaration with "$ref": "http://…" made
    jsonschema-rs fetch the URL when the plugin loaded (and each contract call compiled it again)."""
    url = schema_host.url
    contract = json.loads((SPECS / "dialogue_state.json").read_text())
    contract["name"] = "remote_contract"
    contract["output_schema"] = {"type": "object", "properties": {"a": {"$ref": f"{url}/contract.json"}}}
    (tmp_path / "remote_contract.json").write_text(json.dumps(contract))

    class Remote:
        name = "remote"
        state_schema: ClassVar = {"type": "object", "properties": {"n": {"$ref": f"{url}/count.json"}}}

        def perceive(self, ctx):
            ctx.own.put("n", 1)

    class Local:  # a reference inside the schema still works
        name = "local"
        state_schema: ClassVar = {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/count"}},
            "$defs": {"count": {"type": "integer"}},
        }

        def perceive(self, ctx):
            ctx.own.put("n", 1)
            ctx.own.put("n", "one")

    class ModulesAndContract:
        @hookimpl
        def agi_register_modules(self, register):
            register(Remote())
            register(Local())

        @hookimpl
        def agi_register_contracts(self, register):
            register(tmp_path / "remote_contract.json")

    class RemoteSettings:
        agi_manifest: ClassVar = {
            "settings": {"type": "object", "properties": {"tone": {"$ref": f"{url}/tone.json", "default": 1}}}
        }

    with open_kernel(tmp_path / "a.db", ModulesAndContract(), RemoteSettings()) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council", "local"]
        assert "remote_contract" not in kernel.contracts  # the registry is built on first use
        assert sorted(failure.cause for failure in kernel.plugins.failures) == [
            f"ContractFileError: contract file {tmp_path / 'remote_contract.json'} is invalid @ "
            f"$.output_schema.properties.a.$ref: refers to '{url}/contract.json', {FIX}",
            f"RegistrationError: agi_manifest settings refers to '{url}/tone.json' at $.properties.tone.$ref, "
            "another document, which agi-core never fetches; write that schema into the setting's own schema",
            f"RegistrationError: module 'remote': state_schema refers to '{url}/count.json' at "
            f"$.properties.n.$ref, {FIX}",
        ]
        (call,) = kernel.tick("hello").modules["calls"]
        assert call["skipped"] == (
            "ModuleStateError: module 'local': state value refused at $.n: 'one' is not of type 'integer'; "
            "store a value its state_schema allows"
        )
    assert schema_host.asked == []


def test_a_phase_that_cannot_take_its_arguments_is_refused_at_registration(tmp_path):
    """def perceive(self) registered fine, then every tick skipped it with a bare "TypeError: X.perceive()
    takes 1 positional argument but 2 were given"; the same for revise without draft and vote without evidence."""

    def module(name, **methods):
        return type(name.title(), (), {"name": name, **methods})()

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(module("no_ctx", perceive=lambda self: 1))
            register(module("no_draft", perceive=lambda self, ctx: 1, revise=lambda self, ctx: None))
            register(module("one_vote", vote=lambda self, claims: []))
            register(module("too_many", observe=lambda self, ctx, outcome: None))
            register(module("fine", perceive=lambda self, ctx, *more, extra=None: "ok", vote=lambda self, *a: []))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council", "fine"]
        assert [failure.cause for failure in kernel.plugins.failures] == [
            "RegistrationError: module 'no_ctx': perceive() cannot be called as perceive(ctx); "
            "define it as def perceive(self, ctx)",
            "RegistrationError: module 'no_draft': revise(ctx) cannot be called as revise(ctx, draft); "
            "define it as def revise(self, ctx, draft)",
            "RegistrationError: module 'one_vote': vote(claims) cannot be called as vote(claims, evidence_items); "
            "define it as def vote(self, claims, evidence_items)",
            "RegistrationError: module 'too_many': observe(ctx, outcome) cannot be called as observe(ctx); "
            "define it as def observe(self, ctx)",
        ]
        assert [(c["module"], c["phase"], c["output"]) for c in kernel.tick("2 + 3").modules["calls"]] == [
            ("fine", "perceive", "ok")
        ]


def test_a_bad_state_schema_is_refused_with_its_path_and_a_state_that_is_no_object_too(tmp_path):
    """{"type": 3} was "3 is not valid under any of the given schemas" (no path, no fix); {"type": "string"}
    registered, then every put failed with "state value refused at $: {'v': 'x'} is not of type 'string'"."""

    def module(name, schema):
        return type(name, (), {"name": name, "state_schema": schema, "perceive": lambda self, ctx: None})()

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(module("bad_type", {"type": 3}))
            register(module("nested", {"type": "object", "properties": {"v": {"type": "strin"}}}))
            register(module("scalar", {"type": "string"}))
            register(module("listed", ["type", "object"]))
            register(module("either", {"type": ["object", "null"], "properties": {"v": {"type": "string"}}}))
            register(module("untyped", {"properties": {"v": {"type": "string"}}}))

    types = "['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']"
    example = '{"type": "object", "properties": {"KEY": {"type": "integer"}}}'
    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council", "either", "untyped"]
        assert [failure.cause for failure in kernel.plugins.failures] == [
            f"RegistrationError: module 'bad_type': state_schema is not a valid JSON Schema at $.type: 3 is not "
            f"one of {types}; correct that keyword (JSON Schema Draft 2020-12)",
            "RegistrationError: module 'nested': state_schema is not a valid JSON Schema at $.properties.v.type: "
            f"'strin' is not one of {types}; correct that keyword (JSON Schema Draft 2020-12)",
            "RegistrationError: module 'scalar': state_schema has type 'string' at $.type, but a module's state is "
            "an object of keys (ctx.own.put(key, value)); describe each key's value under properties, "
            f"e.g. {example}",
            "RegistrationError: module 'listed': state_schema is list ['type', 'object'], not a JSON Schema; "
            f"give a dict describing the state object, e.g. {example}",
        ]


def test_misshapen_attributes_and_outputs_say_which_module_where_and_the_fix(tmp_path):
    """A claim that was no Claim gave "AttributeError: 'object' object has no attribute 'key'"; a NaN in perceive's
    output "$.x is not a finite number" (no module, no phase); inline="yes" ran as not inline without a word;
    before="odd" said "before must be a list of module names" without the value."""
    from agi_core.modules import Candidate, Proposals

    class Odd:
        name = "odd"

        def perceive(self, ctx):
            return {"x": [1.0, float("nan")]}

        def deliberate(self, ctx):
            return Proposals(candidates=[Candidate("hi", 0.9, claims=[object()])])

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Odd())
            register(type("Yes", (), {"name": "yes", "inline": "yes", "perceive": lambda self, ctx: 1})())
            register(type("Before", (), {"name": "before", "before": "odd", "perceive": lambda self, ctx: 1})())
            register(type("After", (), {"name": "after", "after": 3, "perceive": lambda self, ctx: 1})())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council", "odd"]
        assert [failure.cause for failure in kernel.plugins.failures] == [
            "RegistrationError: module 'yes': inline is 'yes', not True or False; set inline = True to run in the "
            "tick's thread (no timeout), or leave it out",
            "RegistrationError: module 'before': before is 'odd', not a list of module names; write before = ('odd',)",
            "RegistrationError: module 'after': after is 3, not a list of module names; write after = "
            '("other_module",)',
        ]
        record = kernel.tick("what is the weather")
        assert [(c["phase"], c.get("skipped")) for c in record.modules["calls"]] == [
            (
                "perceive",
                "ValidationError: module 'odd': perceive returned NaN or infinity at $.x[1]; return finite numbers "
                "(or None)",
            ),
            (
                "deliberate",
                "ValidationError: module 'odd': deliberate returned a value of type object at "
                "$.candidates[0].claims[0], not a Claim; build it with Claim(key, value, text, evidence) from "
                "agi_core.modules",
            ),
        ]
        assert kernel.replay().ok


@pytest.mark.parametrize(
    ("value", "refused"),
    [
        ({"n": 2**70, "t": (1, None)}, None),  # orjson refuses a big int: json takes it, as before
        ({"x": None, "y": [None, 1.5]}, None),  # nulls that are None
        ({1: "a"}, None),  # a key json writes as text
        ({"x": [1, math.nan]}, "perceive returned NaN or infinity at $.x[1]"),
        ({"x": (math.inf,)}, "perceive returned NaN or infinity at $.x[0]"),
        ({"s": {1}}, "perceive returned a value of type set at $.s"),
    ],
)
def test_a_phase_output_is_checked_as_dumps_checks_it(value, refused):
    from types import SimpleNamespace

    from agi_core.modules.runner import ModuleTick
    from agi_core.serialization import dumps

    module = SimpleNamespace(name="odd")
    if refused is None:
        assert ModuleTick._checked(None, module, "perceive", value) == (value, value)  # type: ignore[arg-type]
        dumps(value)
        return
    with pytest.raises(ValidationError) as raised:
        ModuleTick._checked(None, module, "perceive", value)  # type: ignore[arg-type]
    assert str(raised.value).startswith(f"module 'odd': {refused}")
