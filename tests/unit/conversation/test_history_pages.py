"""prompt-stack Query pages are sized from max_tokens and the stored per-run counts: bytes read track the result."""

from __future__ import annotations

import pytest

from offprompt.services.conversation.prompt_stack import RUN_SEPARATOR_TOKENS, history_page_size


def simulate(run_tokens: list[int], budget: int | None, cap: int | None = None) -> tuple[int, int, int]:
    """(runs returned, items read, Query pages) for a newest-first reader that stops one run past the budget."""
    returned = read = tokens = pages = 0
    spent = 0
    total = len(run_tokens) if cap is None else min(cap, len(run_tokens))
    done = False
    while not done and read < total:
        pages += 1
        limit = history_page_size(budget, tokens, read, None if cap is None else cap - read)
        for cost in run_tokens[read : min(read + limit, total)]:
            read += 1
            tokens += cost + RUN_SEPARATOR_TOKENS
            if budget is not None and spent + cost + RUN_SEPARATOR_TOKENS >= budget:
                done = True
                break
            spent += cost + RUN_SEPARATOR_TOKENS
            returned += 1
    return returned, read, pages


@pytest.mark.parametrize("avg", [20, 78, 150, 400])
def test_pages_read_about_what_is_returned(avg: int) -> None:
    runs = [avg + (i * 37) % avg for i in range(2000)]  # uneven sizes around 1.5 avg
    returned, read, pages = simulate(runs, budget=4000)
    assert read <= returned * 1.25 + 10  # the old fixed pages (50, then 100) read 150 items to return 51
    assert pages <= 3


def test_no_budget_reads_everything_in_large_pages() -> None:
    returned, read, pages = simulate([50] * 450, budget=None)
    assert read == returned == 450 and pages == 3  # 100 + 200 + 150


def test_last_n_caps_the_page() -> None:
    assert history_page_size(4000, 0, 0, 3) == 3
    assert simulate([50] * 100, budget=None, cap=5) == (5, 5, 1)


def test_budget_spent_reads_one_more_run_at_a_time() -> None:
    assert history_page_size(100, 150, 3, None) == 1
