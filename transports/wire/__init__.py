"""The protocol-free core: what every call does and what every connection decides, once
for every protocol (through the wire interface, :mod:`.protocol`) and every transport."""
