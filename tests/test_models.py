"""Event details have one reader (models.event_detail) and verdicts one key (models.verdict_key)."""

from smartvector_core.models import event_detail, verdict_key


def test_event_detail_reads_json_dicts_only():
    assert event_detail('{"event_id": "e1"}') == {"event_id": "e1"}
    assert event_detail({"a": 1}) == {"a": 1}
    assert event_detail("") == {} and event_detail(None) == {} and event_detail("not json") == {}
    assert event_detail("[1, 2]") == {}                       # JSON, but not a detail


def test_verdict_key_prefers_the_event_id():
    assert verdict_key('{"event_id": "e1"}', "doc", 5) == "e1"
    assert verdict_key("", "doc", 5) == "doc@5"               # verdicts written before ids existed
