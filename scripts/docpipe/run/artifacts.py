"""What a successful run publishes: the exact bytes of every file derived from one snippet."""

from __future__ import annotations

from pathlib import Path

from docpipe.catalog import Settings
from docpipe.problems import RUN, DocpipeError
from docpipe.project import KEY_PART, THEMES, Snippet
from docpipe.recorded import fingerprints as sources
from docpipe.recorded.record import Record
from docpipe.run.normalise import control_character, normalise, normalise_noting
from docpipe.run.pool import Outcome


class OutputError(DocpipeError):
    """A run whose output cannot be published: a failed run of the snippet its path names."""

    kind = RUN


def build(
    snippet: Snippet,
    settings: Settings,
    outcome: Outcome,
    env: dict,
    preloads: list[str],
    unread: list[str] = (),
) -> dict[Path, bytes]:
    """The files a run publishes; `preloads` are what its record lists (Record.preloads).
    `unread`: data files it names as not opened beyond those the kernel saw it not open
    (Result.unread), among those the run may have read unseen (Result.reads)."""
    raw = outcome.output
    root = snippet.project.root
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise OutputError(
            f"printed bytes that are not UTF-8 (at byte {e.start}: {raw[e.start : e.start + 4]!r})",
            snippet.name,
        ) from None
    pieces, start = [], 0
    for section, end in outcome.result.sections:
        try:
            piece = raw[start:end].decode("utf-8") if end <= len(raw) else None
        except UnicodeDecodeError:
            piece = None
        if piece is None:
            raise OutputError(
                f"its run left a malformed result (section {section!r} ends at byte {end} of"
                f" {len(raw)}, not between two characters of its output)",
                snippet.name,
            )
        pieces.append((section, normalise(piece, root, settings.normalise)))
        start = end
    output, changed = normalise_noting(text, root, settings.normalise)
    if "".join(piece for _, piece in pieces) != output:  # a page shows the parts as the whole
        raise OutputError(
            "its sections' outputs, normalised one by one, are not its whole output normalised"
            " (a normaliser matched across a section's end)",
            snippet.name,
        )
    control = control_character(output)
    if control:
        raise OutputError(
            f"printed {control}, which a page cannot show as a terminal does (colours, cursor"
            " moves): print plain text (for a library's colours, NO_COLOR=1 or its own switch)",
            snippet.name,
        )
    # What the run read beyond open() (execute.Result.reads) is an input too: fingerprinted
    # here, so the record names it and `mkdocs serve` sees it change (docpipe.live).
    reads = getattr(outcome.result, "reads", [])
    read = {r: sources.file_digest(root / r) for r in reads if r not in outcome.result.inputs}
    # and the data files no process of the run opened, by name only (sources.UNREAD)
    unread = {*getattr(outcome.result, "unread", []), *(set(unread) & set(reads))}
    read.update({r: sources.UNREAD for r in unread if r not in outcome.result.inputs})
    inputs = sources.inputs(settings, {**outcome.result.inputs, **read})
    claims: dict[str, dict[str, int]] = {}
    for section, line, runs in sorted(getattr(outcome.result, "claims", [])):
        claims.setdefault(section, {})[str(line)] = runs
    record = Record(
        snippet.command, env, pieces, outcome.result.values, changed, inputs, preloads, claims
    )
    files = {snippet.output: output.encode(), snippet.record: record.to_bytes()}
    for name, svg in outcome.result.figures.items():
        theme = next((t for t in THEMES[1:] if name.endswith(f".{t}")), "")
        figure = name.removesuffix(f".{theme}") if theme else name
        if not KEY_PART.fullmatch(figure):
            raise OutputError(
                f"{snippet.project.rel(snippet.figure_code)} names a figure {figure!r} (in"
                " FIGURES); a figure's name holds only letters, digits, '_' and '-', as"
                f" {snippet.project.rel(snippet.figure('<figure>'))} must stay a file of this"
                " snippet",
                snippet.name,
            )
        files[snippet.figure(figure, theme or "light")] = svg.encode()
    return files
