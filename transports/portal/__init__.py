"""The portal: the blocking face over the native asyncio transport, run on an event loop
of its own thread (``dualio_sync.Client(transport="portal")``)."""
