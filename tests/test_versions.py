"""Which torch: a difference only in the environment stamp is told apart from a difference in
content, the pin in pyproject.toml is compared with the running torch and the records, and a
verification against another version goes stale when its snippet changes.

In-process and fast: the runs are replayed from the committed records (what a run of the same
code under another torch would give when nothing but the stamp changes), and a second torch is
stood for by a patched environment stamp, never installed."""

from __future__ import annotations

import random
import re

import pytest

from docpipe import catalog, cli, environment, pipeline
from docpipe.formats import github, terminal
from docpipe.project import Project, Snippet
from docpipe.recorded import drift, versions
from docpipe.recorded.record import load
from docpipe.run.execute import Result
from docpipe.run.pool import Outcome

pytestmark = pytest.mark.unit


PROJECT = cli.default_project()
ROOT = PROJECT.root
LEAVES = PROJECT.snippet("by_hand/leaves")  # its warning names a line of TensorBody.h
OTHERS = [PROJECT.snippet("by_hand/square"), PROJECT.snippet("examples/fit_line")]
OTHER_TORCH = "2.14.1+cu130"


def replay(snippet: Snippet, change=lambda text: text) -> Outcome:
    """The outcome of a run that prints what the record holds (through `change`)."""
    record = load(snippet)
    output, sections = "", []
    for section, text in record.sections:
        if "repository-path" in record.normalised:  # as the run printed it, before normalising
            text = text.replace(f"{snippet.name}:", f"{ROOT}/{snippet.name}:")
        output += change(text)
        sections.append((section, len(output.encode())))
    figures = {}
    for path in snippet.record.parent.glob(f"{snippet.record.stem}.*.svg"):
        name = path.name.removeprefix(snippet.record.stem + ".").removesuffix(".svg")
        figures[name] = path.read_text(encoding="utf-8")
    inputs = {k: v for k, v in record.inputs.items() if k != "snippets/snippets.toml"}
    claims = [(c, int(line), n) for c, runs in record.claims.items() for line, n in runs.items()]
    result = Result(
        sections=sections, values=dict(record.values), figures=figures, inputs=inputs, claims=claims
    )
    return Outcome(snippet.key, result, output.encode(), 0.0)


@pytest.fixture
def other_torch(monkeypatch):
    """This process as if another torch ran: its stamp names OTHER_TORCH."""
    running = {**environment.stamp(), "torch": OTHER_TORCH}
    monkeypatch.setattr(environment, "stamp", lambda: running)
    return running


def check_with(monkeypatch, outcomes: dict[Snippet, Outcome]) -> pipeline.CheckResult:
    monkeypatch.setattr(
        pipeline, "run", lambda snippets, *a, **k: {s: outcomes[s] for s in snippets}
    )
    cat = catalog.load(PROJECT)
    return pipeline.check(sorted(outcomes), cat, pipeline.Options(fork=False), whole_site=False)


def test_the_replayed_runs_match_their_records(monkeypatch):
    """The premise of the tests below: a replay under this torch is no drift at all."""
    result = check_with(monkeypatch, {s: replay(s) for s in [LEAVES, *OTHERS]})
    assert (result.drifted, result.environment_only, result.problems) == ({}, {}, [])


