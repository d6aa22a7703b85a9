# How a snippet shows an error it expects: the try statement of the section
# 'twice' of backward_twice.py, numbered, and the line its recorded run
# printed for it.
from pathlib import Path

from docpipe.sections import find_sections

root = Path(__file__).parents[2]
name = "snippets/beyond/backward_twice.py"
text = (root / name).read_text()
first, last = find_sections(text, name)["twice"]
lines = text.splitlines()
start = next(n for n in range(first, last + 1) if lines[n - 1] == "try:")
print(name)
for number in range(start, last + 1):
    print(f"{number}: {lines[number - 1]}")  # a number first: never an include

recorded = "docs/generated/beyond/backward_twice.txt"
print(f"\nwhat it printed, from {recorded}:")
for line in (root / recorded).read_text().splitlines():
    if line.startswith("RuntimeError: "):
        print(line)
