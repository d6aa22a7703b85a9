# The exit codes of `python scripts/regen.py`, by the kind of problem it found:
# an author's mistake (pages, markers, settings) or a snippet's run.
from docpipe.problems import AUTHOR, EXIT, RUN

author = EXIT[AUTHOR]
run = EXIT[RUN]
print(f"an author's mistake: exit {author}")
print(f"a failed or drifted snippet: exit {run}")
