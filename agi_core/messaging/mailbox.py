"""The kernel's message box: the sensor that turns deliveries into ticks, acks after commit, the publisher.

Receiving: :meth:`Mailbox.poll` (the ``message_box`` sensor) takes the next delivery; one whose
id the inbox holds already (its tick committed, its ack was lost) is acknowledged and skipped (the
inbox is asked once for the ids in hand; one received in between is refused by the tick's insert).
Otherwise it becomes the tick's input (``source`` ``message:<sender>``; a reply's metadata names the
message it answers, :func:`replied`); the tick writes the id to the inbox
(:func:`agi_core.messaging.inbox.receive`) and :meth:`after_commit` acknowledges it.

Group commit: the transport hands over a batch (up to 16 on NATS). On a store that can
(:class:`agi_core.memory.backend.GroupCommit`) each tick of the batch but the last commits
without waiting for the disk; the last one's durable commit (or :meth:`GroupCommit.sync`)
makes them all durable, and only then are the batch's deliveries acknowledged and its replies
published. A crash of the process keeps lazy commits (a redelivery finds their ids); a power
loss can lose the batch's ticks, but then none of them was acknowledged or answered: the
messages come again. On a store that holds a batch in one transaction
(:class:`agi_core.memory.backend.HeldBatch`: SQLite), for a caller that ticks back to back
(``Kernel.held_batches``: ``agi run``, the follow loop), the ticks but the last leave it open and
the last commits it; a lost one (a kill, a tick that raised in it) undoes them, and the
deliveries they took are ticked again (:meth:`_take_back_lost`). A tick that recorded a
write/external intent is made durable before its tool runs. ``Kernel.group_commit`` makes every
tick inside it lazy the same way (a host's list of inputs; one transaction too, each tick undone
alone if it raises), with its durable point (:meth:`settle`) where the block ends. When the next
batch is already in hand (:meth:`Transport.ready`) and the store can sync on another thread
(:class:`~agi_core.memory.backend.BackgroundSync`), the last tick is lazy too and the batch's
durable point runs beside the next batch's ticks (:meth:`_overlap`); it is acknowledged and
answered once that sync has returned.

Sending: a tick writes outbox rows (:mod:`agi_core.messaging.outbox`); :meth:`flush` publishes
the durable, unpublished ones with their id as the duplicate key (all in one hand-over, left in
flight) and marks those confirmed published in one lazy transaction. A crash between publish
and mark (or a lost mark) publishes again; the broker drops the duplicate by id and the
recipient's inbox would refuse it too.
"""

from __future__ import annotations

import collections
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import orjson

from agi_core.errors import ToolError, ValidationError
from agi_core.faults import fault_point
from agi_core.inputs import normalize
from agi_core.memory.backend import BackgroundSync, GroupCommit, HeldBatch
from agi_core.messaging.address import check_name, ensure_named
from agi_core.messaging.envelope import Message, from_data
from agi_core.messaging.inbox import ASKED, REPLY_TO, SOURCE_PREFIX
from agi_core.messaging.transport import Delivery, Published, Transport, holder_of, open_transport
from agi_core.model import Input, JournalRecord

CHANNEL = "message"  # the input channel of a message from another agent
KNOWN_SHOWN = 10  # agents named in an unknown-recipient error
ASKED_CHARS = 500  # the most of the question a reply's input repeats


def public_url(url: str) -> str:
    """``url`` without user and password (for messages)."""
    scheme, sep, rest = url.partition("://")
    host, at, path = rest.partition("/")
    return f"{scheme}{sep}{host.rpartition('@')[2]}{'/' if at else ''}{path}".partition("?")[0]


