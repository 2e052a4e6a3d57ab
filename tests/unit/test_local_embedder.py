"""The local stand-in for Titan (offprompt_local.embedder): wordllama's 256-d model, offline, lazy, normalized.

Every test here runs with sockets blocked, including the model's first load.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from offline_support import NetworkBlockedError, blocked_network

from offprompt.adapters.embeddings import MAX_INPUT_CHARS
from offprompt.errors import InvalidInput
from offprompt_local.embedder import DIMENSIONS, LocalWordLlamaEmbedder, model_files

LAYER = Path(__file__).resolve().parents[2] / "layers" / "offprompt"


@pytest.fixture(scope="module", autouse=True)
def no_network() -> Iterator[None]:
    with blocked_network():
        yield


@pytest.fixture(scope="module")
def embedder() -> LocalWordLlamaEmbedder:
    """Built and first loaded inside this module, i.e. with the network blocked."""
    return LocalWordLlamaEmbedder()


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_the_network_really_is_blocked() -> None:
    with pytest.raises(NetworkBlockedError), socket.socket() as sock:
        sock.connect(("127.0.0.1", 9))


def test_wordllamas_own_loader_would_reach_for_the_network(tmp_path: object) -> None:
    # Why the module opens the wheel's files itself: wordllama 0.4.0's `WordLlama.load()` looks for the tokenizer
    # in a folder the wheel does not have and then downloads it. If this starts failing, load() became offline.
    from wordllama import WordLlama

    with pytest.raises(NetworkBlockedError):
        WordLlama.load(cache_dir=str(tmp_path))


def test_the_model_ships_in_the_wheel() -> None:
    weights, tokenizer = model_files()
    assert weights.name == "l2_supercat_256.safetensors" and weights.stat().st_size > 10_000_000
    assert tokenizer.is_file()


def test_constructing_loads_nothing() -> None:
    fresh = LocalWordLlamaEmbedder()
    assert fresh._model is None and fresh.dimensions == DIMENSIONS == 256


def test_importing_the_module_loads_no_model() -> None:
    probe = (
        "import sys, offprompt_local.embedder\n"
        "print(sorted(m for m in ('wordllama', 'numpy', 'tokenizers') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(LAYER)}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_loading_the_model_leaves_the_processs_logging_as_it_was() -> None:
    """wordllama calls `logging.basicConfig(level=INFO)` when imported; the stack's process must not inherit that (it
    printed an OpenSearch line per request and every library's INFO lines)."""
    probe = (
        "import logging, offprompt_local.embedder as e\n"
        "e.LocalWordLlamaEmbedder().embed(['car'])\n"
        "print(logging.getLogger().level, len(logging.getLogger().handlers))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(LAYER), *sys.path])}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{logging.WARNING} 0"


def test_vectors_have_the_dimension_and_unit_length(embedder: LocalWordLlamaEmbedder) -> None:
    vectors = embedder.embed(["car", "An automobile is parked outside.", "ü 日本語 🙂", "x" * 5000])
    assert len(vectors) == 4
    for vector in vectors:
        assert len(vector) == 256 and all(isinstance(x, float) and math.isfinite(x) for x in vector)
        # eight decimals (float32's precision, which the index keeps): unit length to within 256 * 5e-9
        assert all(round(x, 8) == x for x in vector)
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-7)


def test_deterministic_across_instances_and_batches(embedder: LocalWordLlamaEmbedder) -> None:
    texts = [f"note {i}: the {w} is here" for i, w in enumerate(["car", "cat", "river", "invoice"] * 30)]
    batch = embedder.embed(texts)  # 120 texts: more than one internal batch of 64
    again = LocalWordLlamaEmbedder(batch_size=7).embed(texts)
    one_by_one = [embedder.embed([t])[0] for t in texts[:10]]
    assert len(batch) == 120
    for a, b in zip(batch, again, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-6
    for a, b in zip(batch[:10], one_by_one, strict=True):  # padding in a batch changes nothing
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-6
    assert embedder.embed([]) == []


def test_the_pooling_is_wordllamas(embedder: LocalWordLlamaEmbedder) -> None:
    """The embedder pools text by text (`_mean_pooled`); wordllama's own `embed` pools a padded batch: same vectors."""
    import numpy as np

    from offprompt_local.embedder import _mean_pooled

    texts = ["car", "An automobile is parked outside.", "ü 日本語 🙂  two  spaces", "x" * 5000, "word " * 700]
    ours = _mean_pooled(embedder.model, texts)
    theirs = embedder.model.embed(texts, norm=False, batch_size=64)
    assert ours.shape == theirs.shape == (5, DIMENSIONS)
    assert float(np.abs(ours - theirs).max()) < 1e-6


def test_real_semantics_car_is_near_automobile(embedder: LocalWordLlamaEmbedder) -> None:
    query, *docs = embedder.embed(
        [
            "car",
            "The automobile was parked in the garage overnight.",
            "A recipe for banana bread with walnuts.",
            "Quarterly tax filing deadlines for small businesses.",
            "Photosynthesis converts sunlight into chemical energy.",
        ]
    )
    scores = [cosine(query, doc) for doc in docs]
    assert scores.index(max(scores)) == 0
    assert scores[0] > max(scores[1:]) + 0.1, scores


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_texts_are_refused_like_titan(embedder: LocalWordLlamaEmbedder, text: str) -> None:
    with pytest.raises(InvalidInput):
        embedder.embed(["fine", text])


def test_texts_over_titans_limit_are_refused(embedder: LocalWordLlamaEmbedder) -> None:
    embedder.embed(["a" * MAX_INPUT_CHARS])
    with pytest.raises(InvalidInput):
        embedder.embed(["a" * (MAX_INPUT_CHARS + 1)])


def test_wordllama_is_a_dev_dependency_only() -> None:
    import tomllib

    project = tomllib.loads((LAYER.parents[1] / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if "wordllama" in d.lower()]
    assert [d for d in project["optional-dependencies"]["dev"] if d.lower().startswith("wordllama")]
    mentions = [p for p in LAYER.rglob("*.py") if "wordllama" in p.read_text().lower()]
    assert not mentions, f"the layer must not use wordllama: {mentions}"
