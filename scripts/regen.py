"""Re-run every snippet and rewrite its recorded output and figures; see --help."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docpipe.cli import main, terminate_on_sigterm  # noqa: E402

if __name__ == "__main__":
    terminate_on_sigterm()
    sys.exit(main())
