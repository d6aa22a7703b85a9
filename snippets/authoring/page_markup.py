# How the main page shows fit_line.py: every line of its Markdown that names
# the snippet (with the fences around each include), numbered, cut at 64.
from pathlib import Path

page = Path(__file__).parents[2] / "docs" / "autograd-backward.md"
lines = page.read_text().splitlines()
shown = set()
for index, line in enumerate(lines):
    if "examples/fit_line" in line and not line.startswith("```"):
        include = "--8<--" in line
        shown.update((index - 1, index, index + 1) if include else (index,))

print("docs/autograd-backward.md")
previous = None
for index in sorted(shown):
    if previous is not None and index != previous + 1:
        print("...")
    text = lines[index]
    text = text if len(text) <= 64 else text[:63] + "…"
    print(f"{index + 1}: {text}")  # a number first: never read as an include
    previous = index
