# The section markers in a real snippet, with their line numbers. (Printed
# in words: a page include would swallow a marker line printed as is.)
from pathlib import Path

from docpipe.sections import MARKER

source = Path(__file__).parents[1] / "examples" / "fit_line.py"
for number, line in enumerate(source.read_text().splitlines(), start=1):
    if found := MARKER.match(line):
        kind, name = found.groups()
        where = f"snippets/examples/fit_line.py:{number}"
        print(f"{where}: {kind} of section '{name}'")
