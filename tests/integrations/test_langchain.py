"""The LangChain retriever: in-process over a real temp store, in a tiny chain with a fake LLM."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from smartvector_core.integrations.langchain import AbstainedError, SmartVectorRetriever
from tests.conftest import NOW, REPO

AS_OF = "2026-06-01T12:00:00Z"


@pytest.fixture
def loaded(fake_app):
    fake_app.ingest_paths([REPO / "data" / "demo_corpus.jsonl"], now=NOW)
    return fake_app


def test_documents_carry_the_engine_answer(loaded):
    retriever = SmartVectorRetriever(service=loaded, as_of=AS_OF, k=4)
    docs = retriever.invoke("What is the refund window?")
    expected = loaded.query("What is the refund window?", as_of=retriever._moment(), k=4, log=False).to_dict()
    assert [d.metadata["chunk_id"] for d in docs] == [r["chunk_id"] for r in expected["results"]]
    assert [d.page_content for d in docs] == [r["text"] for r in expected["results"]]
    for doc, result in zip(docs, expected["results"], strict=True):
        assert doc.metadata["id"] == result["id"]
        assert doc.metadata["confidence"] == pytest.approx(result["confidence"])
        assert doc.metadata["tier"] == result["confidence_tier"]
        assert doc.metadata["validity_state"] == result["validity_state"]
        assert doc.metadata["reasons"] == result["reasons"]
        assert "trust" in doc.metadata


def test_retriever_in_a_chain_with_a_fake_llm(loaded):
    retriever = SmartVectorRetriever(service=loaded, as_of=AS_OF, k=3)
    seen: list[str] = []

    def context(docs) -> str:
        text = "\n\n".join(f"[{d.metadata['id']}] {d.page_content}" for d in docs)
        seen.append(text)
        return text

    prompt = PromptTemplate.from_template("Answer from the context.\n{context}\nQ: {question}\nA:")
    chain = ({"context": retriever | RunnableLambda(context), "question": RunnablePassthrough()}
             | prompt | FakeListLLM(responses=["30 days"]) | StrOutputParser())
    assert chain.invoke("What is the refund window?") == "30 days"
    assert seen and seen[0].startswith("[")


@dataclass
class _Answer:
    payload: dict

    def to_dict(self) -> dict:
        return self.payload


class _AbstainingService:
    def query(self, text, **_):
        return _Answer({"query_id": "q", "query": text, "as_of": AS_OF, "profile": "default", "abstained": True,
                        "abstain_reason": "nothing in the store is about this",
                        "results": [{"id": "d", "chunk_id": "d:0", "text": "unrelated", "rank": 1, "score": 0.1,
                                     "confidence": 0.05, "confidence_tier": "LOW", "trust": 0.7,
                                     "validity_state": "VALID", "kind": "STATIC", "reasons": []}],
                        "rejections": []})


def test_abstain_policies():
    service = _AbstainingService()
    assert SmartVectorRetriever(service=service).invoke("asdf qwerty") == []
    kept = SmartVectorRetriever(service=service, abstain="keep").invoke("asdf qwerty")
    assert [d.metadata["abstained"] for d in kept] == [True]
    with pytest.raises(AbstainedError, match="nothing in the store"):
        SmartVectorRetriever(service=service, abstain="raise").invoke("asdf qwerty")
