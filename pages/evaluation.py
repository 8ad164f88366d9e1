"""Evaluation: the benchmark on the demo queries or the paper suite, per profile."""

import streamlit as st

from pages._common import page_setup, service, show_figure, show_table, shown_errors
from smartvector_core.evaluation import ALL_PROFILES, page_benchmark
from smartvector_core.ui import charts, views

page_setup()
st.title("Evaluation")

with st.form("eval_form"):
    suite = st.radio("Benchmark", ["demo", "paper"], horizontal=True, key="eval_suite",
                     format_func={"demo": "Demo corpus and queries", "paper": "Paper suite (held-out split)"}.get)
    profiles = st.multiselect("Profiles", list(ALL_PROFILES),
                              default=["naive", "default"], key="eval_profiles")
    c1, c2 = st.columns(2)
    ablations = c1.checkbox("Ablations (paper suite)", key="eval_ablations")
    sweep = c2.checkbox("Weight sweep (paper suite; slow)", key="eval_sweep_on")
    go = st.form_submit_button("Run benchmark", type="primary")

def on_progress(bar, step: str, done: int, total: int) -> None:
    """Per step of the run: the bar moves, and the place is remembered (a click on "Stop" ends the
    run at the next step; the temporary benchmark stores are removed on the way out)."""
    st.session_state["eval_progress"] = {"step": step, "done": done, "total": total}
    bar.progress(min(done / max(total, 1), 1.0), text=f"{step}: {done} of {total}" if total > 1 else step)


if go:
    st.session_state.pop("eval_progress", None)
    st.session_state["eval_running"] = True
    with shown_errors("Benchmark"), st.status("Running the benchmark in a temporary store…", expanded=True) as status:
        st.button("Stop", key="eval_stop", help="Stops the run cleanly at the next step; nothing is kept")
        bar = st.progress(0.0, text="building the benchmark store (ingest, consolidation)")
        result = page_benchmark(service().embedder, suite, profiles, ablations=ablations, sweep=sweep,
                                progress=lambda step, done, total: on_progress(bar, step, done, total))
        bar.progress(1.0, text="done")
        if result is not None:
            st.session_state["eval_result"] = result
            status.update(label="Benchmark done", state="complete")
    st.session_state["eval_running"] = False
elif st.session_state.get("eval_running"):     # the run was interrupted by "Stop"
    st.session_state["eval_running"] = False
    where = st.session_state.get("eval_progress") or {}
    st.warning("Benchmark stopped" + (f" during {where['step']} ({where['done']} of {where['total']} steps done)"
                                      if where else "") + ". Nothing was kept; the temporary stores were removed.")

result = st.session_state.get("eval_result")
if result:
    with shown_errors("Showing the benchmark"):
        metrics = views.metrics_frame(result)
        st.subheader("Metrics per profile")
        show_table(metrics.reset_index(), key="eval_metrics", file_name="metrics.csv", title="Metrics per profile")
        show_figure(charts.metric_bars(metrics), key="eval_bars")
        missed = views.as_frame(result.get("missed"))
        if len(missed):     # the top-1 bars' misses, per profile (demo and paper suite alike)
            counts = missed["profile"].value_counts()
            chosen = st.selectbox("Questions a profile got wrong at rank 1", list(counts.index), index=None,
                                  key="eval_missed_profile", placeholder="Choose a profile",
                                  format_func=lambda p: f"{p} ({counts[p]} wrong)")
            if chosen:
                wrong = missed[missed["profile"] == chosen].drop(columns=["profile"])
                by_type = (" · by type: " + ", ".join(f"{t} {n}" for t, n in wrong["type"].value_counts().items())
                           if "type" in wrong.columns else "")
                show_table(wrong, key="eval_missed", file_name=f"missed_{chosen}.csv", wrap=("question",),
                           title=f"{len(wrong)} question(s) {chosen} answered wrongly at rank 1 "
                                 f"({int(wrong['stale'].sum())} with a stale version){by_type}")
        curves = result.get("reliability") or result.get("calibration") or {}
        st.subheader("Calibration")
        if curves:
            show_figure(charts.reliability_diagram({p: views.as_frame(c) for p, c in curves.items()}), key="eval_rel")
        else:
            st.info("Reliability bins come with the demo benchmark (the paper runner reports ECE only).")
        st.subheader("Ablations")
        ablations = views.flatten_nested(views.as_frame(result.get("ablations")))
        if len(ablations):
            show_figure(charts.ablation_bars(ablations), key="eval_ablation")
            show_table(ablations, key="eval_ablation", file_name="ablations.csv",
                       title="Ablations: metrics per variant and per question type")
        else:
            st.info("Run the paper suite with \"Ablations\" ticked to see them.")
        st.subheader("Weight sweep")
        raw_sweep = result.get("sweep") or {}
        sweep = views.as_frame(raw_sweep.get("points") if isinstance(raw_sweep, dict) else raw_sweep)
        if len(sweep) and "scorer" in sweep.columns:
            scorer = st.selectbox("Scorer", sorted(sweep["scorer"].unique()), key="eval_scorer")
            sweep = sweep[sweep["scorer"] == scorer]
        if len(sweep):
            axes = [c for c in sweep.columns if c in ("semantic", "temporal", "confidence", "relational")]
            x = st.selectbox("x", axes, index=0, key="eval_x") if axes else None
            y = st.selectbox("y", axes, index=min(1, len(axes) - 1), key="eval_y") if axes else None
            z = st.selectbox("metric", [c for c in ("top1", "stale_at_1", "ece") if c in sweep.columns], key="eval_z")
            if x and y and z:
                show_figure(charts.sweep_heatmap(sweep, x, y, z), key="eval_sweep")
            show_table(sweep, key="eval_sweep", file_name="weight_sweep.csv", title="Weight sweep points")
        else:
            st.info("Run the paper suite with \"Weight sweep\" ticked to see it.")

st.subheader("Confidence against operators' verdicts")
with shown_errors("Reading the feedback"):
    verdicts = service().feedback_reliability()
    if verdicts["n"]:
        st.caption(views.verdicts_line(verdicts))
        for warning in verdicts.get("warnings") or []:
            st.warning(warning)
        show_figure(charts.reliability_diagram({p: views.as_frame(v["bins"]) for p, v in verdicts["by_profile"].items()}),
                    key="eval_feedback_rel")
    else:
        st.info("No accept/correct feedback on logged answers yet (Query Lab buttons record it with the query id).")
