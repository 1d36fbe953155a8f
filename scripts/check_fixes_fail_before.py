"""Each window finding's GUI test fails on the commit before its fix and passes on the fix.

Issue 12 asks the closing note to show it. For every (fix commit, tests) pair below, the code
of the fix's parent is checked out in a temporary worktree, the test files are taken from
``tests_from`` (the fix itself, or a later commit that added the test), and pytest runs the named
tests there; then the same at the fix. Prints a Markdown table (the first failure line of each
"before" run says how it failed: an assertion, or a name the old code lacks).

    python scripts/check_fixes_fail_before.py > docs/data/s7/fail-before.md
    python scripts/check_fixes_fail_before.py 526169e     # only the fixes of these commits
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Fix:
    finding: str
    commit: str
    tests: tuple[str, ...]
    tests_from: str = ""  # the commit whose test files are used (default: the fix)


FIXES = (
    Fix("banners pile up; a banner stays after its condition ends", "934dc33", (
        "tests/app/test_messages.py::test_at_most_two_banners_the_newest_and_each_text_once",
        "tests/app/test_messages.py::test_a_banner_goes_when_its_condition_ends")),
    Fix("status bar shows a stale (remote) model", "934dc33", (
        "tests/app/controllers/test_model_setup.py::"
        "test_the_status_line_follows_a_switch_from_a_remote_server_to_a_local_model",)),
    Fix("a file listed twice while it is added", "1ac6fb3", (
        "tests/app/test_library_panel.py::test_a_file_being_added_is_listed_once",)),
    Fix("small windows cut text and collapse panes", "11ce284", (
        "tests/app/test_small_windows.py::test_a_small_window_keeps_each_part_usable",)),
    Fix("no sources when the model does not cite", "0d6072f", (
        "tests/app/test_conversation.py::test_an_answer_without_citations_shows_the_passages_it_was_given",)),
    Fix("Summarize offered on a scanned PDF", "1959d62", (
        "tests/app/controllers/test_summary.py::test_a_scanned_pdf_is_not_offered_for_summary",)),
    Fix("a stopped answer loses its citation links", "367a3f6", (
        "tests/app/test_conversation.py::test_a_stopped_answer_keeps_its_citation_links",)),
    Fix("encrypted PDF asks again", "18f285c", (
        "tests/app/test_library_panel.py::test_an_encrypted_pdf_over_an_open_one_asks_once",)),
    Fix("progress freezes on a finished step", "18f285c", (
        "tests/app/test_jobs.py::test_a_new_stage_right_after_a_finished_one_is_not_dropped",)),
    Fix("state leaks between documents (page, Find)", "18f285c", (
        "tests/app/test_pdf_viewer.py::test_a_new_document_starts_clean",
        "tests/app/test_pdf_viewer.py::test_enter_right_after_typing_waits_for_the_search")),
    Fix("'1 pages', '~0 s left'; About shows no version", "18f285c", (
        "tests/app/test_job_progress.py::test_small_words_read_right",
        "tests/app/test_job_progress.py::test_about_names_the_version")),
    Fix("GPU layers planned with a CPU-only llama.cpp", "18f285c", (
        "tests/app/test_one_plan.py::test_a_gpu_with_a_cpu_only_llama_cpp_is_planned_for_the_cpu_everywhere",)),
    Fix("the window's start-up error does not name the missing system libraries", "d3a4cc6", (
        "tests/app/test_system_libraries.py::test_window_start_names_the_missing_libraries",)),
    Fix("the plan names the model by its GGUF-internal name", "526169e", (
        # the test's path at the fix (since moved: tests/inference/planning/test_policy.py)
        "tests/inference/test_plan_policy.py::test_the_plan_names_the_model_by_its_file",)),
    Fix("the context-size help says 0 while the field shows auto", "04ca16e", (
        "tests/app/test_settings.py::test_the_context_size_hint_names_what_the_field_shows",), tests_from="HEAD"),
    Fix("a full disk is reported as a damaged library (issue 24, item 6)", "de4dc73", (
        "tests/summarizer/library/test_disk_space.py",), tests_from="HEAD"),
)  # fmt: skip


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def run_at(code: str, fix: Fix, where: Path) -> tuple[bool, str]:
    """Whether the tests pass with the code of ``code`` and the tests of ``fix.tests_from``."""
    subprocess.run(["git", "worktree", "add", "-f", "--detach", str(where), code], cwd=ROOT, check=True,
                   capture_output=True)  # fmt: skip
    try:
        source = fix.tests_from or fix.commit
        if source == fix.commit:  # the fix's whole tests/ folder (its fixtures and helpers)
            archive = subprocess.run(["git", "archive", source, "tests"], cwd=ROOT, check=True, capture_output=True)
            subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
        else:  # only the named files from the later commit
            for path in {t.split("::")[0] for t in fix.tests}:
                (where / path).write_text(git("show", f"{source}:{path}"))
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *fix.tests],
            cwd=where, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        lines = (result.stdout + result.stderr).splitlines()
        first = next((ln for ln in lines if ln.startswith("E ")), "")
        if not first:
            first = next((ln for ln in lines if "Error" in ln), lines[-1] if lines else "")
        return result.returncode == 0, first.strip()[:110]
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, capture_output=True)


def main() -> int:
    print("| finding | fix | before the fix | how it failed | at the fix |")
    print("|---|---|---|---|---|")
    bad = 0
    with tempfile.TemporaryDirectory(prefix="fail-before-") as tmp:
        for i, fix in enumerate(FIXES):
            if sys.argv[1:] and fix.commit not in sys.argv[1:]:
                continue
            before_ok, why = run_at(f"{fix.commit}^", fix, Path(tmp) / f"b{i}")
            after_ok, after_why = run_at(fix.commit, fix, Path(tmp) / f"a{i}")
            bad += before_ok or not after_ok
            why = why.replace("|", "\\|")
            after = "passes" if after_ok else f"FAILS: {after_why}"
            print(f"| {fix.finding} | {fix.commit} | {'passes (!)' if before_ok else 'fails'} | `{why}` | {after} |",
                  flush=True)  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
