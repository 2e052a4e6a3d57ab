"""The local stack's embedder hook: `set_embedder_override` in the task-memory composition root, and its use."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

import pytest

from offprompt.adapters.embeddings import BedrockTitanEmbedder
from offprompt.composition import task_memory
from offprompt.composition.task_memory import set_embedder_override, text_store_from_settings
from offprompt.config import load_settings
from offprompt_local import stack
from offprompt_local.embedder import LocalWordLlamaEmbedder

BASE = {"OFFPROMPT_OPENSEARCH_URL": "http://127.0.0.1:9", "OFFPROMPT_OPENSEARCH_INDEX": "i"}


class Fixed:
    dimensions = 3

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]


@pytest.fixture(autouse=True)
def no_override() -> Iterator[None]:
    set_embedder_override(None)
    yield
    set_embedder_override(None)


def embedder_of(env: dict[str, str]) -> object:
    return getattr(text_store_from_settings(load_settings(env)), "embedder", "missing")


def test_without_override_the_settings_decide() -> None:
    assert embedder_of(BASE) is None
    titan = embedder_of({**BASE, "OFFPROMPT_EMBEDDING_MODEL_ID": "amazon.titan-embed-text-v2:0"})
    assert isinstance(titan, BedrockTitanEmbedder) and titan.dimensions == 1024


def test_the_override_wins_and_can_be_removed() -> None:
    fixed = Fixed()
    set_embedder_override(fixed)
    assert embedder_of(BASE) is fixed
    assert embedder_of({**BASE, "OFFPROMPT_EMBEDDING_MODEL_ID": "amazon.titan-embed-text-v2:0"}) is fixed
    set_embedder_override(None)
    assert embedder_of(BASE) is None


def test_the_stack_installs_minilm_for_conversations_and_padded_wordllama_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from offprompt.composition import conversation_index, records
    from offprompt_local.minilm import LocalMiniLmEmbedder

    monkeypatch.delenv(stack.LOCAL_EMBEDDER_ENV, raising=False)
    monkeypatch.delenv("OFFPROMPT_EMBEDDING_DIMENSIONS", raising=False)
    described = stack.configure_embeddings()
    assert "MiniLM" in described and "wordllama" in described and "local stand-in" in described
    assert isinstance(conversation_index._embedder_override, LocalMiniLmEmbedder)
    installed = embedder_of(BASE)
    assert records._embedder_override is installed
    assert getattr(installed, "inner", None).__class__ is LocalWordLlamaEmbedder  # wordllama, zero-padded
    assert installed.dimensions == 384 == conversation_index._embedder_override.dimensions  # type: ignore[attr-defined]
    assert load_settings(dict(os.environ)).embedding_dimensions == 384
    stack.reset_embeddings()
    assert embedder_of(BASE) is None and conversation_index._embedder_override is None


def test_the_stack_installs_wordllama_everywhere_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from offprompt.composition import conversation_index

    monkeypatch.setenv(stack.LOCAL_EMBEDDER_ENV, "wordllama")
    monkeypatch.delenv("OFFPROMPT_EMBEDDING_DIMENSIONS", raising=False)
    described = stack.configure_embeddings()
    assert "wordllama" in described and "local stand-in" in described and "knn" in described
    installed = embedder_of(BASE)
    assert isinstance(installed, LocalWordLlamaEmbedder)
    assert conversation_index._embedder_override is installed
    assert load_settings(dict(os.environ)).embedding_dimensions == 256
    stack.reset_embeddings()
    assert embedder_of(BASE) is None


def test_an_index_of_256_d_vectors_keeps_wordllama_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A data directory made before ADR 0070 holds wordllama's 256-d vectors: 384-d ones would be refused there."""
    from offprompt.composition import conversation_index
    from offprompt_local.minilm import LocalMiniLmEmbedder

    monkeypatch.delenv(stack.LOCAL_EMBEDDER_ENV, raising=False)
    described = stack.configure_embeddings(index_dimension=256)
    assert "made before ADR 0070" in described
    assert isinstance(embedder_of(BASE), LocalWordLlamaEmbedder)
    assert load_settings(dict(os.environ)).embedding_dimensions == 256
    stack.reset_embeddings()
    assert "MiniLM" in stack.configure_embeddings(index_dimension=384)
    stack.reset_embeddings()
    monkeypatch.setenv(stack.LOCAL_EMBEDDER_ENV, "minilm")  # asked for: the stack's index check warns instead
    stack.configure_embeddings(index_dimension=256)
    assert isinstance(conversation_index._embedder_override, LocalMiniLmEmbedder)
    stack.reset_embeddings()


def test_the_stack_can_run_without_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(stack.LOCAL_EMBEDDER_ENV, "off")
    assert stack.configure_embeddings().startswith("off")
    assert embedder_of(BASE) is None
    monkeypatch.setenv(stack.LOCAL_EMBEDDER_ENV, "titan")
    with pytest.raises(stack.StackError):
        stack.configure_embeddings()


def test_the_hook_is_where_the_stack_looks() -> None:
    assert stack.EMBEDDER_HOOKS == (
        ("offprompt.composition.task_memory", "set_embedder_override"),
        ("offprompt.composition.records", "set_embedder_override"),  # record search uses the same (ADR 0034)
        ("offprompt.composition.conversation_index", "set_embedder_override"),  # and conversation search (ADR 0048)
    )
    assert callable(task_memory.set_embedder_override)
    from offprompt.composition import records

    assert callable(records.set_embedder_override)


def test_the_stack_runs_numpy_on_one_thread_unless_told_otherwise() -> None:
    environ: dict[str, str] = {}
    stack.single_threaded_numpy(environ)
    assert environ == {"OPENBLAS_NUM_THREADS": "1"}
    told = {"OPENBLAS_NUM_THREADS": "2"}
    stack.single_threaded_numpy(told)
    assert told == {"OPENBLAS_NUM_THREADS": "2"}


def test_the_stack_process_sets_it_before_numpy_loads() -> None:
    import subprocess
    import sys

    code = (
        "import sys, offprompt_local.stack as s\n"
        "assert 'numpy' not in sys.modules\n"
        "try:\n    s.main(['--port', 'x'])\nexcept SystemExit:\n    pass\n"
        "import os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip().splitlines()[-1:] == ["1"], out.stderr
