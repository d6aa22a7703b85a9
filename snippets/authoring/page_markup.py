# How the main page shows fit_line.py: every line of its Markdown that names
# the snippet (with the fences around each include), numbered, cut at 96 chars.
from pathlib import Path

page = Path(__file__).parents[2] / "docs" / "autograd-backward.md"
lines = page.read_text().splitlines()
shown = set()
for index, line in enumerate(lines):
    if "examples/fit_line" in line and not line.startswith("```"):
        around = (
            (index - 1, index, index + 1) if "--8<--" in line else (index,)
        )
        shown.update(around)

previous = None
for index in sorted(shown):
    if previous is not None and index != previous + 1:
        print()
    text = lines[index]
    text = text if len(text) <= 96 else text[:95] + "…"
    print(f"docs/autograd-backward.md:{index + 1}: {text}")
    previous = index
