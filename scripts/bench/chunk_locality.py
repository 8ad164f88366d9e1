"""Edit locality and chunk sizes of the chunking rule on real corpora (no store, no encoder).

For each corpus (JSON Lines of ``../shared/CONTRACT.md`` records): chunks per document and the
median chunk length, then ``--edits`` random edits of each kind, counting the chunks whose text
is new after the edit (the chunks a re-ingest embeds):

- ``word``: one word of one paragraph grows by 1–12 characters;
- ``paragraph``: one paragraph grows by a copy of its first 20–300 characters.

Prints one JSON object per corpus and ``--min-chars`` value (default: the shipped rule and the
old 40-character join side by side), seeded, so runs compare.

    python scripts/bench/chunk_locality.py CORPUS.jsonl [CORPUS.jsonl ...] [--edits 3000] [--min-chars 40,400]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from smartvector_core.ingest.chunking import MIN_CHARS, _paragraph_spans, chunk_spans  # noqa: E402


def _edited(text: str, rng: random.Random, kind: str) -> str | None:
    paragraphs = _paragraph_spans(text)
    if len(paragraphs) < 2:
        return None
    start, end = rng.choice(paragraphs)
    paragraph = text[start:end]
    if kind == "word":
        words = paragraph.split(" ")
        i = rng.randrange(len(words))
        words[i] += "s" * rng.randint(1, 12)
        new = " ".join(words)
    else:
        new = paragraph + " " + paragraph[: rng.randint(20, 300)]
    return text[:start] + new + text[end:]


def measure(texts: list[str], min_chars: int, edits: int, seed: int = 7) -> dict:
    """Chunk counts and, per edit kind, the mean number of new chunks and the share of edits with
    at most two."""
    spans = [chunk_spans(t, min_chars=min_chars) for t in texts]
    lengths = [e - s for doc in spans for s, e in doc]
    out = {"min_chars": min_chars, "documents": len(texts), "chunks_per_document": round(len(lengths) / len(texts), 2),
           "median_chunk_chars": statistics.median(lengths)}
    for kind in ("word", "paragraph"):
        rng = random.Random(seed)
        new_counts = []
        while len(new_counts) < edits:
            i = rng.randrange(len(texts))
            edited = _edited(texts[i], rng, kind)
            if edited is None:
                if not any(len(_paragraph_spans(t)) > 1 for t in texts):
                    break
                continue
            before = {texts[i][s:e] for s, e in spans[i]}
            new_counts.append(sum(edited[s:e] not in before for s, e in chunk_spans(edited, min_chars=min_chars)))
        if new_counts:
            out[kind] = {"mean_new_chunks": round(statistics.mean(new_counts), 3),
                         "share_at_most_two": round(sum(c <= 2 for c in new_counts) / len(new_counts), 3),
                         "max": max(new_counts)}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--edits", type=int, default=3000)
    parser.add_argument("--min-chars", dest="min_chars", default=f"40,{MIN_CHARS}")
    args = parser.parse_args(argv)
    for corpus in args.corpora:
        texts = [json.loads(line)["text"] for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
        for min_chars in (int(v) for v in args.min_chars.split(",")):
            print(json.dumps({"corpus": str(corpus), **measure(texts, min_chars, args.edits)}))


if __name__ == "__main__":
    main()
