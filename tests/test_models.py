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


def test_without_undone_drops_the_verdicts_an_undo_names_by_id_or_legacy_key():
    import pandas as pd

    from smartvector_core.models import without_undone

    events = pd.DataFrame({
        "doc_id": ["a", "b", "c", "a", "b"],
        "event_type": ["FEEDBACK_ACCEPT", "FEEDBACK_ACCEPT", "FEEDBACK_CORRECT", "FEEDBACK_UNDO", "FEEDBACK_UNDO"],
        "at_us": [1, 2, 3, 4, 5],
        "detail": ['{"event_id": "e1"}', "", '{"event_id": "e3"}', '{"undoes": "e1"}', '{"undoes": "b@2"}']})
    verdicts = events[events["event_type"] != "FEEDBACK_UNDO"]
    assert without_undone(verdicts, events)["doc_id"].tolist() == ["c"]
    assert without_undone(verdicts, events.iloc[:3]) is verdicts          # no undo: nothing to drop
