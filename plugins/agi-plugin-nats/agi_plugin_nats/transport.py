"""The NATS JetStream transport: a stream per deployment, a durable pull consumer per agent, explicit acks.

nats-py is asyncio; this transport runs its own event loop on a daemon thread and offers the
synchronous :class:`agi_core.messaging.transport.Transport` protocol the kernel polls. The
sender is the subject's ``from.<sender>`` token, written by the sending agent's transport from
its own name; the payload has no sender field (restrict who may publish on which subject with
NATS account permissions for a hostile network).

A name is one mailbox: the agent claims its name in the deployment's key-value bucket ``AGI_<DEPLOYMENT>_NAMES``
(key: the name, value: the database's holder) before it subscribes, and renews the claim every third of the
bucket's TTL (``?lease=``, default 10 s). Another database's agent under that name is refused while the claim
lives; a SIGKILLed holder's claim lapses with the TTL (JetStream's ``max_age``: each renewal is a new write).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import math
import re
import threading
import time
import uuid
from collections.abc import Coroutine
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import nats
from nats.js import api
from nats.js.errors import BadRequestError, KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError

from agi_core.errors import AgiError, ConfigError, StorageError, TransportUnreachable
from agi_core.messaging.envelope import MAX_MESSAGE_BYTES, Message, MessageRejected, decode, encode
from agi_core.messaging.transport import Delivery, NameInUse, Published, check_sender

T = TypeVar("T")
ACK_WAIT_S = 30.0  # an unacknowledged delivery comes again after this long (and after a restart)
DUPLICATE_WINDOW_S = 600.0  # a message id published again within this window is dropped by JetStream
CONNECT_TIMEOUT_S = 5.0
DEFAULT_PORT = 4222  # nats-server's, for a URL without one
AGENTS_TIMEOUT_S = 1.0  # listing the deployment's agents (a recipient check) waits this long for the server
FETCH_BATCH = 16  # messages a fetch takes at once (?batch=N): the message box's batch, one durable point
FETCH_BATCH_MAX = 256
FETCH_MIN_S = 0.1  # a poll waits this long for the server; a lingering pull gathers until then: keep it short
HELD_MAX_S = 900.0  # a delivery is kept in progress at most this long (a lost one then comes again, not never)
LEASE_S = 10.0  # a name's claim lapses this long after its holder's last renewal (a SIGKILLed agent's)
LEASE_MIN_S, LEASE_MAX_S = 1.0, 3600.0
_DEPLOYMENT = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


ACK_WAIT_MIN_S = 0.1  # an ack wait shorter than this redelivers before a tick can end


def parse_url(url: str) -> tuple[str, str, float, int]:
    """``(server URL, deployment, ack wait, batch)`` from
    ``nats://HOST:PORT[/DEPLOYMENT][?ack_wait=SECONDS][&batch=N][&lease=SECONDS]``."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    try:
        ack_wait = float(query.get("ack_wait", [ACK_WAIT_S])[0])
    except ValueError:
        raise ConfigError(f"ack_wait in {url!r} is not a number of seconds; write ?ack_wait=30") from None
    if not math.isfinite(ack_wait) or ack_wait < ACK_WAIT_MIN_S:  # 0 or less: the in-progress loop never slept
        raise ConfigError(f"ack_wait in {url!r} must be at least {ACK_WAIT_MIN_S:g} s; write ?ack_wait=30")
    unknown = sorted(set(query) - {"ack_wait", "batch", "lease"})
    if unknown:  # a typo (?batc=32) was ignored: the default stood, unsaid
        raise ConfigError(f"unknown option {unknown[0]!r} in {url!r}; the options are ack_wait, batch and lease")
    parse_lease(url)
    batch = query.get("batch", [str(FETCH_BATCH)])[0]
    if not batch.isdigit() or not 1 <= int(batch) <= FETCH_BATCH_MAX:
        raise ConfigError(f"batch in {url!r} is not a whole number from 1 to {FETCH_BATCH_MAX}; write ?batch=16")
    deployment = parts.path.strip("/") or "agi"
    if parts.scheme != "nats" or not parts.hostname or not _DEPLOYMENT.match(deployment):
        raise ConfigError(
            f"{url!r} is not a NATS messaging URL; write nats://HOST:PORT/DEPLOYMENT "
            "(deployment: lower-case letters, digits, _)"
        )
    return f"nats://{parts.netloc}", deployment, ack_wait, int(batch)


