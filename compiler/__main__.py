"""`python -m dmlc ...` runs the `dmlc` command line."""
import sys

from .cli import main

sys.exit(main())
