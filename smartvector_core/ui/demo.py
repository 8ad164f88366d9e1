"""The guided demo: preset questions over the demo corpus (``data/demo_corpus.jsonl``) and, for
each, what naive RAG answers against what ``default`` answers, and why (pure; no Streamlit)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .views import answer_text


@dataclass(frozen=True)
class DemoStep:
    title: str
    question: str
    point: str          # what the presenter says the step shows


DEMO_STEPS: tuple[DemoStep, ...] = (
    DemoStep("A rumour against the policy", "How many days do customers have to ask for a refund?",
             "The forum post says 14 days; the official policy says 60. Naive ranks by similarity only; "
             "default weighs trust, and the rumour lost trust in a contradiction with three official sources."),
    DemoStep("Superseded versions", "What are the API rate limits per minute?",
             "Three versions of the rate-limit policy exist (100, 500, 1,000 requests a minute). Naive may "
             "answer from an old one; default serves the version in force and rejects the others in its chain."),
    DemoStep("Time travel", "What was the refund window in March 2025?",
             "The question names a past moment: default judges validity then (the 2024 policy, 30 days), "
             "naive returns today's texts."),
    DemoStep("An event with a window", "Is rate limiting switched off right now?",
             "A gateway upgrade suspends rate limiting from 29 November to 2 December 2026: default knows the "
             "window (asked later, it rejects the announcement as expired)."),
    DemoStep("Recency", "What is the latest research on scaling language models?",
             "Several papers from 2020 to 2026: 'latest' prefers the newest, without dropping the older ones."),
)


def top_answer(response: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first result of a ``query --json`` response, as the demo shows it (None: none)."""
    results = response.get("results") or []
    if response.get("abstained") or not results:
        return None
    first = results[0]
    return {"id": first.get("id"), "title": first.get("title") or first.get("id"), "text": answer_text(first, 320),
            "confidence": first.get("confidence"), "trust": first.get("trust"),
            "validity_state": first.get("validity_state"), "created_at": str(first.get("created_at") or "")[:10]}


def contrast(naive: Mapping[str, Any], default: Mapping[str, Any]) -> dict[str, Any]:
    """Both top answers, whether they differ, and why default did not give naive's answer: its
    rejection of that document (code and reason), or its lower rank, or nothing to explain."""
    left, right = top_answer(naive), top_answer(default)
    out: dict[str, Any] = {"naive": left, "default": right,
                           "same": bool(left and right and left["id"] == right["id"])}
    if left is None or out["same"]:
        out["why"] = "Both profiles give the same answer." if out["same"] else "Naive has no answer."
        return out
    rejected = next((r for r in default.get("rejections") or [] if r.get("id") == left["id"]), None)
    if rejected:
        out["why"] = f"default rejected {left['id']}: {rejected.get('code')} — {rejected.get('reason')}"
        return out
    ranks = [r.get("rank") for r in default.get("results") or [] if r.get("id") == left["id"]]
    out["why"] = (f"default ranks {left['id']} at {ranks[0]}: its score weighs trust, validity and time, "
                  "not similarity alone" if ranks else f"{left['id']} is not among default's answers")
    return out
