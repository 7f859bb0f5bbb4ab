"""The lab's hand-written peers of the dualio wire format, for ``echo`` only: an asyncio
client, a trio client and an asyncio server, the floors the SDK's transports and the
reference server are measured against. They live in the lab on purpose; they are not
part of the SDK."""
