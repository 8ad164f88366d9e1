"""The PAIR verdict is explained on the result: "weak alone ... pair with <partner> (gain ...)",
on the paired result only (found by the mutation check, issue 20: the explanation could be
dropped without any test noticing). Candidates of tests/retrieval/test_pairing.py."""

from smartvector_core.retrieval.pipeline import QueryRequest, answer
from smartvector_core.retrieval.profiles import PROFILES

from .test_pairing import AS_OF, _candidates, _state


def test_the_paired_result_says_with_whom_and_the_gain():
    cands = _candidates()
    profile = PROFILES["temporal"]
    resp = answer(cands, QueryRequest("rate limit note", AS_OF, profile, k=10), profile, _state(cands))
    results = {r.id: r for r in resp.results}
    paired = [reason for reason in results["news_old"].reasons if "pair with" in reason]
    assert len(paired) == 1 and paired[0].startswith("weak alone (decay ")
    assert "pair with news_fresh (gain +" in paired[0]
    assert not any("pair with" in reason for reason in results["news_fresh"].reasons)