def test_content_drift_under_another_torch_is_reported_apart_from_stamp_only_drift(
    monkeypatch, other_torch, capsys
):
    moved = lambda text: text.replace("TensorBody.h:493", "TensorBody.h:488")  # noqa: E731
    outcomes = {LEAVES: replay(LEAVES, moved), **{s: replay(s) for s in OTHERS}}
    result = check_with(monkeypatch, outcomes)
    assert set(result.drifted) == {LEAVES}
    assert set(result.environment_only) == set(OTHERS)
    report = terminal.report(result.drifted[LEAVES])
    # The content diff holds the changed warning and not the stamp; the stamp is said apart.
    assert "TensorBody.h:«493»" in report and "TensorBody.h:«488»" in report
    assert OTHER_TORCH in report.partition("shown on")[0]
    assert '"torch":' not in report  # the record's diff leaves the stamp out
    assert cli.check(result) == 2  # and the running torch is not the pinned one
    out, err = capsys.readouterr()
    assert err.index("DRIFT snippets/by_hand/leaves.py") < err.index("ENVIRONMENT 2 snippets")
    assert err.count("ENVIRONMENT") == 1 and err.count("DRIFT") == 1
    assert "1 drifted, 2 differ only in the environment stamp, 0 failed, 1 site problems" in out
    summary = github.summary_markdown(result)
    assert "1 drifted, 2 differ only in the environment stamp, 0 failed" in summary
    assert summary.index("`snippets/by_hand/leaves.py` drifted") < summary.index(
        "Only the environment stamp differs (2 snippets)"
    )
    assert summary.count("Only the environment stamp differs") == 1
    assert "«488»" in summary
    github.annotate(result)
    annotations = capsys.readouterr().out.splitlines()
    stamp_only = [a for a in annotations if "only in the environment stamp" in a]
    assert len(stamp_only) == 1 and stamp_only[0].startswith("::error file=pyproject.toml,")
    from docpipe.formats import html as html_report

    page = html_report.page(result)
    assert page.count("environment only</span>") == 2  # in the contents, and its one card
    assert page.index("by_hand/leaves.py") < page.index("environment only</span>")
    assert "TensorBody.h:<mark>488</mark>" in page


def test_without_a_content_change_another_torch_is_one_environment_report(monkeypatch, other_torch):
    result = check_with(monkeypatch, {s: replay(s) for s in [LEAVES, *OTHERS]})
    assert result.drifted == {}
    (report,) = terminal.environment_reports(result.verdicts)
    assert report.startswith("ENVIRONMENT 3 snippets differ from their recordings only in")
    assert f"running {OTHER_TORCH}" in report


def test_a_torch_other_than_the_pinned_one_fails_the_check_naming_the_files(
    monkeypatch, other_torch
):
    (problem,) = versions.problems(PROJECT, OTHERS)
    pinned = versions.pin(PROJECT)
    assert (problem.path, problem.line, problem.kind) == ("pyproject.toml", pinned.line, "author")
    message = str(problem)
    assert message.startswith(f"pyproject.toml:{pinned.line}: torch is pinned to {pinned.torch}")
    assert f"this run uses torch {OTHER_TORCH} (" in message and "version.py)" in message
    assert versions.running_problems(PROJECT) == [problem]  # regen refuses the same way


def test_records_of_another_torch_fail_the_check_naming_them(monkeypatch, tmp_path):
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(re.sub(r'"torch==[^"]+"', '"torch==9.0.0"', text), encoding="utf-8")
    pin = versions.pin
    monkeypatch.setattr(versions, "pin", lambda project: pin(Project(tmp_path)))
    pinned = versions.pin(PROJECT)
    assert pinned.version == "9.0.0"
    (message,) = versions.problems(PROJECT, OTHERS)
    message = str(message)
    assert f"torch is pinned to {pinned.torch}" in message
    assert "this run uses torch" in message  # the running one differs from the pin too
    assert "2 records were made with torch " in message
    assert all(str(s.record.relative_to(ROOT)) in message for s in OTHERS)
    result = check_with(monkeypatch, {s: replay(s) for s in OTHERS})
    assert [str(p) for p in result.problems] == [message] and cli.check(result) == 2


