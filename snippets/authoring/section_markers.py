# The section markers in a real snippet, with their line numbers, read by the
# same function the runner and the site check use. (Printed in words: a page
# include would swallow a marker line printed as is.)
from pathlib import Path

from docpipe.sections import markers

source = Path(__file__).parents[1] / "examples" / "fit_line.py"
where = "snippets/examples/fit_line.py"
for number, kind, name in markers(source.read_text(), source.name):
    print(f"{where}:{number}: {kind} of section '{name}'")
