# A checked claim as a page and a snippet write it: the lines of the main
# page that end with the marker, the sentence the runner reads as backed by
# it, and the body of the section the marker names, with line numbers.
from docpipe.cli import default_project
from docpipe.pages.claims import find
from docpipe.sections import find_sections

project = default_project()  # the repository this runner belongs to
page = project.docs / "autograd-backward.md"
claim = next(c for c in find(project, page) if c.section == "claim-paths-add")
page_lines = page.read_text().splitlines()
print(project.rel(page))
for number in (claim.line - 1, claim.line):
    print(f"{number}: {page_lines[number - 1]}")
print(f"the sentence it backs: {claim.sentence}")

source = claim.snippet.source.read_text()
first, last = find_sections(source, claim.snippet.name)[claim.section]
print()
print(f"{claim.snippet.name}, section '{claim.section}'")
for number in range(first, last + 1):
    print(f"{number}: {source.splitlines()[number - 1]}")