@pytest.mark.parametrize(
    "requirement, says",
    [("torch>=2.13", "must be pinned to one version"), ("torch==2.*", "one version")],
)
def test_a_pin_that_names_no_one_version_is_refused_by_line(
    monkeypatch, tmp_path, requirement, says
):
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(re.sub(r'"torch==[^"]+"', f'"{requirement}"', text), encoding="utf-8")
    (problem,) = versions.problems(Project(tmp_path), [])
    line = next(n for n, t in enumerate(text.splitlines(), 1) if '"torch==' in t)
    assert (problem.path, problem.line) == ("pyproject.toml", line)
    assert str(problem).startswith(f"pyproject.toml:{line}: ") and says in problem.message


def test_the_changed_span_is_where_two_lines_differ_and_nowhere_else():
    rng = random.Random(24)
    alphabet = "ab1 .:_"
    for _ in range(2000):
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        if a == b:
            continue
        (a0, a1), (b0, b1) = drift.changed_span(a, b)
        assert a[:a0] == b[:b0] and a[a1:] == b[b1:], (a, b)
        assert a[a0:a1] != b[b0:b1], (a, b)
        # the mark starts and ends between words, never inside one
        for line, start, end in ((a, a0, a1), (b, b0, b1)):
            assert start == 0 or not (drift._word(line[start - 1]) and drift._word(line[start]))
            assert end == len(line) or not (drift._word(line[end - 1]) and drift._word(line[end]))


def verified_as(monkeypatch, tmp_path, ran: dict[Snippet, dict]) -> dict:
    """A committed verification of torch 9.9.9, judged from these child results."""
    from docpipe import verify

    on_disk = PROJECT.generated_index()
    entries = {s.name: verify.judge(s, r, on_disk.get(s, set())) for s, r in ran.items()}
    verification = {"torch": "9.9.9", "environment": {"torch": "9.9.9+cpu"}, "snippets": entries}
    verified_in(monkeypatch, tmp_path)
    verify.result_path(PROJECT, "9.9.9").write_bytes(verify.to_bytes(verification))
    return verification


def verified_in(monkeypatch, folder) -> None:
    """Verifications of torch 9.9.9 only, kept in `folder`."""
    from docpipe import verify
    from docpipe.recorded import verified

    for module in (verify, verified):  # the writer, and the reader the pages use
        monkeypatch.setattr(module, "result_path", lambda project, v: folder / f"torch-{v}.json")
        monkeypatch.setattr(module, "versions", lambda project: ("9.9.9",))


def child_result(snippet: Snippet, change=lambda text: text) -> dict:
    """What the verifying child reports for a run that printed the record (through change)."""
    from docpipe.run import artifacts

    cat = catalog.load(PROJECT)
    recorded = load(snippet)
    files = artifacts.build(
        snippet,
        cat.settings[snippet],
        replay(snippet, change),
        recorded.environment,
        recorded.preloads,
    )
    return {
        "status": "ok",
        "files": {str(p.relative_to(ROOT)): d.decode() for p, d in files.items()},
    }


def test_a_verdict_no_verifier_writes_is_not_verified(monkeypatch, tmp_path):
    """A hand-edited entry (a verdict outside VerifiedStatus, or none) holds nothing: the
    snippet is not verified under that version, and its box says so, never "same output"."""
    from docpipe import verify
    from docpipe.pages import reproduced
    from docpipe.statuses import VerifiedStatus

    square, fit = OTHERS
    verification = verified_as(monkeypatch, tmp_path, {s: child_result(s) for s in OTHERS})
    cat = catalog.load(PROJECT)
    verification["snippets"][square.name]["verdict"] = "fine"
    del verification["snippets"][fit.name]["verdict"]
    verify.result_path(PROJECT, "9.9.9").write_bytes(verify.to_bytes(verification))
    found = [verify.status(s, "9.9.9", cat.settings[s]).verdict for s in OTHERS]
    assert found == [VerifiedStatus.STALE] * 2
    assert "9.9.9 (not verified since" in reproduced.box(PROJECT, set(OTHERS))


