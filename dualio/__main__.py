import sys

from dualio.cli import main

sys.exit(main())
