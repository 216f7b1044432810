"""OpenTelemetry traces of ticks, off by default (docs/tracing.md).

While tracing is off, :func:`span` returns one shared object whose ``with`` does nothing and
:func:`carry` returns the function it is given: no ``opentelemetry`` import, no allocation.
:func:`start` (``agi --otel``, or the standard ``OTEL_*`` variables: :func:`wanted`) imports
the SDK and sends spans to an OTLP/HTTP collector from a background thread; a collector that
is down or refuses them costs log lines, never a tick. Spans only read what a tick does:
nothing here touches the journal, the determinism counter or the externals.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from agi_core.errors import ConfigError

F = TypeVar("F", bound=Callable[..., Any])
Value = str | bool | int | float | Sequence[str]

_tracer: Any = None  # the SDK tracer while tracing is on
_provider: Any = None  # its TracerProvider, shut down (spans flushed) by stop()
EXPORTERS = ("otlp", "console", "none")


class NoSpan:
    """What :func:`span` gives while tracing is off: a ``with`` that does nothing."""

    __slots__ = ()

    def __enter__(self) -> NoSpan:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        return None

    def set(self, key: str, value: Value | None) -> None:
        """Set an attribute of the span (nothing while tracing is off)."""

    def fail(self, error_type: str, message: str = "") -> None:
        """Mark the span failed: ``error.type`` and an error status (nothing while tracing is off)."""


NO_SPAN = NoSpan()


class Span(NoSpan):
    """One span of the SDK tracer, current inside its ``with``; never lets tracing stop the caller.

    Inside an :class:`Abandonable` call it is one of the call's open spans: abandoning the call
    ends it there and then, and its own ``with`` then leaves it as it was ended."""

    __slots__ = ("_entered", "_manager", "_scope", "_span")

    def __init__(self, tracer: Any, name: str, attributes: Mapping[str, Value] | None) -> None:
        self._manager = tracer.start_as_current_span(name, attributes=attributes, end_on_exit=False)
        self._span: Any = None
        self._entered = False
        self._scope: Abandonable | None = None

    def __enter__(self) -> Span:
        scope = _scope.get()
        if scope is not None and scope.abandoned:
            return self  # what an abandoned call does later is not traced: its trace has ended
        try:
            self._span = self._manager.__enter__()
            self._entered = True
        except Exception as exc:  # noqa: BLE001 - a tracing fault never reaches the tick
            _report(exc)
        if scope is not None and self._entered:
            self._scope = scope if scope.add(self) else None
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        if self._entered:
            ours = self._scope is None or self._scope.release(self)  # False: ended when its call was abandoned
            try:
                if value is not None and ours:
                    self._span.set_attribute("error.type", type(value).__name__)
                self._manager.__exit__(kind, value, traceback)  # records the exception; re-raises it
            except Exception as exc:  # noqa: BLE001 - the body's own exception is re-raised by Python
                if exc is not value:
                    _report(exc)
            if ours:
                self._end()

    def _end(self) -> None:
        try:
            self._span.end()
        except Exception as exc:  # noqa: BLE001 - a tracing fault never reaches the tick
            _report(exc)

    def abandon(self, error_type: str, message: str) -> None:
        """Its call was abandoned: ``error.type``, an error status, ended now."""
        self.fail(error_type, message)
        self._end()

    def set(self, key: str, value: Value | None) -> None:
        if self._span is not None and value is not None:
            self._span.set_attribute(key, value)

    def fail(self, error_type: str, message: str = "") -> None:
        if self._span is not None:
            from opentelemetry.trace import Status, StatusCode

            self._span.set_attribute("error.type", error_type)
            self._span.set_status(Status(StatusCode.ERROR, message or None))


_scope: contextvars.ContextVar[Abandonable | None] = contextvars.ContextVar("agi_tracing_call", default=None)


class Abandonable:
    """The spans of one call that its caller may abandon (a plugin call past its timeout, on a
    worker thread it leaves behind): :meth:`abandon`, in the caller's thread, ends the spans the
    call has open with ``error.type`` and an error status, inside the trace that is still going
    on; the spans the call would open afterwards are not made (their trace has ended)."""

    __slots__ = ("_lock", "_open", "abandoned")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: list[Span | Abandonable] = []  # innermost last: a call it made is an Abandonable
        self.abandoned = False

    def run(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` as the call: the spans it opens are this call's."""
        outer = _scope.get()
        if outer is not None and not outer.add(self):
            self.abandoned = True  # the call making this one was abandoned already
        token = _scope.set(self)
        try:
            return function(*args)
        finally:
            _scope.reset(token)
            if outer is not None:
                outer.release(self)

    def add(self, item: Span | Abandonable) -> bool:
        with self._lock:
            if self.abandoned:
                return False
            self._open.append(item)
            return True

    def release(self, item: Span | Abandonable) -> bool:
        """``item`` ended on its own: whether it was still open (not ended by :meth:`abandon`)."""
        with self._lock:
            if item in self._open:
                self._open.remove(item)
                return True
            return False

    def abandon(self, error_type: str, message: str = "") -> None:
        """The caller gave up on the call: end its open spans, innermost first, as failed."""
        with self._lock:
            self.abandoned = True
            items, self._open = self._open, []
        for item in reversed(items):
            item.abandon(error_type, message)