def test_a_verification_goes_stale_when_its_snippet_or_recording_changes(monkeypatch, tmp_path):
    from docpipe import verify

    square, fit = OTHERS
    verification = verified_as(monkeypatch, tmp_path, {s: child_result(s) for s in OTHERS})
    cat = catalog.load(PROJECT)
    assert [verify.status(s, "9.9.9", cat.settings[s]).verdict for s in OTHERS] == ["same"] * 2
    assert verify.unverified(OTHERS, cat) == {}
    # square.py as it was when verified is not the square.py of today; fit_line's recording
    # is not the one that was compared.
    verification["snippets"][square.name]["inputs"][square.name] = "0" * 64
    verification["snippets"][fit.name]["recorded"] = "0" * 64
    verify.result_path(PROJECT, "9.9.9").write_bytes(verify.to_bytes(verification))
    assert [verify.status(s, "9.9.9", cat.settings[s]).verdict for s in OTHERS] == [
        "not verified"
    ] * 2
    result = check_with(monkeypatch, {s: replay(s) for s in OTHERS})
    assert result.unverified == {"9.9.9": OTHERS}
    reports = verify.unverified_report(result.unverified, result.checked)
    assert [r.partition(": run make verify")[0] for r in reports] == [
        f"NOT VERIFIED {square.name}: changed since verified with torch 9.9.9",
        f"NOT VERIFIED {fit.name}: changed since verified with torch 9.9.9",
    ]
    # CI's `make verify-check` fails on them: so does the check, one line each, the fix named
    assert all(", then commit " in r and r.endswith("torch-9.9.9.json") for r in reports), reports
    assert cli.check(result) == 1
    assert cli.check(result, unverified_ok=True) == 0


def test_a_verification_records_the_exact_difference_and_the_claims_that_held(
    monkeypatch, tmp_path
):
    from docpipe import verify

    moved = lambda text: text.replace("TensorBody.h:493", "TensorBody.h:488")  # noqa: E731
    recorded = {p: p.read_bytes() for p in LEAVES.record.parent.glob("leaves.*")}
    verified_as(monkeypatch, tmp_path, {LEAVES: child_result(LEAVES, moved)})
    assert {p: p.read_bytes() for p in recorded} == recorded  # no recording changed
    status = verify.status(LEAVES, "9.9.9", catalog.load(PROJECT).settings[LEAVES])
    assert status.verdict == "differs"
    (txt,) = [d for d in status.differences if d["file"].endswith(".txt")]
    ((line, old, new),) = txt["lines"]
    assert "TensorBody.h:493" in old and "TensorBody.h:488" in new
    assert old.replace("493", "488") == new
    assert status.entry["claims"] and set(status.entry["claims"].values()) == {"held"}


def test_a_failed_run_under_another_version_holds_the_claims_before_the_failure():
    from docpipe import verify

    snippet = next(
        s for s in catalog.load(PROJECT).snippets if len(verify.cited_claims(s)) >= 2
    )  # a snippet backing two claims or more
    first, second, *rest = verify.cited_claims(snippet)
    ran = {"status": "error", "error": "AssertionError", "failed_section": second}
    entry = verify.judge(snippet, ran, PROJECT.generated_index().get(snippet, set()))
    assert entry["verdict"] == "failed"
    assert entry["claims"] == {first: "held", second: "failed", **{r: "not run" for r in rest}}


def test_each_tutorial_page_box_names_every_verified_version():
    from docpipe import verify
    from docpipe.pages import reading as pages
    from docpipe.pages import reproduced

    assert verify.versions(PROJECT), "pyproject.toml lists versions to verify"
    pinned = versions.pin(PROJECT)
    for page in pages.markdown_pages(PROJECT):
        used = {u.snippet for u in pages.uses(PROJECT, page) if u.snippet}
        if not used:
            continue
        said = reproduced.box(PROJECT, used)
        assert said.startswith(f"torch {pinned.version} (recorded), "), (page, said)
        for version in verify.versions(PROJECT):
            assert f", {version} (" in said, (page, said)