class Mailbox:
    """``kernel``'s subscription on ``transport`` and its outbox publisher."""

    name = "message_box"

    def __init__(self, kernel: Any, transport: Transport, url: str = "") -> None:
        self.kernel = kernel
        self.transport = transport
        self.where = public_url(url) or "this transport"
        self.current: Delivery | None = None  # the delivery the tick under way is for
        self._ready: collections.deque[Delivery] = collections.deque()
        self._checked: set[str] = set()  # the ids of the deliveries in hand when the inbox was last asked …
        self._held: set[str] = set()  # … and those of them it held (received before)
        self._pending: list[Delivery] = []  # taken (their ticks committed, or duplicates), not yet acknowledged
        self._lazy = False  # the tick under way commits lazily (more of the batch is in hand)
        self._unsynced = False  # a lazy commit (or a duplicate's earlier tick) may not be on disk yet
        self._in_flight: list[tuple[list[str], Future[Published]]] = []  # published, confirmations awaited
        self._rejections_told = 0
        self.publish_failure: str | None = None
        self._known: set[str] = set()  # recipients the transport has confirmed
        self._group_commit = isinstance(kernel.store, GroupCommit)  # (a runtime Protocol check is slow: once)
        # a batch's sync on another thread while the next batch is ticked: (its future, its deliveries, last tick)
        self._overlaps = self._group_commit and isinstance(kernel.store, BackgroundSync)
        # a batch's ticks in one transaction, and how many such transactions the store had lost when last asked
        self._holds = self._group_commit and isinstance(kernel.store, HeldBatch)
        self._lost_seen = kernel.store.lost if self._holds else 0
        self._syncing: tuple[Future[None], list[Delivery], int] | None = None
        self._syncer: ThreadPoolExecutor | None = None

    @classmethod
    def open(cls, kernel: Any, url: str) -> Mailbox:
        return cls(kernel, open_transport(url, ensure_named(kernel), kernel.plugins, holder_of(kernel.store)), url)

    @property
    def holding(self) -> bool:
        """True while the last ticks (of a fetched batch) sit in a transaction not yet committed."""
        return self._holds and self.kernel.store.holding

    def check_recipient(self, name: str) -> None:
        """Refuse (:class:`ToolError`, one line) a name that is no agent on the transport; a broker
        that cannot answer now lets the message wait in the outbox."""
        try:
            check_name(name)
        except ValidationError as exc:
            raise ToolError(str(exc)) from None
        if name in self._known:
            return
        known = self.transport.agents()
        if known is None or name in known:
            self._known.update(known or ())  # an agent, once seen, stays one (its subscription is durable)
            return
        listed = ", ".join(known[:KNOWN_SHOWN]) + (" …" if len(known) > KNOWN_SHOWN else "") if known else "none"
        raise ToolError(
            f"no agent named {name!r} on {self.where} (agents there: {listed}); check the name, or run that "
            "agent once with the same AGI_MESSAGING_URL so it joins; nothing was sent"
        )

    def poll(self, kernel: Any) -> Input | None:
        """The sensor: the next new message as an input, or None."""
        self._take_back_lost()
        while True:
            if not self._ready:
                if not self._overlap():  # the next batch is not in hand:
                    self._settle()  # the batch taken so far: durable, acknowledged, its replies published
                self._ready.extend(self.transport.fetch(0))
                self._checked = set()  # a new batch: its ids are asked for afresh (a redelivery of one ticked since)
                self._tell_rejections()
                if not self._ready:
                    self._settle()
                    return None
            delivery = self._ready.popleft()
            if delivery.message.key not in self._checked:  # the batch's ids: one query, not one a tick
                ids = [delivery.message.key, *(waiting.message.key for waiting in self._ready)]
                self._checked, self._held = set(ids), kernel.store.inbox_known(ids)
            if delivery.message.key in self._held:  # received before: its ack was lost
                self._pending.append(delivery)  # acknowledged once that tick is surely on disk
                self._unsynced = True  # (a lazy commit of an earlier life of this agent, perhaps)
                continue
            self.current = delivery
            # more of the batch follows, or the next batch is in hand (its durable point then covers this
            # tick), or the kernel groups its ticks: this tick need not wait for the disk
            self._lazy = self._group_commit and (
                bool(self._ready) or kernel.grouped or (self._overlaps and self.transport.ready())
            )
            if self._lazy:
                kernel.store.lazy_commit()
            if self._holds and kernel.batches_held:  # the batch in one transaction, committed by its last tick
                kernel.store.hold(bool(self._ready))
            message = delivery.message
            return Input(
                raw=message.text,
                normalized=normalize(message.text),
                source=SOURCE_PREFIX + message.sender,
                speaker=message.sender,  # the other agent is the speaker (the social module's interlocutor)
                channel=CHANNEL,
                conversation=message.conversation,
                metadata=replied(kernel.store, message),
            )

    def after_commit(self, record: JournalRecord | None) -> None:
        """Acknowledge the delivery the committed ``record`` received (None: a duplicate), then publish; after
        a lazy commit with more of the batch in hand both wait for the batch's durable point."""
        delivery, self.current = self.current, None
        lazy = self._lazy or (self.kernel.grouped and self._group_commit)
        self._lazy = False
        fault_point("message.committed")  # a kill here: the tick ended (committed or held), not acknowledged
        if delivery is not None and (record is None or record.input.source.startswith(SOURCE_PREFIX)):
            self._pending.append(delivery)
            self._held.add(delivery.message.key)  # the inbox holds it now: a second copy in this batch is skipped
        # a durable commit makes every earlier one durable; None: another process's tick, maybe a lazy one
        self._unsynced = record is None or lazy
        if lazy and not _records_intent(record):
            return  # the batch (or the kernel's group) goes on; a tick that recorded an intent is made durable
        self._settle()  # before its tool runs

    def settle(self, *, synced: bool = False) -> None:
        """The durable point of a batch or of the kernel's group (``synced``: the caller just synced)."""
        if synced:
            self._unsynced = False
        self._settle()

    def _settle(self) -> None:
        """Make the ticks taken so far durable (a sync when the last commit was lazy), acknowledge their
        deliveries, publish the outbox."""
        self._commit_held()
        pending = self._synced()
        if self._unsynced and self._group_commit:
            self.kernel.store.sync()
        self._unsynced = False
        pending += self._pending
        self._pending = []
        if pending:
            self.transport.ack_all(pending)
        self.flush()

    def _overlap(self) -> bool:
        """At the end of a lazily committed batch with the next one in hand: start its durable point (a sync of
        the log on another thread) and go on to the next batch at once. The batch before, whose sync has
        returned by now, is acknowledged and its replies published (rows of ticks up to its last only).
        False (nothing done) when the next batch is not in hand or nothing waits for the disk."""
        if not (self._overlaps and self._unsynced and self.transport.ready()):
            return False
        self._commit_held()  # (what the sync covers: commits that returned before it)
        through = self._syncing[2] if self._syncing is not None else None
        synced = self._synced()
        if synced:
            self.transport.ack_all(synced)
        if through is not None:
            self.flush(through_tick=through)
        if self._syncer is None:
            self._syncer = ThreadPoolExecutor(1, thread_name_prefix="agi-sync")
        pending, self._pending = self._pending, []
        self._syncing = (self._syncer.submit(self.kernel.store.sync_log), pending, self.kernel.tick_count)
        return True

    def _commit_held(self) -> None:
        """Commit the batch's held transaction (:class:`~agi_core.memory.backend.HeldBatch`), then take back
        the deliveries of ticks a lost one undid."""
        if self._holds:
            self.kernel.store.commit_held()
            self._take_back_lost()

    def _take_back_lost(self) -> None:
        """After the store lost a held transaction (a tick in it raised, or its commit failed): the deliveries
        taken whose ticks it held (the inbox lacks their ids) are ticked again, first and in order."""
        if not self._holds or self.kernel.store.lost == self._lost_seen:
            return
        self._lost_seen = self.kernel.store.lost
        known = self.kernel.store.inbox_known([delivery.message.key for delivery in self._pending])
        undone = [delivery for delivery in self._pending if delivery.message.key not in known]
        self._pending = [delivery for delivery in self._pending if delivery.message.key in known]
        self._held.difference_update(delivery.message.key for delivery in undone)
        self._ready.extendleft(reversed(undone))

    def _synced(self) -> list[Delivery]:
        """The deliveries of the batch being synced on another thread, once its sync has returned (waits);
        a failed sync raises, and they are not acknowledged (they come again; the inbox knows them)."""
        syncing, self._syncing = self._syncing, None
        if syncing is None:
            return []
        syncing[0].result()
        return syncing[1]

    def flush(self, *, leave_in_flight: bool = True, through_tick: int | None = None) -> int:
        """Publish the committed outbox rows not yet published, once durable, in order; the count confirmed.
        ``through_tick``: only the rows of ticks up to it (those a sync covered; later ones may not be durable).

        The rows go to the transport in one hand-over and stay in flight (``leave_in_flight``): a later
        flush marks those the broker has confirmed by then and publishes the new rows behind them on the
        same connection without waiting (:meth:`close` waits for all), so the ticks overlap the round trips.
        After a failure (the broker away) this flush publishes nothing more; a later one sends the rows again."""
        if self._unsynced and through_tick is None:
            return 0  # rows of a lazy commit: published after the batch's durable point
        sent: list[str] = []
        flying, failed = [], False
        for ids, confirmation in self._in_flight:
            if leave_in_flight and not confirmation.done():
                flying.append((ids, confirmation))
            elif not self._confirmed(ids, confirmation.result(), sent):
                failed = True  # its unconfirmed rows stay in the outbox, published again below or later
        self._in_flight = flying
        if failed:  # the broker is away: the next flush (a poll's, the next tick's) tries again
            return self._mark(sent)
        busy = set(sent).union(*(ids for ids, _ in flying))
        rows = [from_data(orjson.loads(text)) for text in self.kernel.store.outbox_unpublished(through_tick)]
        rows = [message for message in rows if message.id not in busy]
        if rows:
            confirmation = self.transport.publish_async(rows)
            ids = [message.id for message in rows]
            if leave_in_flight and not confirmation.done():
                self._in_flight.append((ids, confirmation))
            else:
                self._confirmed(ids, confirmation.result(), sent)
        return self._mark(sent)

    def _confirmed(self, ids: list[str], published: Published, sent: list[str]) -> bool:
        """Add the ids the broker holds to ``sent``; tell a failure once. False when some were not published."""
        for message_id in ids[: published.count]:
            fault_point("message.published")  # a kill here: published, not marked; published again, dropped by id
            sent.append(message_id)
        if published.error is None:
            self.publish_failure = None
            return True
        if self.publish_failure != str(published.error):  # the broker is away: the rows stay, a later flush sends them
            self.publish_failure = str(published.error)
            print(
                f"agi: warning: {published.error}; the message stays in the outbox and is sent later", file=sys.stderr
            )
        return False

    def _mark(self, sent: list[str]) -> int:
        """Mark ``sent`` published, in a commit that does not wait for the disk (a lost mark publishes again)."""
        store = self.kernel.store
        if sent:
            if self._group_commit:
                store.lazy_commit()
            with store.tick_transaction():
                store.outbox_published(*sent)
        return len(sent)

    def _tell_rejections(self) -> None:
        for line in self.transport.rejected[self._rejections_told :]:
            print(f"agi: warning: {line}", file=sys.stderr)
        self._rejections_told = len(self.transport.rejected)

    def close(self) -> None:
        """Acknowledge what the ticks so far took (durable first), see the last publish confirmed, disconnect."""
        try:
            self._settle()
            self.flush(leave_in_flight=False)
        finally:
            if self._syncer is not None:
                self._syncer.shutdown()
            self.transport.close()


def replied(store: Any, message: Message) -> dict[str, Any]:
    """A reply's input metadata: ``reply_to`` (the id it answers) and ``asked``, the text of this agent's message
    of that id sent to the reply's sender (cut to :data:`ASKED_CHARS`), when the outbox holds one; ``{}`` for a
    message that answers none. A journal from before has neither: its reply ticks replay as they were."""
    if message.reply_to is None:
        return {}
    labels: dict[str, Any] = {REPLY_TO: message.reply_to}
    sent = store.outbox_message(message.reply_to)
    if sent is not None:
        asked = from_data(orjson.loads(sent))
        if asked.recipient == message.sender:  # (an id another agent's reply names is none of its asking)
            labels[ASKED] = asked.text if len(asked.text) <= ASKED_CHARS else asked.text[: ASKED_CHARS - 1] + "…"
    return labels


def _records_intent(record: JournalRecord | None) -> bool:
    """True when ``record``'s tick committed a write/external call that runs next (after a durable point)."""
    return record is not None and record.observation.payload.get("intent") == "pending"