def abandonable() -> Abandonable | None:
    """A new :class:`Abandonable` for a call about to run; None while tracing is off."""
    return None if _tracer is None else Abandonable()


def span(name: str, attributes: Mapping[str, Value] | None = None) -> NoSpan:
    """A span named ``name``, the current one inside ``with`` (the parent of spans opened there)."""
    tracer = _tracer  # read once: stop() may run in another thread
    if tracer is None:
        return NO_SPAN
    return Span(tracer, name, attributes)


def phase(name: str) -> NoSpan:
    """The span of one phase of a tick (``perceive`` … ``store``), attribute ``agi.phase``."""
    tracer = _tracer
    if tracer is None:
        return NO_SPAN
    return Span(tracer, name, {"agi.phase": name})


def carry(function: F, call: Abandonable | None = None) -> F:
    """``function``, run in the caller's tracing context wherever it runs (a worker thread), as
    ``call`` if given (its spans end when the call is abandoned); ``function`` itself while tracing is off."""
    if _tracer is None:
        return function
    context = contextvars.copy_context()
    if call is not None:

        def as_call(*args: Any) -> Any:
            return context.run(call.run, function, *args)

        return as_call  # type: ignore[return-value]

    def carried(*args: Any, **kwargs: Any) -> Any:
        return context.run(function, *args, **kwargs)

    return carried  # type: ignore[return-value]


def enabled() -> bool:
    return _tracer is not None


def wanted(flag: bool, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether to trace: ``--otel``, ``OTEL_TRACES_EXPORTER`` (not ``none``) or an OTLP endpoint set,
    unless ``OTEL_SDK_DISABLED=true``."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none":
        return False
    endpoint = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    return flag or bool(exporter) or bool(endpoint)


def start(exporter: Any = None, *, batch: bool = True, environ: Mapping[str, str] = os.environ) -> None:
    """Turn tracing on, replacing what was on. ``exporter``: a SpanExporter (default: the one
    ``OTEL_TRACES_EXPORTER`` names, OTLP/HTTP); ``batch=False`` exports each span as it ends (tests)."""
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    except ImportError as exc:
        raise ConfigError(f"tracing needs OpenTelemetry ({exc}); pip install 'agi-core[otel]'") from None
    global _tracer, _provider, _sending
    if exporter is None:
        exporter = _configured_exporter(environ)
    stop()
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "agi"}))  # OTEL_SERVICE_NAME names it otherwise
    provider = TracerProvider(resource=resource)
    sending = _Sending(exporter, environ)
    exporting: Any = sending  # a SpanExporter by its methods: the SDK is imported only here
    provider.add_span_processor(BatchSpanProcessor(exporting) if batch else SimpleSpanProcessor(exporting))
    _quiet_sdk_logs()
    _provider, _tracer, _sending = provider, provider.get_tracer("agi_core"), sending


def stop() -> None:
    """Turn tracing off; the spans still queued are exported first, one attempt per batch, all
    of them within one ``OTEL_EXPORTER_OTLP_TIMEOUT``: past it they are given up (one line says so)."""
    global _tracer, _provider, _sending
    provider, sending, _provider, _tracer, _sending = _provider, _sending, None, None, None
    if provider is None or sending is None:
        return
    sending.last_attempts()

    def shut_down() -> None:
        try:
            provider.shutdown()
        except Exception as exc:  # noqa: BLE001 - exiting must not fail because a collector did
            _report(exc)

    # on a thread of its own: a collector that accepts and never answers, or a batch still in
    # flight when stop() came, must not hold the exit longer than one timeout
    flushing = threading.Thread(target=shut_down, name="agi-tracing-stop", daemon=True)
    flushing.start()
    flushing.join(sending.timeout_s)
    if flushing.is_alive():
        sending.give_up()