def test_readers_see_what_a_verified_version_prints_otherwise(monkeypatch, tmp_path):
    from docpipe.pages import claims, reproduced

    moved = lambda text: text.replace("TensorBody.h:493", "TensorBody.h:488")  # noqa: E731
    verified_as(
        monkeypatch,
        tmp_path,
        {LEAVES: child_result(LEAVES, moved), **{s: child_result(s) for s in OTHERS}},
    )
    recorded = versions.public(load(LEAVES).environment["torch"])
    assert (
        reproduced.box(PROJECT, set(OTHERS)) == f"torch {recorded} (recorded), 9.9.9 (same output)"
    )
    assert reproduced.box(PROJECT, {LEAVES, *OTHERS}) == (
        f"torch {recorded} (recorded), 9.9.9 (same output, except: {LEAVES.name} prints"
        " otherwise, as the note under its output says)"
    )
    note = reproduced.block_note(LEAVES)
    assert note.startswith("Under torch 9.9.9, line 3 reads <code>")
    assert "TensorBody.h:<strong>488</strong>" in note and "h:<strong>493</strong>" in note
    assert [reproduced.block_note(s) for s in OTHERS] == ["", ""]
    page = ROOT / "docs" / "backprop-by-hand.md"
    markdown = reproduced.with_notes(PROJECT, page.read_text(encoding="utf-8"), page)
    assert markdown.count('<small class="version-note">') == 1
    (claim,) = [c for c in claims.find(PROJECT, page) if c.snippet == LEAVES][:1]
    assert reproduced.claim_versions(LEAVES, claim.section) == ["9.9.9"]
    marker = f"{{{{ claim {LEAVES.key}.py:{claim.section} }}}}"
    rendered = claims.render(PROJECT, f"A sentence. {marker}", "docs/x.md")
    assert ", and in verified runs with torch 9.9.9" in rendered
    # A snippet changed since its verification is not verified, and its claims name no version.
    verification = verified_as(monkeypatch, tmp_path, {LEAVES: child_result(LEAVES)})
    verification["snippets"][LEAVES.name]["recorded"] = "0" * 64
    from docpipe import verify

    verify.result_path(PROJECT, "9.9.9").write_bytes(verify.to_bytes(verification))
    assert reproduced.box(PROJECT, {LEAVES}) == (
        f"torch {recorded} (recorded), 9.9.9 (not verified since {LEAVES.name} changed)"
    )
    assert reproduced.claim_versions(LEAVES, claim.section) == []
    assert reproduced.block_note(LEAVES) == ""


def test_no_page_and_no_readme_types_a_torch_version():
    """The pinned version is said by what reads the pin (the box, --check), never typed."""
    from docpipe.pages import reading as pages

    typed = re.compile(r"\btorch(?:\s*==\s*|\s+)v?\d+\.\d+")
    found = []
    for path in [
        ROOT / "README.md",
        ROOT / "docs" / "authoring.md",
        *pages.markdown_pages(PROJECT),
    ]:
        text = path.read_text(encoding="utf-8")
        for m in typed.finditer(text):
            found.append(
                f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m[0]}"
            )
    assert found == []


def test_ci_verifies_each_version_pyproject_lists():
    import yaml

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    matrix = workflow["jobs"]["verify"]["strategy"]["matrix"]["torch"]
    assert tuple(matrix) == versions.pin(PROJECT).verify
    assert "make verify-check" in (ROOT / ".ci" / "run").read_text()


