"""Progress: a live bar on a terminal, one plain line per snippet in CI and in logs."""

from __future__ import annotations

import os
import sys
import time

from docpipe.run.pool import Outcome
from docpipe.statuses import RunStatus


class Progress:
    def __init__(self, total: int, label: str):
        self.live = sys.stderr.isatty() and not os.environ.get("CI")
        self.started: dict[str, float] = {}
        self.bar = None
        if self.live and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit="snippet", leave=False)

    def start(self, key: str) -> None:
        self.started[key] = time.monotonic()
        if self.bar:
            self.bar.set_postfix_str(f"snippets/{key}.py")

    def done(self, outcome: Outcome) -> None:
        ok = outcome.result.status == RunStatus.OK
        line = f"{'ok' if ok else 'FAILED':6} snippets/{outcome.key}.py ({outcome.seconds:.2f} s)"
        if self.bar:
            self.bar.update(1)
            if not ok:
                self.bar.write(line)
        else:
            print(line, flush=True)

    def close(self) -> None:
        if self.bar:
            self.bar.close()