class _Sending:
    """The exporter as ``agi`` drives it: a batch it could not send is one line naming where it
    went and the fix (the SDK's own lines about it are kept back); :meth:`last_attempts` (at exit)
    turns its retries off, so a collector that refuses costs one attempt, not the whole deadline."""

    def __init__(self, exporter: Any, environ: Mapping[str, str]) -> None:
        self._exporter = exporter
        self.timeout_s = _timeout_s(environ)
        self._where = _destination(exporter, environ)
        asked = [name for name in _ASKING if environ.get(name)]
        self._fix = f"start it, or run untraced (no --otel{''.join(f', no {name}' for name in asked)})"
        self._given_up = False

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        held: list[Any] = []
        _held.lines = held
        try:
            result = self._exporter.export(spans)
        finally:
            _held.lines = None
        if result is not SpanExportResult.SUCCESS and not self._given_up:
            print(f"agi: tracing: {len(spans)} spans not sent: {self._why(held)}; {self._fix}", file=sys.stderr)
        return result

    def _why(self, held: list[Any]) -> str:
        """What went wrong, from the SDK's log records of the export (kept back from stderr)."""
        for record in held:
            args = record.args if isinstance(record.args, tuple) else ()
            if len(args) == 3 and isinstance(args[1], int):  # "Failed to export %s batch code: %s, reason: %s"
                return f"{self._where} answered HTTP {args[1]} {args[2]}"
        for record in held:
            text = " ".join(record.getMessage().split())
            if "timeout, max retries or shutdown" not in text:
                return f"{self._where}: {text[:200]}"
        if self._where.startswith("the collector"):
            return f"{self._where} refused the connection or did not answer within {self.timeout_s:g} s"
        return f"{self._where} failed"

    def last_attempts(self) -> None:
        # opentelemetry-exporter-otlp-common's HTTP client (0.66b2) retries a refused connection with
        # backoff until its deadline, and waits on this event between tries: set, it tries once.
        event = getattr(getattr(self._exporter, "_client", None), "_shutdown_event", None)
        if isinstance(event, threading.Event):
            event.set()

    def give_up(self) -> None:
        self._given_up = True
        print(
            f"agi: tracing: spans not sent: {self._where} did not answer within {self.timeout_s:g} s"
            f" (OTEL_EXPORTER_OTLP_TIMEOUT); {self._fix}",
            file=sys.stderr,
        )

    def shutdown(self) -> None:
        self._exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self._exporter.force_flush(timeout_millis))


_sending: _Sending | None = None  # the exporter of the tracing that is on
_held = threading.local()  # .lines: the SDK's log lines of the export running on this thread
_ASKING = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_TRACES_EXPORTER")


def _timeout_s(environ: Mapping[str, str]) -> float:
    """The OTLP exporter's timeout, as it reads it: seconds, 10 unless set."""
    raw = environ.get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") or environ.get("OTEL_EXPORTER_OTLP_TIMEOUT") or "10"
    try:
        value = float(raw)
    except ValueError:
        return 10.0
    return value if value > 0 else 10.0


def _destination(exporter: Any, environ: Mapping[str, str]) -> str:
    """Where the spans go, as the failure line names it: the collector's URL for OTLP."""
    if type(exporter).__name__ != "OTLPSpanExporter":
        return f"the exporter {type(exporter).__name__}"
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not endpoint:
        base = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "http://localhost:4318"
        endpoint = f"{base.removesuffix('/')}/v1/traces"
    return f"the collector at {endpoint}"


def _configured_exporter(environ: Mapping[str, str]) -> Any:
    name = environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    if name not in EXPORTERS:
        raise ConfigError(f"OTEL_TRACES_EXPORTER={name!r} is not supported here; use otlp, console or none")
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(out=sys.stderr)
    protocol = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "")
    ).strip()
    if protocol not in ("", "http/protobuf"):
        raise ConfigError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r} is not supported; use http/protobuf (port 4318)")
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:
        raise ConfigError(f"tracing needs the OTLP/HTTP exporter ({exc}); pip install 'agi-core[otel]'") from None
    return OTLPSpanExporter()


def _one_line_handler() -> Any:
    """A handler printing the SDK's own log records (an export that failed, a full queue) as one
    ``agi: tracing:`` line each (``logging`` is imported only when tracing starts)."""
    import logging

    class OneLine(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            held = getattr(_held, "lines", None)
            if held is not None and record.name.startswith("opentelemetry.exporter"):
                held.append(record)  # said in the export's own line, with the collector and the fix
                return
            text = " ".join(record.getMessage().split())
            if record.exc_info and record.exc_info[1] is not None:
                text += f" ({type(record.exc_info[1]).__name__}: {' '.join(str(record.exc_info[1]).split())[:200]})"
            print(f"agi: tracing: {text}", file=sys.stderr)

    return OneLine(logging.WARNING)


_sdk_handler: Any = None  # the one handler _quiet_sdk_logs installs, made on first use


def _quiet_sdk_logs() -> None:
    global _sdk_handler
    import logging

    logger = logging.getLogger("opentelemetry")
    if _sdk_handler is None:
        _sdk_handler = _one_line_handler()
    if _sdk_handler not in logger.handlers:
        logger.addHandler(_sdk_handler)
        logger.propagate = False
        logging.getLogger("opentelemetry.exporter").setLevel(logging.ERROR)  # not each retry: the batch's fate


def _report(exc: BaseException) -> None:
    print(f"agi: tracing: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}", file=sys.stderr)
