# The section markers in a real snippet, with their line numbers.
from pathlib import Path

from docpipe.sections import MARKER

source = Path(__file__).parents[1] / "examples" / "fit_line.py"
for number, line in enumerate(source.read_text().splitlines(), start=1):
    if MARKER.match(line):
        print(f"snippets/examples/fit_line.py:{number}: {line}")
