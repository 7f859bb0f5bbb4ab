"""dualio's version, one place for the package, both faces and the command."""

VERSION = "0.1.0"
