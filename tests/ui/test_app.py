"""AppTest over app.py and every page against a seeded temporary store (hashing embedder)."""

from __future__ import annotations

import io
import json
from datetime import datetime

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings
from smartvector_core.ui import views
from tests.conftest import NOW, REPO
from tests.ui.conftest import SCRIPT_TITLE

PAGES = ["pages/overview.py", "pages/ingest.py", "pages/query_lab.py", "pages/knowledge_graph.py",
         "pages/freshness.py", "pages/rejection_log.py", "pages/feedback_audit.py", "pages/evaluation.py",
         "pages/demo.py"]


def _app() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    return at.run()


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _table(at: AppTest, column: str) -> pd.DataFrame:
    """The first table on the page with ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _store(path) -> SmartVector:
    return SmartVector(load_settings(str(path), env={"SMARTVECTOR_MODEL": "hashing"}))


def _page(page: str) -> AppTest:
    at = _app()
    return at.switch_page(page).run()


def _query(at: AppTest, text: str = "What are the API rate limits?", *, switch: bool = True) -> AppTest:
    if switch:
        at.switch_page("pages/query_lab.py").run()
    at.text_input(key="lab_text").input(text)
    return at.button[0].click().run()


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_without_exception(seeded_store, page):
    at = _page(page)
    _ok(at)
    assert at.title, page


def test_overview_counts_and_no_demo_button_when_seeded(seeded_store):
    at = _app()
    _ok(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents"] == "58" and int(metrics["Chunks"]) >= 58
    assert not [b for b in at.button if b.key == "load_demo"]


def test_overview_counts_kinds_lifecycle_and_doc_types_in_tables(seeded_store):
    at = _app()
    _ok(at)
    for name in ("kind", "lifecycle", "doc_type"):
        counts = _table(at, name)
        assert list(counts.columns) == [name, "documents"] and counts["documents"].sum() == 58
    assert not at.get("plotly_chart")                         # no chart library on the landing page


def test_overview_loads_the_demo_into_an_empty_store(tmp_path, monkeypatch, seeded_store):
    monkeypatch.setenv("SMARTVECTOR_STORE", str(tmp_path / "empty"))
    at = _app()
    at.button(key="load_demo").click().run()
    _ok(at)
    assert _store(tmp_path / "empty").stats()["documents"] == 57


def test_query_lab_side_by_side_and_feedback_with_query_id(seeded_store):
    at = _query(_app())
    _ok(at)
    assert [s.value for s in at.subheader][:2] == ["Profile: naive", "Profile: default"]
    assert not at.get("plotly_chart") and not at.dataframe     # closed: no chart, no table is sent
    left, right = at.session_state["lab_responses"]
    top = right["results"][0]                                   # the breakdown on the card, signal by signal
    card = next(t.value for t in at.text if f"id {top['id']} ·" in t.value and "confidence" in t.value)
    assert f"score {top['score']:.3f} = semantic " in card and len(top["signals"]) >= 3
    assert all(f"{name} {abs(sig['contribution']):.3f}" in card for name, sig in top["signals"].items())
    at.session_state["table_left"] = at.session_state["table_right"] = True    # what opening the expanders sets
    at.run()
    results = [d.value for d in at.dataframe if "confidence_tier" in d.value.columns]
    assert len(results) == 2 and all(list(r.columns[3:5]) == ["score", "semantic_contribution"] for r in results)
    at.toggle(key="lab_charts").set_value(True).run()
    assert len(at.get("plotly_chart")) == 2                     # on request: one score breakdown per column
    assert left["results"] and right["results"]
    first = left["results"][0]
    key = f"accept_left_{first['rank']}"
    at.button(key=key).click().run()
    _ok(at)
    assert any("accept recorded" in s.value for s in at.success)
    events = _store(seeded_store).events_frame(first["id"])
    accepted = events[events["event_type"] == "FEEDBACK_ACCEPT"]
    assert list(accepted["query_id"]) == [left["query_id"]] and list(accepted["actor"]) == ["dashboard"]


def test_query_lab_sends_a_cards_passages_when_it_is_opened(seeded_store):
    at = _query(_app())
    first = at.session_state["lab_responses"][0]["results"][0]
    passage = [t.value for t in at.text if t.value == first["text"]]
    assert not passage                                           # closed: the text is not sent
    at.session_state["passages_left"] = True                     # what opening the expander sets
    at.run()
    _ok(at)
    assert [t.value for t in at.text if t.value == first["text"]]


def test_query_lab_any_two_profiles_and_as_of(seeded_store):
    at = _app().switch_page("pages/query_lab.py").run()
    at.selectbox(key="lab_left").select("temporal")
    at.selectbox(key="lab_right").select("smartvector")
    at.toggle(key="lab_pin").set_value(True)
    at.datetime_input(key="lab_as_of").set_value(datetime(2025, 7, 1, 12, 0))
    at = _query(at, "API rate limit requests per minute", switch=False)
    _ok(at)
    left, right = at.session_state["lab_responses"]
    assert (left["profile"], right["profile"]) == ("temporal", "smartvector")
    assert left["as_of"].startswith("2025-07-01T12:00")
    assert set(right["results"][0]["signals"]) == {"semantic", "temporal", "confidence", "relational"}


def test_script_title_is_shown_as_literal_text(seeded_store):
    at = _query(_app(), "API rate limits shown as text not HTML bold")
    _ok(at)
    texts = [t.value for t in at.text]
    assert any(SCRIPT_TITLE in t for t in texts)                # st.text: literal characters
    assert not any("<script" in m.value for m in at.markdown)   # never handed to markdown
    at.switch_page("pages/knowledge_graph.py").run()
    at.text_input(key="graph_query").input("script").run()
    at.selectbox(key="graph_node").select("hostile_doc").run()
    _ok(at)
    details = _table(at, "field")
    assert SCRIPT_TITLE in set(details["value"])


def test_the_token_field_shows_in_the_sidebar_only_when_a_token_is_set(seeded_store, monkeypatch):
    assert not [t for t in _app().sidebar.text_input if t.key == "operator_token_input"]
    monkeypatch.setenv("SMARTVECTOR_OPERATOR_TOKEN", "s3cret")
    at = _app()
    assert [t.label for t in at.sidebar.text_input if t.key == "operator_token_input"] == ["Operator token"]
    at.text_input(key="operator_token_input").input("s3cret").run()
    assert at.session_state["operator_token"] == "s3cret"
    assert any("unlocked" in s.value for s in at.sidebar.success)


def test_feedback_needs_the_operator_token_when_one_is_set(seeded_store, monkeypatch):
    monkeypatch.setenv("SMARTVECTOR_OPERATOR_TOKEN", "s3cret")
    at = _query(_app())
    left = at.session_state["lab_responses"][0]
    first = left["results"][0]
    key = f"correct_left_{first['rank']}"
    at.button(key=key).click().run()
    assert any("operator token" in w.value for w in at.warning)
    events = _store(seeded_store).events_frame(first["id"])
    assert "FEEDBACK_CORRECT" not in set(events["event_type"])   # nothing written
    at.sidebar.text_input(key="operator_token_input").input("wrong").run()
    at.button(key=key).click().run()
    assert "FEEDBACK_CORRECT" not in set(_store(seeded_store).events_frame(first["id"])["event_type"])
    at.sidebar.text_input(key="operator_token_input").input("s3cret").run()
    at.button(key=key).click().run()
    _ok(at)
    assert "FEEDBACK_CORRECT" in set(_store(seeded_store).events_frame(first["id"])["event_type"])


def test_ingest_shows_every_bad_line_and_writes_nothing(seeded_store):
    at = _page("pages/ingest.py")
    bad = "\n".join([json.dumps({"id": "new_a", "text": "alpha"}), json.dumps({"id": "new_b", "text": ""}),
                     json.dumps({"id": "new_c", "text": "x", "valid_from": "soon"})]).encode()
    at.file_uploader(key="upload_files").set_value([("batch.jsonl", bad, "application/json")]).run()
    assert not at.exception
    assert at.error and "2 problem(s)" in at.error[0].value
    assert not [b for b in at.button if b.key == "ingest_upload"]
    assert "new_a" not in set(_store(seeded_store).documents_frame(as_of=NOW)["id"])


def test_ingest_upload_and_paste_write_with_progress(seeded_store):
    at = _page("pages/ingest.py")
    good = "\n".join([json.dumps({"id": "new_a", "text": "alpha", "title": "A"}),
                      json.dumps({"id": "policy_v1", "text": "edited text of the first policy"})]).encode()
    at.file_uploader(key="upload_files").set_value([("batch.jsonl", good, "application/json")]).run()
    at.button(key="ingest_upload").click().run()
    _ok(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["added"] == "1" and metrics["updated"] == "1"
    at.file_uploader(key="upload_files").set_value(None).run()
    at.text_area(key="paste_text").input("Pasted runbook text about restarts.")
    at.text_input(key="paste_title").input("Restart runbook")
    at.text_input(key="paste_supersedes").input("new_a")
    at.button[-1].click().run()      # the form's submit button
    _ok(at)
    ids = set(_store(seeded_store).documents_frame(as_of=NOW)["id"])
    assert "new_a" in ids and any(i.startswith("restart_runbook_") for i in ids)


def test_knowledge_graph_filter_and_node_details(seeded_store):
    at = _page("pages/knowledge_graph.py")
    _ok(at)
    assert len(at.get("plotly_chart")) == 1
    at.text_input(key="graph_query").input("rate limit policy").run()
    at.selectbox(key="graph_node").select("policy_v2").run()
    _ok(at)
    assert set(at.selectbox(key="graph_node").options) >= {"policy_v1 — API rate limit policy"}
    assert [s.value for s in at.subheader][:3] == ["Details", "Version chain", "A correction would ripple to"]
    chain = at.dataframe[1].value
    assert list(chain["id"]) == ["policy_v1", "policy_v2", "policy_v3"]


def test_tables_export_as_csv(seeded_store, monkeypatch):
    import pages._common as common

    exported: list[bytes] = []
    real = common.to_csv_bytes
    monkeypatch.setattr(common, "to_csv_bytes", lambda frame: exported.append(real(frame)) or exported[-1])
    at = _page("pages/freshness.py")
    at.multiselect(key="fresh_grades").select("A").select("B").run()
    _ok(at)
    at.download_button(key="fresh_csv").click().run()
    _ok(at)
    table = next(t for t in (pd.read_csv(io.BytesIO(b)) for b in reversed(exported)) if "advice" in t.columns)
    assert list(table.columns[:5]) == ["grade", "flag", "id", "title", "advice"]
    assert len(table) and set(table["grade"]) <= {"A", "B"}


def test_freshness_worklist_counts_agree_with_the_service_and_draws_curves_on_request(seeded_store):
    at = _page("pages/freshness.py")
    _ok(at)
    counts, documents = _table(at, "documents"), _table(at, "advice")
    report = _store(seeded_store).freshness(as_of=datetime.now(NOW.tzinfo))
    live = report[report["live"]]
    assert list(counts["grade"]) == ["A", "B", "C", "D", "F"]
    assert counts["documents"].sum() == len(documents) == len(live)
    assert list(documents["id"]) == list(live["id"])            # the service's order: most urgent first
    assert list(counts["documents"]) == [int((documents["grade"] == g).sum()) for g in "ABCDF"]
    assert documents["trust"].map(lambda v: round(v, 3) == v).all()
    assert f"**{len(live)} live documents**" in " ".join(m.value for m in at.markdown)
    assert not at.get("plotly_chart")
    at.toggle(key="fresh_curves_on").set_value(True).run()
    _ok(at)
    assert len(at.get("plotly_chart")) == 1
    at.toggle(key="fresh_all").set_value(True).run()
    assert len(_table(at, "advice")) == len(report)


def test_freshness_worklist_archives_and_pastes_a_new_version(seeded_store):
    at = _page("pages/freshness.py")
    top = _table(at, "advice")["id"].iloc[0]
    at.multiselect(key="fresh_pick").select(top).run()
    at.text_input(key="fresh_reason").input("out of date").run()
    at.button(key="fresh_archive").click().run()
    _ok(at)
    assert any(f"{top} archived" in s.value for s in at.success)
    assert top not in list(_table(at, "advice")["id"])
    sv = _store(seeded_store)
    assert sv.archived_documents(as_of=datetime.now(NOW.tzinfo))[top].reason == "out of date"

    at = _page("pages/freshness.py")
    at.multiselect(key="fresh_pick").select("policy_v3").run()
    form = "fresh_new_policy_v3"
    assert at.text_input(key=f"{form}_id").value == "policy_v4"
    assert at.text_input(key=f"{form}_title").value == "API rate limit policy"
    assert at.number_input(key=f"{form}_authority").value == 0.9
    at.text_area(key=f"{form}_text").input("From December 2026 the Larkspur API allows 800 requests a minute.")
    at.button[[b.label for b in at.button].index("Ingest as the new version")].click().run()
    _ok(at)
    assert any("policy_v4 now supersedes policy_v3" in s.value for s in at.success)
    rows = _store(seeded_store).freshness(as_of=datetime.now(NOW.tzinfo)).set_index("id")
    assert rows.loc["policy_v4", "live"] and not rows.loc["policy_v3", "live"]
    assert rows.loc["policy_v3", "superseded_by"] == "policy_v4"
    assert rows.loc["policy_v4", "trust"] == pytest.approx(0.9, abs=1e-3)   # the authority it replaced


def test_rejection_log_drilldown(seeded_store):
    at = _query(_app(), "rate limit policy")
    at.switch_page("pages/rejection_log.py").run()
    _ok(at)
    codes = at.selectbox(key="rej_code").options
    assert codes, "the query above rejects documents, so the page offers their codes"
    at.selectbox(key="rej_code").select(codes[0]).run()
    _ok(at)
    titles = [m.value.replace("\\_", "_") for m in at.markdown]   # titles are markdown-escaped
    assert any(f"Queries that rejected with {codes[0]}" in t for t in titles), titles
    assert any(f"Documents rejected with {codes[0]}" in t for t in titles), titles


def test_feedback_audit_form_events_and_tag(seeded_store):
    at = _page("pages/feedback_audit.py")
    _ok(at)
    at.selectbox(key="aud_fb_doc").select("policy_v2")
    at.radio(key="aud_fb_verdict").set_value("correct")
    at.text_input(key="aud_fb_query").input("q-audit")
    next(b for b in at.button if b.label == "Record feedback").click().run()
    _ok(at)
    assert any("correct recorded for policy_v2" in s.value for s in at.success)
    at.selectbox(key="aud_ev_doc").select("policy_v2").run()
    at.selectbox(key="aud_hist_doc").select("policy_v2").run()
    _ok(at)
    at.text_input(key="aud_tag_label").input("before-test")
    next(b for b in at.button if b.label == "Tag current versions").click().run()
    _ok(at)
    assert "before-test" in {label for t in _store(seeded_store).store.tags().values() for label in t}


def test_evaluation_runs_the_demo_benchmark(seeded_store):
    at = _page("pages/evaluation.py")
    _ok(at)
    next(b for b in at.button if b.label == "Run benchmark").click().run(timeout=180)
    _ok(at)
    result = at.session_state["eval_result"]
    assert set(result["profiles"]) == {"naive", "default"}
    assert at.dataframe[0].value["profile"].tolist() == ["naive", "default"]
    assert len(at.get("plotly_chart")) >= 2          # metric bars and the reliability diagram
    missed = pd.DataFrame(result["missed"])
    top1 = result["profiles"]["naive"]["top1"]
    naive_missed = missed[missed["profile"] == "naive"]
    assert len(naive_missed) == round((1 - top1) * result["profiles"]["naive"]["n"])   # the figure's misses
    at.selectbox(key="eval_missed_profile").select("naive").run()
    _ok(at)
    assert list(_table(at, "answered")["query_id"]) == list(naive_missed["query_id"])


def _csv_capture(monkeypatch) -> list[bytes]:
    import pages._common as common

    exported: list[bytes] = []
    real = common.to_csv_bytes
    monkeypatch.setattr(common, "to_csv_bytes", lambda frame: exported.append(real(frame)) or exported[-1])
    return exported


def test_query_lab_one_confidence_and_trust_in_card_table_and_csv(seeded_store, monkeypatch):
    exported = _csv_capture(monkeypatch)
    at = _query(_app())
    _ok(at)
    left = at.session_state["lab_responses"][0]
    first = left["results"][0]
    confidence, trust = views.share_text(first["confidence"]), views.share_text(first["trust"])
    card = [t.value for t in at.text if f"\nconfidence {confidence} (" in t.value]
    assert card and f"trust {trust}" in card[0]
    at.session_state["table_left"] = True                               # what opening the expander sets
    at.run()
    table = next(d.value for d in at.dataframe if "confidence_tier" in d.value.columns)
    assert f"{table.loc[0, 'confidence']:.3f}" == confidence and f"{table.loc[0, 'trust']:.3f}" == trust
    at.download_button(key="lab_res_left_csv").click().run()
    tables = [pd.read_csv(io.BytesIO(b)) for b in exported if b.startswith(b"rank,")]
    csv = next(t for t in tables if list(t["id"]) == list(table["id"]) and list(t["score"]) == list(table["score"]))
    assert csv.loc[0, "confidence"] == float(confidence) and csv.loc[0, "trust"] == float(trust)   # not 0.73449…


@pytest.mark.parametrize("question", ["What was the API rate limit as of March 2025?",
                                      "What was the API rate limit in March 2025?"])
def test_query_lab_card_shows_the_moment_the_question_implies(seeded_store, question):
    at = _query(_app(), question)
    _ok(at)
    naive, default = at.session_state["lab_responses"]          # naive reads no intent: judged as of as_of
    header = [t.value for t in at.text if t.value.startswith(f"query id {default['query_id']}")]
    assert header and "judged at 2025-03-31" in header[0] and "asked as of" in header[0]
    assert any(t.value == f"query id {naive['query_id']} · judged as of " + naive["as_of"][:10] + " "
               + naive["as_of"][11:16] + " UTC" for t in at.text)
    cards = [t.value for t in at.text if "at the moment judged" in t.value]
    assert cards and all("created after" in c or " old " in c for c in cards)


def test_query_lab_feedback_is_idempotent_undoable_and_refreshes_the_card(seeded_store):
    at = _query(_app())
    left = at.session_state["lab_responses"][0]
    first = left["results"][0]
    key = f"left_{first['rank']}"
    assert not [b for b in at.button if b.key == f"undo_{key}"]     # no verdict yet: nothing to undo
    at.button(key=f"accept_{key}").click().run()
    at.button(key=f"accept_{key}").click().run()          # twice: recorded once
    _ok(at)
    assert any("already recorded" in s.value for s in at.success)
    events = _store(seeded_store).events_frame(first["id"])
    assert int((events["event_type"] == "FEEDBACK_ACCEPT").sum()) == 1
    assert any(c.value == "Your verdict: accept" for c in at.caption)
    after = at.session_state["lab_responses"][0]["results"][0]["trust"]
    assert after == pytest.approx(_store(seeded_store).trust_of([first["id"]], as_of=NOW)[first["id"]], abs=0.05)
    assert any(f"trust {views.share_text(after)}" in t.value for t in at.text)   # the card shows the new trust
    at.button(key=f"undo_{key}").click().run()
    _ok(at)
    assert any("accept undone" in s.value for s in at.success)
    events = _store(seeded_store).events_frame(first["id"])
    assert set(events["event_type"]) >= {"FEEDBACK_ACCEPT", "FEEDBACK_UNDO"}      # appended, never deleted
    assert not any(c.value.startswith("Your verdict") for c in at.caption)
    assert not [b for b in at.button if b.key == f"undo_{key}"]


def test_query_lab_shows_the_abstention(seeded_store):
    at = _query(_app(), "asdf qwerty zxcv")
    _ok(at)
    responses = at.session_state["lab_responses"]
    abstained = [r for r in responses if r.get("abstained")]
    assert abstained, "the engine abstains on a question about nothing in the store"
    assert any(m.value == "**Nothing relevant in the store**" for m in at.markdown)
    sides = [side for r, side in zip(responses, ("left", "right"), strict=True) if r.get("abstained")]
    assert not [b for b in at.button if any(b.key.startswith(f"{v}_{s}_") for v in ("accept", "correct")
                                            for s in sides)]   # no verdict buttons on an abstention


def test_query_lab_reads_now_at_each_question_and_puts_the_answer_on_the_card(seeded_store):
    at = _query(_app())
    first_as_of = at.session_state["lab_responses"][0]["as_of"]
    at = _query(at, switch=False)
    assert at.session_state["lab_responses"][0]["as_of"] > first_as_of      # not frozen at the session start
    top = at.session_state["lab_responses"][1]["results"][0]
    assert any(views.answer_text(top) in t.value and "confidence" in t.value for t in at.text)
    assert not [t for t in at.text if "judged_at" in t.value]


def test_query_lab_verdict_history_undoes_an_earlier_question(seeded_store):
    at = _query(_app())
    first = at.session_state["lab_responses"][0]["results"][0]
    earlier = at.session_state["lab_responses"][0]["query_id"]
    at.button(key=f"correct_left_{first['rank']}").click().run()
    at = _query(at, switch=False)                                      # asked again: a new query id
    again = at.session_state["lab_responses"][0]
    card = next(r for r in again["results"] if r["id"] == first["id"])
    at.session_state["history_left"] = True
    at.run()
    rows = [t.value for t in at.text if t.value.startswith(f"{card['id']}: correct · query ")]
    assert len(rows) == 1 and earlier in rows[0] and "(this question)" not in rows[0]
    at.button(key="hist_undo_left_0").click().run()
    _ok(at)
    flash = next(s.value for s in at.success if "correct undone" in s.value)
    message_trust = flash.rsplit("→ ", 1)[1]
    shown = next(r for r in at.session_state["lab_responses"][0]["results"] if r["id"] == first["id"])
    assert views.share_text(shown["trust"]) == message_trust              # the card and the message: one read
    assert not _store(seeded_store).verdict_history(first["id"], "dashboard")


def test_tables_have_titles_and_wrap_their_reasons(seeded_store):
    at = _query(_app(), "rate limit policy")
    _ok(at)
    titles = [m.value for m in at.markdown if m.value.startswith("**")]
    assert not any(t.startswith("**Rejected") for t in titles)        # closed: the rejections are not sent
    at.session_state["rejected_left"] = at.session_state["table_left"] = True   # what opening them sets
    at.run()
    _ok(at)
    titles = [m.value for m in at.markdown if m.value.startswith("**")]
    assert any(t.startswith("**Rejected") for t in titles) and any(t.startswith("**Results") for t in titles)
    assert len([d for d in at.dataframe]) <= len(titles) + 2      # the intent tables sit in titled expanders


def test_knowledge_graph_labels_arrows_and_focus(seeded_store):
    at = _page("pages/knowledge_graph.py")
    _ok(at)
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    nodes = [t for t in fig["data"] if t.get("mode") == "markers+text"]
    labels = [x for t in nodes for x in t["text"]]
    by_id = {c: x for t in nodes for c, x in zip(t["customdata"], t["text"], strict=True)}
    chain = [by_id[d] for d in ("policy_v1", "policy_v2", "policy_v3")]
    assert all(lab.startswith("API rate") for lab in chain) and len(set(chain)) == 3   # same title, told apart
    assert len(labels) == len(set(labels)) and all(0 < len(lab.replace("<br>", " ")) <= 64 for lab in labels)
    assert all(len(line) <= 24 for lab in labels for line in lab.split("<br>"))   # wrapped on the node
    assert by_id["incident_2026_09_eu"].replace("<br>", " ") == "Incident: elevated 5xx errors in the EU region"
    hover = {c: h for t in nodes for c, h in zip(t["customdata"], t["hovertext"], strict=True)}
    assert "Incident review: EU region 5xx errors on 3 September" in hover["incident_review_2026_09"].replace(
        "<br>", " ")                                                   # the full title in the hover
    arrows = [t for t in fig["data"] if t.get("marker", {}).get("symbol") == "arrow"]
    assert arrows and any("supersedes" in t["name"] for t in arrows)
    assert "hostile_doc" not in {c for t in fig["data"] for c in (t.get("customdata") or [])}   # isolated: hidden
    at.selectbox(key="graph_node").select("policy_v2").run()
    _ok(at)
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    lit = {c for t in fig["data"] if t.get("mode") == "markers+text"
           for c, o in zip(t["customdata"], t["marker"]["opacity"], strict=True) if o == 1.0}
    assert {"policy_v1", "policy_v2", "policy_v3"} <= lit and len(lit) < len(labels)
    relations = _table(at, "edge_type")
    assert len(relations) and set(relations["src"]) | set(relations["dst"]) <= lit   # the table is the focus's


def test_rejection_log_picker_names_the_profile_and_opens_on_rejections(seeded_store):
    at = _query(_app(), "What was the API rate limit in March 2025?")
    at.switch_page("pages/rejection_log.py").run()
    _ok(at)
    picker = at.selectbox(key="rej_query")
    assert all(" · naive · " in o or " · default · " in o for o in picker.options)
    assert not picker.options[picker.index].endswith(" 0 rejected")


def test_overview_shows_no_raw_dicts_and_filters_access_out(seeded_store):
    _query(_app())
    at = _app()
    _ok(at)
    assert not any("{" in c.value for c in at.code)
    events = next(d.value for d in at.dataframe if "event_type" in d.value.columns)
    assert len(events) and "ACCESS" not in set(events["event_type"])
    assert "ACCESS" not in at.multiselect(key="ov_event_types").value
    versions = next(d.value for d in at.dataframe if "version" in d.value.columns)
    assert set(versions["table"]) >= {"chunks", "events"}


def test_ingest_shows_counts_consolidation_and_consolidate_now(seeded_store):
    at = _page("pages/ingest.py")
    good = json.dumps({"id": "new_a", "text": "alpha beta", "title": "A"}).encode()
    at.file_uploader(key="upload_files").set_value([("batch.jsonl", good, "application/json")]).run()
    at.button(key="ingest_upload").click().run()
    _ok(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["added"] == "1" and "chunks embedded" in metrics and "chunks reused" in metrics
    assert any(m.value == "**What consolidation found**" for m in at.markdown)
    at.button(key="ingest_upload").click().run()                         # the same again: nothing new
    _ok(at)
    assert {m.label: m.value for m in at.metric}["unchanged"] == "1"
    at.button(key="ingest_consolidate").click().run()
    _ok(at)
    assert any(m.value == "**What consolidation found**" for m in at.markdown)


def test_ingest_json_errors_list_every_line_once_worded(seeded_store):
    at = _page("pages/ingest.py")
    bad = b'{"id": "a", "text": "unterminated\n{"id": "b", "text": "ok"}\n[1]\n'
    at.file_uploader(key="upload_files").set_value([("bad.jsonl", bad, "application/json")]).run()
    assert at.error and "2 problem(s)" in at.error[0].value and "Nothing was written" in at.error[0].value
    problems = next(d.value for d in at.dataframe if "message" in d.value.columns)
    assert list(problems["where"]) == ["bad.jsonl:1", "bad.jsonl:3"]
    assert not problems["message"].str.findall(r"\b(\w+) \1\b").str.len().any()   # no doubled words


def test_feedback_audit_trust_table_newest_first_and_undo(seeded_store):
    at = _page("pages/feedback_audit.py")
    at.selectbox(key="aud_fb_doc").select("policy_v2")
    at.radio(key="aud_fb_verdict").set_value("accept")
    next(b for b in at.button if b.label == "Record feedback").click().run()
    at.radio(key="aud_fb_verdict").set_value("undo")
    next(b for b in at.button if b.label == "Record feedback").click().run()
    _ok(at)
    assert any("accept undone for policy_v2" in s.value for s in at.success)
    at.selectbox(key="aud_hist_doc").select("policy_v2").run()
    _ok(at)
    series = next(d.value for d in at.dataframe if "trust" in d.value.columns and "at" in d.value.columns)
    assert series["at"].is_monotonic_decreasing


def test_review_queue_preselects_nothing_confirms_refreshes_and_undoes(seeded_store):
    at = _page("pages/feedback_audit.py")
    _ok(at)
    assert at.selectbox(key="aud_fb_doc").value is None and at.radio(key="aud_fb_verdict").value is None
    sv = _store(seeded_store)
    sv.ingest_records([
        {"id": "kb_a", "text": "Password resets are allowed for contractors.", "source": "wiki", "authority": 0.4,
         "created_at": "2026-11-01T00:00:00Z", "doc_type": "reference", "kind": "STATIC"},
        {"id": "kb_b", "text": "Password resets are not allowed for contractors.", "source": "security",
         "authority": 0.9, "created_at": "2026-11-02T00:00:00Z", "doc_type": "reference", "kind": "STATIC"}], now=NOW)
    queue = sv.review_queue()
    assert len(queue), "the pair above contradicts"
    at.run()
    edge = queue["edge_id"].iloc[0]
    assert at.selectbox(key="aud_edge").value is None
    at.sidebar.text_input(key="actor_name_input").input("Ana").run()
    at.selectbox(key="aud_edge").select(edge).run()
    radio = at.radio(key=f"aud_resolution_{edge}")
    assert radio.value is None and not [b for b in at.button if b.key == "aud_resolve"]
    src, dst = queue["src"].iloc[0], queue["dst"].iloc[0]
    shown = " ".join(c.value for c in at.caption)
    assert f"{src} · source" in shown and f"{dst} · source" in shown and "trust" in shown
    radio.set_value(f"Keep {src}, correct {dst}").run()
    assert at.checkbox(key=f"aud_confirm_kept_{edge}").value is False
    at.button(key="aud_resolve").click().run()
    _ok(at)
    assert any("Resolved" in s.value for s in at.success)
    assert edge not in set(_store(seeded_store).review_queue()["edge_id"])
    assert not [b for b in at.selectbox if b.key == "aud_edge" and edge in b.options]   # refreshed at once
    events = _store(seeded_store).events_frame(src)
    assert not len(events[(events["event_type"] == "FEEDBACK_ACCEPT") & (events["query_id"] == f"review:{edge}")])
    assert set(events.loc[events["event_type"] == "REVIEW", "actor"]) == {"Ana"}
    at.button(key="aud_review_undo").click().run()
    _ok(at)
    assert edge in set(_store(seeded_store).review_queue()["edge_id"])


def test_guided_demo_asks_both_profiles_and_says_why(seeded_store):
    at = _page("pages/demo.py")
    _ok(at)
    at.button(key="demo_ask_2").click().run()
    _ok(at)
    shown = at.session_state["demo_answer_2"]
    assert shown["naive"] and shown["default"] and shown["why"]
    assert any(m.value == "**naive answers**" for m in at.markdown) and any(i.value.startswith("Why: ") for i in at.info)
