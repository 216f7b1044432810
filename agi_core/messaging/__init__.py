"""Agents talking to each other: addresses, the transport protocol, the inbox and the outbox.

An agent's address is its name (:mod:`agi_core.messaging.address`). Messages travel on a
transport (:mod:`agi_core.messaging.transport`: publish, durable subscribe, ack), chosen by
URL among the transports plugins register (``memory://`` built in, ``nats://`` from
agi-plugin-nats). Each received message is one tick whose transaction records its id in the
inbox; each sent one is an outbox row of a tick, published after the commit. docs/messaging.md.
"""
