# How a snippet shows an error it expects: the try statement of the section
# 'twice' of backward_twice.py, numbered, and the line that statement prints
# when the snippet runs.
import contextlib
import io
import runpy
from pathlib import Path

from docpipe.sections import find_sections

name = "snippets/beyond/backward_twice.py"
source = Path(__file__).parents[1] / "beyond" / "backward_twice.py"
text = source.read_text()
first, last = find_sections(text, name)["twice"]
lines = text.splitlines()
start = next(n for n in range(first, last + 1) if lines[n - 1] == "try:")
print(name)
for number in range(start, last + 1):
    print(f"{number}: {lines[number - 1]}")  # a number first: never an include

printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    runpy.run_path(str(source), run_name="__main__")
print(f"\nwhat python {name} prints there:")
for line in printed.getvalue().splitlines():
    if line.startswith("RuntimeError: "):
        print(line)
