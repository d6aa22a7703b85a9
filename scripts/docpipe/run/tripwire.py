"""Where the kernel has no Landlock: see whether a run changed the repository.

The runner then runs one snippet at a time and compares, before and after each, the stat of
every file and folder of the repository (what git tracks and what regen records, and the
rest) but the environment, the git object store, bytecode and the runner's cache: a write
changes a file's mtime and ctime (which no process can set back), a rename or a replacement
its inode, a removal takes it away. So any change is seen and named, with the snippet; it
cannot be undone, only reported, which is why Landlock is what keeps the repository safe.
"""

from __future__ import annotations

import os
import stat

from docpipe.project import Project

TOP_SKIPPED = {".venv", "node_modules", ".cache", "site", "test-artifacts", ".regen.lock"}
SKIPPED = {"__pycache__", os.path.join(".git", "objects")}


def stats(root: str) -> dict[str, tuple[int, ...]]:
    """The stat (mtime, ctime, size, inode, mode) of every path below root, by relative path."""
    found: dict[str, tuple[int, ...]] = {}
    inside = len(root) + 1
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            relative = entry.path[inside:]
            if entry.name == "__pycache__" or relative in SKIPPED or relative in TOP_SKIPPED:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found[relative] = (
                st.st_mtime_ns,
                st.st_ctime_ns,
                st.st_size,
                st.st_ino,
                st.st_mode,
            )
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
    return found


def changes(before: dict, after: dict) -> list[str]:
    """What differs, as "path (changed)", "path (removed)" or "path (created)", sorted."""
    said = [f"{p} (removed)" for p in before.keys() - after.keys()]
    said += [f"{p} (created)" for p in after.keys() - before.keys()]
    # A folder's stats change with its entries, which are named themselves.
    said += [
        f"{p} (changed)"
        for p in before.keys() & after.keys()
        if before[p] != after[p] and not (stat.S_ISDIR(before[p][4]) and stat.S_ISDIR(after[p][4]))
    ]
    return sorted(said)


def guarded(project: Project, on_start, on_done):
    """on_start and on_done for runs one at a time, which fail a run that changed the
    project's repository, naming the snippet and each change."""
    before: dict = {}
    root = str(project.root)

    def start(key: str) -> None:
        before.clear()
        before.update(stats(root))
        on_start(key)

    def done(outcome) -> None:
        changed = changes(before, stats(root))
        if changed:
            said = (
                "changed the repository, which a snippet may not (this kernel has no Landlock"
                f" to refuse it): {', '.join(changed)}"
            )
            outcome.result.fail(said, project.snippet(outcome.key).name)
        on_done(outcome)

    return start, done
