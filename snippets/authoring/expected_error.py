# How a snippet shows an error it expects: the try statement of the section
# 'twice' of backward_twice.py, with its line numbers in that file.
from pathlib import Path

from docpipe.sections import find_sections

name = "beyond/backward_twice.py"
text = (Path(__file__).parents[1] / name).read_text()
first, last = find_sections(text, name)["twice"]
lines = text.splitlines()
start = next(n for n in range(first, last + 1) if lines[n - 1] == "try:")
for number in range(start, last + 1):
    print(f"snippets/{name}:{number}: {lines[number - 1]}")
