"""LOCAL STAND-IN for Amazon Titan Text Embeddings (the `Embedder` port): wordllama's 256-dimension model.

Bedrock is not reachable locally, so `make dev`, `make demo` and the integration tests embed with wordllama
(`l2_supercat`, 256 dimensions): a static token-embedding table (from Llama 2's input embeddings, trained for
sentence similarity) that is averaged over a text's tokens. It is real semantics ("car" is near "automobile")
but far below Titan's quality, and its vectors are not comparable with Titan's: an index built with it is a
local index only. Dev dependency only (pyproject `dev` extra); never in the Lambda layer.

The weights and the tokenizer ship inside the wheel. They are opened by path here rather than through
`WordLlama.load()`, because wordllama 0.4.0 looks for its tokenizer in a `tokenizer/` folder that the wheel
does not have (it is `tokenizers/`) and then falls back to a download from Hugging Face. Nothing here opens a
socket (tests/unit/test_local_embedder.py runs it with sockets blocked).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from offprompt.adapters.embeddings import refuse_unembeddable

#: The model configuration shipped in the wordllama wheel, and its width.
MODEL = "l2_supercat"
DIMENSIONS = 256
_TENSOR_KEY = "embedding.weight"


class WordLlamaUnavailable(RuntimeError):
    """wordllama (a dev dependency) is not installed, or its wheel lacks the model files."""


def _import_wordllama() -> Any:
    """`wordllama` and its `inference` module, imported without their side effect on this process's logging: both
    call `logging.basicConfig(level=INFO)` at import, which made every library's INFO lines (an OpenSearch line per
    request, botocore's) print in the local stack, at a cost on every request."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        import wordllama
        import wordllama.inference
    except ImportError as exc:
        raise WordLlamaUnavailable("wordllama is not installed (it is in the dev extra: make install)") from exc
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    return wordllama


def model_files() -> tuple[Path, Path]:
    """(weights, tokenizer) inside the installed wordllama package."""
    wordllama = _import_wordllama()
    root = Path(wordllama.__file__).resolve().parent
    weights = root / "weights" / f"{MODEL}_{DIMENSIONS}.safetensors"
    tokenizer = root / "tokenizers" / f"{MODEL}_tokenizer_config.json"
    missing = [str(path) for path in (weights, tokenizer) if not path.is_file()]
    if missing:
        raise WordLlamaUnavailable(f"the wordllama wheel lacks {', '.join(missing)}")
    return weights, tokenizer


class LocalWordLlamaEmbedder:
    """The `Embedder` port over wordllama, loaded on the first `embed()` (about 0.4 s, ~35 MB), thread-safe.

    Vectors are unit length (as Titan V2's with `normalize: true`), deterministic, and computed in batches.
    """

    LABEL = "wordllama l2_supercat 256-d (local stand-in for Bedrock Titan, not Titan)"
    dimensions: int = DIMENSIONS

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalWordLlamaEmbedder(model={MODEL!r}, dimensions={self.dimensions})"

    @property
    def model(self) -> Any:
        """The wordllama inference object, built from the wheel's files on first use."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = _load_model()
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        refuse_unembeddable(texts)
        if not texts:
            return []
        import numpy as np

        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float64)
        for first in range(0, len(texts), self.batch_size):
            vectors[first : first + self.batch_size] = _mean_pooled(self.model, texts[first : first + self.batch_size])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        # Every text has at least its <s> token, so a zero vector is not expected; guard anyway (cosine needs >0).
        norms[norms == 0] = 1.0
        # Eight decimals: OpenSearch keeps a vector as float32 (~7 significant digits), and the JSON of a vector of
        # 17-digit doubles cost the text store ~60 % more to write for digits the index drops (ADR 0067).
        result: list[list[float]] = np.round(vectors / norms, 8).tolist()
        return result


def _mean_pooled(model: Any, texts: Sequence[str]) -> Any:
    """wordllama's embedding (the mean of the texts' token vectors; `WordLlamaInference.embed(norm=False)`), summed
    text by text over the tokens each has: wordllama pads the batch to its longest text and multiplies the whole
    padded tensor by the mask first, which cost a 100 KB store ~3x the time (float32 sums either way; the two agree
    to ~1e-6, tests/unit/test_local_embedder.py)."""
    import numpy as np

    table = model.embedding
    encoded = model.tokenizer.encode_batch(list(texts), add_special_tokens=False)
    pooled = np.zeros((len(encoded), table.shape[1]), dtype=np.float32)
    for row, encoding in enumerate(encoded):
        ids = np.asarray(encoding.ids, dtype=np.int64)[np.asarray(encoding.attention_mask, dtype=bool)]
        if ids.size:
            np.clip(ids, 0, table.shape[0] - 1, out=ids)
            pooled[row] = table[ids].sum(axis=0, dtype=np.float32) / np.float32(ids.size)
    return pooled


def _load_model() -> Any:
    weights, tokenizer_file = model_files()
    from safetensors import safe_open
    from tokenizers import Tokenizer

    inference = _import_wordllama().inference

    with safe_open(str(weights), framework="np") as tensors:
        table = tensors.get_tensor(_TENSOR_KEY)
    if table.ndim != 2 or table.shape[1] != DIMENSIONS:
        raise WordLlamaUnavailable(f"{weights} holds a {table.shape} table, not (vocabulary, {DIMENSIONS})")
    return inference.WordLlamaInference(table, Tokenizer.from_file(str(tokenizer_file)))
