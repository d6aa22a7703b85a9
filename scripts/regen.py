"""Re-run every snippet and rewrite its recorded output and figures; see --help."""

import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docpipe.cli import main, terminate_on_sigterm  # noqa: E402

if __name__ == "__main__":
    terminate_on_sigterm()
    code = main()
    # Everything is written and said: the interpreter's exit need not search the heap the
    # checks built for garbage cycles (its collections took 0.5 s of a --check's exit here).
    # The atexit functions still run (the zygote is stopped), and the process's end frees the
    # rest.
    gc.freeze()
    sys.exit(code)
