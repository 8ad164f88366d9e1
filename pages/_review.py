"""The review queue of Feedback & Audit: one contradiction at a time, both sides side by side,
nothing chosen until the operator chooses, a confirmation step, and an undo."""

from __future__ import annotations

import streamlit as st

from pages._common import actor_name, require_write, shown_errors, text_block, utc_now
from smartvector_core.ui import views

DONE = "aud_review_done"     # the last resolution's message, shown once after the rerun
LAST = "aud_review_last"     # the edge it resolved (its undo)
UNDOABLE = ("keep_both", "keep_src", "keep_dst")


def _resolutions(a: str, b: str) -> dict[str, str]:
    return {f"Keep {a}, correct {b}": "keep_src", f"Keep {b}, correct {a}": "keep_dst",
            "Keep both (not a real contradiction)": "keep_both",
            f"{a} supersedes {b} (archives {b})": "supersede_dst", f"{b} supersedes {a} (archives {a})": "supersede_src"}


def _side(column, side: dict) -> None:
    with column:
        st.markdown(f"**{views.escape_markdown(side['title'] or side['id'])}**")
        st.caption(f"{side['id']} · source {side['source'] or '(none)'} · trust {views.share_text(side['trust'])} · "
                   f"written {(side['created_at'] or 'undated')[:10]} · {side['doc_type'] or 'general'} · "
                   f"{side['lifecycle']}")
        text_block(side["text"])


def _undo(sv) -> None:
    last = st.session_state.get(LAST)
    if not last or not st.button(f"Undo: reopen {last['label']}", key="aud_review_undo"):
        return
    if require_write("Undoing a resolution"):
        with shown_errors("Undo"):
            sv.reopen_contradiction(last["edge"], now=utc_now(), actor=actor_name())
            st.session_state.pop(LAST, None)
            st.session_state[DONE] = f"Reopened {last['label']}: its verdicts are undone and it is back in the queue"
            st.rerun()


def review_queue(sv) -> None:
    if DONE in st.session_state:
        st.success(st.session_state.pop(DONE))
    _undo(sv)
    queue = sv.review_queue()
    if queue.empty:
        st.info("No open contradictions.")
        return
    st.caption(f"{len(queue)} open contradiction(s). Choose one to read both sides.")
    labels = {e: f"{s} ⟷ {d}" for e, s, d in zip(queue["edge_id"], queue["src"], queue["dst"], strict=True)}
    edge = st.selectbox("Contradiction", list(labels), index=None, format_func=labels.get, key="aud_edge",
                        placeholder="Choose a contradiction to review")
    if not edge:
        return
    evidence = queue.loc[queue["edge_id"] == edge, "evidence"].iloc[0]
    st.caption(f"Why they disagree: {evidence}")
    first, second = sv.contradiction_sides(edge, as_of=utc_now())
    left, right = st.columns(2)
    _side(left, first)
    _side(right, second)
    options = _resolutions(first["id"], second["id"])
    choice = st.radio("Resolution", list(options), index=None, key=f"aud_resolution_{edge}")
    if choice is None:
        return
    resolution = options[choice]
    also = False
    if resolution in ("keep_src", "keep_dst"):
        kept = first["id"] if resolution == "keep_src" else second["id"]
        also = st.checkbox(f"Also confirm {kept} (records an accept verdict on it)", key=f"aud_confirm_kept_{edge}")
    st.warning(f"This will: {choice.lower()}{' and accept the kept one' if also else ''}. "
               f"{'It can be undone here.' if resolution in UNDOABLE else 'A supersession is undone by restore.'}")
    if st.button(f"Confirm: {choice}", key="aud_resolve", type="primary") and require_write("Resolving a contradiction"):
        with shown_errors("Resolving"):
            sv.resolve_contradiction(edge, resolution, now=utc_now(), actor=actor_name(), confirm_kept=also)
            st.session_state[DONE] = f"Resolved {labels[edge]}: {choice.lower()}"
            if resolution in UNDOABLE:
                st.session_state[LAST] = {"edge": edge, "label": labels[edge]}
            st.rerun()
