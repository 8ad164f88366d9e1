"""Guided demo: why naive RAG fails, in a few clicks. Each preset question is asked of ``naive``
and ``default`` over the demo corpus; the page shows both answers and why they differ."""

import streamlit as st

from pages._common import page_setup, service, shown_errors, text_block, utc_now
from smartvector_core.ui import demo, views

page_setup()
st.title("Guided demo")
st.caption("Load the demo corpus on the Overview first. Each step asks one question of naive RAG (cosine only) "
           "and of the default profile, now (the question itself may name another moment).")
sv = service()


def show_side(column, name: str, answer: dict | None) -> None:
    with column, st.container(border=True):
        st.markdown(f"**{name}**")
        if answer is None:
            st.text("Nothing relevant in the store")
            return
        st.text(f"{answer['title']}\nid {answer['id']} · {answer['validity_state']} · written {answer['created_at']}\n"
                f"confidence {views.share_text(answer['confidence'])} · trust {views.share_text(answer['trust'])}")
        text_block(answer["text"])


for i, step in enumerate(demo.DEMO_STEPS, start=1):
    st.subheader(f"{i}. {step.title}")
    st.markdown(f"*{views.escape_markdown(step.question)}*")
    if st.button("Ask both", key=f"demo_ask_{i}"):
        with shown_errors("Demo question"), st.spinner("Asking naive and default…"):
            naive, default = sv.compare(step.question, ("naive", "default"), as_of=utc_now())
            st.session_state[f"demo_answer_{i}"] = demo.contrast(naive.to_dict(), default.to_dict())
    shown = st.session_state.get(f"demo_answer_{i}")
    if shown:
        left, right = st.columns(2)
        show_side(left, "naive answers", shown["naive"])
        show_side(right, "default answers", shown["default"])
        st.info(f"Why: {shown['why']}")
        st.caption(step.point)