def parse_lease(url: str) -> float:
    """The ``?lease=SECONDS`` of ``url`` (:data:`LEASE_S` without one): the TTL of a new names bucket."""
    text = parse_qs(urlsplit(url).query).get("lease", [str(LEASE_S)])[0]
    try:
        lease = float(text)
    except ValueError:
        lease = math.nan
    if not LEASE_MIN_S <= lease <= LEASE_MAX_S:  # (NaN too)
        raise ConfigError(
            f"lease in {url!r} must be {LEASE_MIN_S:g} to {LEASE_MAX_S:g} seconds; write ?lease={LEASE_S:g}"
        )
    return lease


def stream_config(deployment: str) -> api.StreamConfig:
    """The JetStream stream of a deployment (made by the first agent that connects, unless it exists)."""
    return api.StreamConfig(
        name=f"AGI_{deployment.upper()}",
        subjects=[f"agi.{deployment}.>"],
        storage=api.StorageType.FILE,
        duplicate_window=DUPLICATE_WINDOW_S,
        max_msg_size=MAX_MESSAGE_BYTES + 1024,
    )


def _failed(error: BaseException) -> asyncio.Future[Any]:
    """A future that already failed with ``error`` (a publish that could not be written)."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    future.set_exception(error)
    return future


def _unreachable(server: str, why: str) -> str:
    return (
        f"cannot reach the NATS server at {server} ({why}); start it (scripts/start_nats.sh) or fix AGI_MESSAGING_URL"
    )


async def _reachable(server: str) -> None:
    """Open and close a TCP connection to ``server`` (``nats://HOST:PORT``), or raise :class:`TransportUnreachable`."""
    parts = urlsplit(server)
    try:
        connecting = asyncio.open_connection(parts.hostname, parts.port or DEFAULT_PORT)
        _, writer = await asyncio.wait_for(connecting, CONNECT_TIMEOUT_S)
    except OSError as exc:  # (a timeout is an OSError too)
        raise TransportUnreachable(_unreachable(server, exc.strerror or exc.__class__.__name__)) from None
    writer.close()
    await writer.wait_closed()


async def _nak_all(msgs: list[Any]) -> None:
    await asyncio.gather(*(msg.nak() for msg in msgs), return_exceptions=True)


async def _quiet(error: Exception) -> None:
    """nats-py's error callback: the transport reports what matters (publish failures) itself."""


class NatsTransport:
    """``agent``'s connection: publishes as ``agent``, reads its durable consumer ``agent_<agent>``."""

    def __init__(self, url: str, *, agent: str, holder: str | None = None) -> None:
        self.agent = agent
        self.rejected: list[str] = []
        self.server, self.deployment, self.ack_wait, self.batch = parse_url(url)
        self.lease = parse_lease(url)  # the names bucket's TTL once connected (the bucket's own, if it exists)
        self.holder = (holder or f"transport-{uuid.uuid4().hex}").encode()  # none given: this connection alone
        self._revision = 0  # the claim's revision in the names bucket (0: not held)
        # this process's mark beside the claim (key NAME.<id>, renewed with it): a clean stop lets go of the
        # name only when no other process of the holder has its mark there (an `agi send` beside `agi run`)
        self._presence = f"{agent}.{uuid.uuid4().hex}"
        self._taken_by_other = False  # the claim lapsed and another database's agent took the name
        self.stream = f"AGI_{self.deployment.upper()}"
        self.prefix = f"agi.{self.deployment}"
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"agi-nats-{agent}", daemon=True)
        self._thread.start()
        self._nc: Any = None
        self._acking: concurrent.futures.Future[None] | None = None  # acks sent, confirmations awaited
        self._prefetch: concurrent.futures.Future[list[Any]] | None = None  # the next batch, being fetched
        self._held: dict[int, tuple[float, Any]] = {}  # fetched, not yet acknowledged: (when, message) by id
        self._held_lock = threading.Lock()
        self._lost = asyncio.Event()  # set while the connection is down: a confirmation the old server owed never comes
        try:
            self._call(self._connect(), CONNECT_TIMEOUT_S * 3)
        except concurrent.futures.TimeoutError:  # the server took the connection but never answered
            self.close()
            raise TransportUnreachable(
                _unreachable(self.server, f"no answer in {CONNECT_TIMEOUT_S * 3 + 5:g} s")
            ) from None
        except BaseException:
            self.close()
            raise

    def _call(self, coro: Coroutine[Any, Any, T], timeout_s: float) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout_s + 5)

    async def _connect(self) -> None:
        await _reachable(self.server)  # nats-py retries a first connection for ever when reconnects are on
        try:
            self._nc = await nats.connect(
                self.server,
                connect_timeout=CONNECT_TIMEOUT_S,
                max_reconnect_attempts=-1,
                reconnect_time_wait=0.2,
                allow_reconnect=True,
                disconnected_cb=self._disconnected,
                reconnected_cb=self._reconnected,
                error_cb=_quiet,  # a lost broker shows as a failed publish or an empty fetch, not a traceback
            )
        except Exception as exc:  # noqa: BLE001 - nats-py raises OSError, asyncio and its own errors
            raise TransportUnreachable(_unreachable(self.server, exc.__class__.__name__)) from None
        self._js = self._nc.jetstream()
        try:
            await self._js.stream_info(self.stream)
        except NotFoundError:
            await self._js.add_stream(stream_config(self.deployment))
        await self._claim_name()
        consumer = api.ConsumerConfig(
            durable_name=f"agent_{self.agent}",
            ack_policy=api.AckPolicy.EXPLICIT,
            ack_wait=self.ack_wait,
            filter_subject=f"{self.prefix}.to.{self.agent}.from.*",
            deliver_policy=api.DeliverPolicy.ALL,
        )
        self._sub = await self._js.pull_subscribe(
            consumer.filter_subject, durable=consumer.durable_name, stream=self.stream, config=consumer
        )
        self._keeping = asyncio.get_running_loop().create_task(self._keep_in_progress())
        self._leasing = asyncio.get_running_loop().create_task(self._keep_name())

    def where(self) -> str:
        parts = urlsplit(self.server)
        return f"nats://{parts.hostname}:{parts.port or DEFAULT_PORT}/{self.deployment}"

    async def _claim_name(self) -> None:
        """Claim the agent's name for this holder before subscribing, or raise :class:`NameInUse` (one line)."""
        bucket = f"AGI_{self.deployment.upper()}_NAMES"
        try:
            self._names = await self._js.create_key_value(api.KeyValueConfig(bucket=bucket, ttl=self.lease, history=1))
        except BadRequestError:  # the bucket exists with another TTL (another agent's ?lease=): its TTL holds
            self._names = await self._js.key_value(bucket)
        info = await self._js.stream_info(f"KV_{bucket}")
        self.lease = info.config.max_age or self.lease
        if await self._claim() is None:
            await self._names.put(self._presence, self.holder)
            return
        raise NameInUse(
            f"agent name {self.agent!r} is in use on {self.where()} by an agent of another database; stop that "
            f"agent (a killed one's claim lapses within {self.lease:g} s) or run this one on another deployment "
            "(two databases with one name would take each other's messages)"
        )

    async def _claim(self) -> bytes | None:
        """Hold the name (create the claim, or renew our own); None when held, else the other holder."""
        for _ in range(5):  # each turn: the claim changed hands, lapsed or was renewed between two requests
            try:
                self._revision = await self._names.create(self.agent, self.holder)
                return None
            except KeyWrongLastSequenceError:
                pass
            try:
                entry = await self._names.get(self.agent)
            except KeyNotFoundError:
                continue  # it lapsed meanwhile
            if entry.value != self.holder:
                return entry.value or b""
            try:  # ours (another process of this agent, or ours before a lapse): renewed from its revision
                self._revision = await self._names.update(self.agent, self.holder, last=entry.revision)
                return None
            except KeyWrongLastSequenceError:
                continue
        return None  # contended by this holder's own processes only: held

    async def _keep_name(self) -> None:
        """Renew the claim every third of the lease, while this process lives (a kill stops it: the claim lapses).
        A claim that lapsed (the broker away longer than the lease) is taken again; if another database's agent
        took the name meanwhile, this one fetches nothing (one warning) until it is free again."""
        while True:
            await asyncio.sleep(self.lease / 3)
            with contextlib.suppress(Exception):  # the broker is away: renewed at the next turn
                try:
                    self._revision = await self._names.update(self.agent, self.holder, last=self._revision)
                    other = None
                except KeyWrongLastSequenceError:
                    other = await self._claim()
                if other is None:
                    await self._names.put(self._presence, self.holder)
                if other is not None and not self._taken_by_other:
                    self.rejected.append(
                        f"agent name {self.agent!r} was taken on {self.where()} by an agent of another database "
                        "while this one's claim had lapsed; this agent takes no messages until that one stops"
                    )
                self._taken_by_other = other is not None

    async def _let_go_of_name(self) -> None:
        """At a clean stop: take this process's mark away, and delete the claim when no other process of this
        holder has its mark beside it (a killed one's lapses with the lease) and the claim is still the holder's.
        Deleting it whenever this process renewed it last let an `agi send` of the agent free the name of its
        live `agi run --follow` until that one's next renewal, for another database to take."""
        await self._names.delete(self._presence)
        watcher = await self._names.watch(f"{self.agent}.*", ignore_deletes=True, meta_only=True)
        try:
            async for entry in watcher:
                if entry is None:
                    break
                if entry.key != self._presence:
                    return  # another process of this agent is there: the name stays held
        finally:
            await watcher.stop()
        entry = await self._names.get(self.agent)
        if entry.value == self.holder:
            await self._names.delete(self.agent, last=entry.revision)

    async def _disconnected(self) -> None:
        self._lost.set()

    async def _reconnected(self) -> None:
        self._lost.clear()

    async def _until_lost(self, waits: list[asyncio.Future[Any]]) -> None:
        """Wait for all of ``waits`` (at most :data:`CONNECT_TIMEOUT_S`), or until the connection drops: the answer
        to a publish or an ack the server had not answered when it went away never comes (a broker restart cost
        every wait its whole timeout, 5 s of stopped ticks). What is left unanswered counts as not done."""
        if not waits:
            return
        every = asyncio.ensure_future(asyncio.wait(waits, timeout=CONNECT_TIMEOUT_S))  # leaves ``waits`` as they are
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            await asyncio.wait([every, lost], return_when=asyncio.FIRST_COMPLETED)
        finally:
            every.cancel()
            lost.cancel()

    def subject(self, recipient: str) -> str:
        return f"{self.prefix}.to.{recipient}.from.{self.agent}"

    def publish(self, message: Message) -> None:
        check_sender(self, message)
        payload = encode(message)
        self._publish(self.subject(message.recipient), payload, message.key)

    def publish_async(self, messages: list[Message]) -> concurrent.futures.Future[Published]:
        """Publish ``messages`` on the transport's loop, all at once and in order on the one connection, then
        await JetStream's acks together (one hand-over between threads for the lot); the future's result
        counts the leading messages JetStream holds."""
        items, refused = [], None
        for message in messages:
            try:
                check_sender(self, message)
                items.append((self.subject(message.recipient), encode(message), message.key))
            except AgiError as exc:  # an oversized message: it and those after it stay in the outbox
                refused = exc
                break
        return asyncio.run_coroutine_threadsafe(self._publish_all(items, refused), self._loop)

    async def _publish_all(self, items: list[tuple[str, bytes, str]], refused: AgiError | None) -> Published:
        """Write every message to the connection (in order), then wait for all the stream's acks. A message
        after one that failed may be held too: it is not counted, so it is published again and dropped by id."""
        acks: list[asyncio.Future[Any]] = []
        for subject, payload, msg_id in items:
            try:
                acks.append(await self._js.publish_async(subject, payload, headers={"Nats-Msg-Id": msg_id}))
            except Exception as exc:  # noqa: BLE001 - broker down: the outbox rows stay, published later
                acks.append(_failed(exc))
                break
        await self._until_lost(acks)
        for count, ((subject, _, _), ack) in enumerate(zip(items, acks, strict=False)):
            if not ack.done():
                ack.cancel()  # no answer in time: counted as not held (published again, dropped by id)
            if ack.cancelled() or ack.exception() is not None:
                for rest in acks[count:]:
                    rest.cancel()
                error = (
                    "no answer: the connection dropped, or none in time"
                    if ack.cancelled()
                    else ack.exception().__class__.__name__
                )
                failure = f"publishing to {subject} on {self.server} failed ({error})"
                return Published(count, StorageError(failure))
        return Published(len(items), refused)

    def publish_raw(self, recipient: str, payload: bytes) -> None:
        """Publish any bytes to ``recipient`` as this agent (for hostile-input tests)."""
        self._publish(self.subject(recipient), payload, None)

    def _publish(self, subject: str, payload: bytes, msg_id: str | None) -> None:
        headers = {"Nats-Msg-Id": msg_id} if msg_id else None
        try:
            self._call(
                self._js.publish(subject, payload, timeout=CONNECT_TIMEOUT_S, headers=headers), CONNECT_TIMEOUT_S
            )
        except Exception as exc:  # noqa: BLE001 - broker down, timeout: the outbox row stays, published later
            raise StorageError(f"publishing to {subject} on {self.server} failed ({exc.__class__.__name__})") from None

    def fetch(self, timeout_s: float) -> list[Delivery]:
        """The next batch (up to ``?batch=``, default :data:`FETCH_BATCH`). After a batch that was not empty
        the one after it is fetched at once, while the kernel ticks this one (prefetched messages are not
        acknowledged: a process that dies with them gets them again after the ack wait, and :meth:`close`
        gives them back at once)."""
        wait = max(timeout_s, FETCH_MIN_S)
        if self._taken_by_other:  # another database's agent has the name: its messages are not ours to take
            self._give_back()
            time.sleep(timeout_s)
            return []
        pulling, self._prefetch = self._prefetch, None
        try:
            if pulling is None:
                pulling = asyncio.run_coroutine_threadsafe(self._fetch(wait), self._loop)
            msgs = pulling.result(wait + CONNECT_TIMEOUT_S + 5)
        except Exception:  # noqa: BLE001 - the broker is away: nothing this time; the consumer resumes
            return []
        if msgs:
            self._prefetch = asyncio.run_coroutine_threadsafe(self._fetch(FETCH_MIN_S), self._loop)
        deliveries = []
        for msg in msgs:
            sender = msg.subject.rsplit(".", 1)[-1]
            try:
                message = decode(msg.data, sender=sender, recipient=self.agent)
            except MessageRejected as exc:
                self.rejected.append(str(exc))
                self._let_go([msg])
                self._call(msg.term(), CONNECT_TIMEOUT_S)
                continue
            deliveries.append(Delivery(message, msg))
        return deliveries

    def ready(self) -> bool:
        """True when the prefetched batch has come with messages (the next :meth:`fetch` returns it at once)."""
        pulling = self._prefetch
        if pulling is None or not pulling.done() or pulling.cancelled() or pulling.exception() is not None:
            return False
        return bool(pulling.result())

    async def _fetch(self, timeout_s: float) -> list[Any]:
        try:
            msgs = list(await self._sub.fetch(batch=self.batch, timeout=timeout_s))
        except nats.errors.TimeoutError:
            return []
        now = time.monotonic()
        with self._held_lock:
            self._held.update((id(msg), (now, msg)) for msg in msgs)
        return msgs

    def _let_go(self, msgs: list[Any]) -> None:
        """``msgs`` are acknowledged, refused or given back: no longer kept in progress."""
        with self._held_lock:
            for msg in msgs:
                self._held.pop(id(msg), None)

    async def _keep_in_progress(self) -> None:
        """Tell the broker, every third of the ack wait, that the deliveries fetched and not yet acknowledged
        are being worked on: a batch (and the one prefetched behind it) whose ticks take longer than the ack
        wait, an LLM brain's, is not delivered again meanwhile. Only while this process lives: a kill
        stops it, and they come again after the ack wait."""
        while True:
            await asyncio.sleep(self.ack_wait / 3)
            now = time.monotonic()
            with self._held_lock:
                held = [msg for since, msg in self._held.values() if now - since < HELD_MAX_S]
            for msg in held:
                with contextlib.suppress(Exception):  # the broker is away: it redelivers after the ack wait
                    await msg.in_progress()

    def ack(self, delivery: Delivery) -> None:
        """Acknowledge and wait for the server's confirmation (so a kill after this never redelivers)."""
        self.ack_all([delivery])
        self._acked()

    def ack_all(self, deliveries: list[Delivery]) -> None:
        """Acknowledge all of ``deliveries`` at once, without waiting: the server's confirmations come while
        the kernel goes on (:meth:`close` waits for them). One not confirmed comes again after the ack wait,
        and the inbox finds its id (no second tick)."""
        self._acked()  # at most one batch of acks in flight
        tokens = [delivery.token for delivery in deliveries]
        self._let_go(tokens)
        self._acking = asyncio.run_coroutine_threadsafe(self._ack_all(tokens), self._loop)

    def _acked(self) -> None:
        """Wait for the acks in flight (their confirmations, or the time they may take)."""
        acking, self._acking = self._acking, None
        if acking is not None:
            with contextlib.suppress(Exception):  # unconfirmed: it comes again and the inbox finds its id
                acking.result(CONNECT_TIMEOUT_S + 5)

    async def _ack_all(self, msgs: list[Any]) -> None:
        """Acknowledge ``msgs`` in order on the one connection, the last with a confirmation: the server
        handles a connection's acks in order, so its confirmation covers those before it."""
        if not msgs:
            return
        with contextlib.suppress(Exception):  # unconfirmed: it comes again and the inbox finds its id
            for msg in msgs[:-1]:
                await msg.ack()
            confirming = asyncio.ensure_future(msgs[-1].ack_sync(timeout=CONNECT_TIMEOUT_S))
            await self._until_lost([confirming])
            if not confirming.done():
                confirming.cancel()
            elif not confirming.cancelled():
                confirming.exception()  # retrieved: a failed confirmation is not logged as unhandled

    def agents(self) -> list[str] | None:
        """The agents with a durable consumer on this deployment's stream; None when the server does not answer."""
        try:
            infos = self._call(asyncio.wait_for(self._js.consumers_info(self.stream), AGENTS_TIMEOUT_S), 0)
        except Exception:  # noqa: BLE001 - the broker is away: the caller cannot check a recipient now
            return None
        names = (info.config.durable_name or info.name for info in infos)
        return sorted(name.removeprefix("agent_") for name in names if name and name.startswith("agent_"))

    def _give_back(self) -> None:
        """Negatively acknowledge a prefetched batch, so it comes again at once (not after the ack wait)."""
        pulling, self._prefetch = self._prefetch, None
        if pulling is not None:
            with contextlib.suppress(Exception):  # not given back: it comes again after the ack wait
                msgs = pulling.result(FETCH_MIN_S + CONNECT_TIMEOUT_S)
                self._let_go(msgs)
                self._call(_nak_all(msgs), CONNECT_TIMEOUT_S)

    async def _shutdown(self) -> None:
        """Close the connection, then cancel what nats-py left running (so the loop closes clean)."""
        try:
            if self._revision and not self._taken_by_other:  # let go of the name: it is free at once, not in a lease
                with contextlib.suppress(Exception):  # (unless another process of this agent holds it too)
                    await asyncio.wait_for(self._let_go_of_name(), CONNECT_TIMEOUT_S)
            if self._nc is not None:
                await asyncio.wait_for(self._nc.close(), CONNECT_TIMEOUT_S)
        finally:
            left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in left:
                task.cancel()
            await asyncio.gather(*left, return_exceptions=True)

    def close(self) -> None:
        try:
            self._acked()
            self._give_back()
            self._call(self._shutdown(), CONNECT_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - closing a connection to a dead broker: nothing to keep
            pass
        self._nc = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._loop.is_running():
            self._loop.close()
