"""NATS JetStream transport for agi-core messaging (registered as the ``nats`` URL scheme)."""