def test_a_version_never_verified_is_said_so(monkeypatch, tmp_path):
    from docpipe import verify
    from docpipe.pages import reproduced

    verified_in(monkeypatch, tmp_path)
    recorded = versions.public(load(LEAVES).environment["torch"])
    assert (
        reproduced.box(PROJECT, {LEAVES})
        == f"torch {recorded} (recorded), 9.9.9 (not verified yet)"
    )
    found = verify.unverified(OTHERS, catalog.load(PROJECT))
    assert found == {"9.9.9": OTHERS}
    (report,) = verify.unverified_report(found, len(OTHERS))
    assert report.startswith("NOT VERIFIED with torch 9.9.9: every snippet (2 of 2): ")
    assert "torch-9.9.9.json was never written: run make verify (" in report
    assert verify.command_line(PROJECT, ["not-a-version"], False, 1) == 2


def test_the_box_names_the_claim_a_verified_version_fails_and_its_line():
    from docpipe import verify
    from docpipe.pages import reproduced
    from docpipe.statuses import VerifiedStatus

    failed = verify.Status(
        "9.9.9",
        VerifiedStatus.FAILED,
        {
            "claims": {"claim-a": "held", "claim-b": "failed", "claim-c": "not run"},
            "error": "snippets/x.py:7: AssertionError: ",
        },
    )
    assert reproduced._failing(failed, "snippets/x.py") == (
        "snippets/x.py fails its claim claim-b (snippets/x.py:7: AssertionError)"
    )
    same = verify.Status("9.9.9", VerifiedStatus.SAME, {})
    assert reproduced._failing(same, "snippets/x.py") == "snippets/x.py"
    assert reproduced._verdict(
        {VerifiedStatus.SAME: ["a"], VerifiedStatus.FAILED: ["b fails x"]}
    ) == ("same output, except: b fails x")


def test_a_snippet_new_since_the_verification_is_never_verified_and_fails_the_check(
    monkeypatch, tmp_path, capsys
):
    """Issue 39: a new snippet passed `make check` with a note while CI's verify-check failed
    on it. It is reported as what it is, with the command, and the check fails."""
    from docpipe import verify

    square, fit = OTHERS
    verified_as(monkeypatch, tmp_path, {square: child_result(square)})  # fit: not in it
    monkeypatch.setattr(verify, "venv_path", lambda project, v: tmp_path / "no-venv")
    result = check_with(monkeypatch, {s: replay(s) for s in OTHERS})
    assert result.unverified == {"9.9.9": [fit]}
    assert cli.check(result) == 1
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("NOT VERIFIED")]
    assert line.startswith(f"NOT VERIFIED {fit.name}: never verified with torch 9.9.9: run make")
    assert "installs torch 9.9.9 once, ~6 GB" in line, line
    assert "1 not verified" in out, out
    assert cli.check(result, unverified_ok=True) == 0
    assert f"note NOT VERIFIED {fit.name}: never verified" in capsys.readouterr().out


def test_a_failure_the_committed_verification_records_is_shown_as_recorded():
    """Issue 39: verify printed FAILED for snippets whose failure under that torch is the
    committed state; it says "recorded" for them, and FAILED only for a new failure."""
    from docpipe import verify

    failing = {
        "verdict": "failed",
        "error": "snippets/x.py:37: AssertionError: ",
        "claims": {"claim-a": "failed"},
        "recorded": "1" * 64,
    }
    fresh = {
        "torch": "9.9.9",
        "environment": {"torch": "9.9.9+cpu"},
        "snippets": {"snippets/x.py": failing, "snippets/y.py": {**failing, "recorded": "2" * 64}},
    }
    committed = {"snippets": {"snippets/x.py": failing}}
    lines = verify.summary(fresh, committed)
    assert (
        "  recorded: snippets/x.py fails under 9.9.9 at snippets/x.py:37,"
        " as verified/torch-9.9.9.json says" in lines
    ), lines
    assert not any(line.startswith("  FAILED snippets/x.py") for line in lines), lines
    assert "  FAILED snippets/y.py: snippets/x.py:37: AssertionError: " in lines, lines
    # without a committed verification, every failure is new
    assert "  FAILED snippets/x.py: snippets/x.py:37: AssertionError: " in verify.summary(fresh)
