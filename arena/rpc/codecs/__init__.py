"""Each game family's typed observation and action codec (protos/arena/v1/<family>.proto), declared by
the family (GameFamily.codec) and loaded by arena.rpc.observations: the protocol's adapters live with
the protocol, so no game imports it."""
