"""Evaluation: the benchmark on the demo queries or the paper suite, per profile."""

import inspect

import streamlit as st

from pages._common import missing, page_setup, show_figure, show_table, shown_errors
from smartvector_core import evaluation
from smartvector_core.retrieval import PROFILES
from smartvector_core.ui import charts, views

page_setup()
st.title("Evaluation")
run_bench = getattr(evaluation, "run_bench", None)

with st.form("eval_form"):
    suite = st.radio("Benchmark", ["demo", "paper"], horizontal=True, key="eval_suite",
                     format_func={"demo": "Demo queries", "paper": "Paper suite (held-out split)"}.get)
    profiles = st.multiselect("Profiles", list(PROFILES), default=["naive", "default"], key="eval_profiles")
    go = st.form_submit_button("Run benchmark", type="primary")

if run_bench is None:
    missing("The benchmark runner (smartvector_core.evaluation.run_bench)")
elif go:
    with shown_errors("Benchmark"), st.status("Running the benchmark…", expanded=True) as status:
        bar = st.progress(0.0)
        wanted = {"suite": suite, "profiles": profiles,
                  "progress": lambda done, total: bar.progress(min(done / max(total, 1), 1.0))}
        accepted = inspect.signature(run_bench).parameters
        result = run_bench(**{k: v for k, v in wanted.items() if k in accepted})
        st.session_state["eval_result"] = result if isinstance(result, dict) else getattr(result, "to_dict", dict)()
        status.update(label="Benchmark done", state="complete")

result = st.session_state.get("eval_result")
if result:
    with shown_errors("Showing the benchmark"):
        metrics = views.metrics_frame(result)
        st.subheader("Metrics per profile")
        show_table(metrics.reset_index(), key="eval_metrics", file_name="metrics.csv")
        show_figure(charts.metric_bars(metrics), key="eval_bars")
        curves = result.get("reliability") or result.get("calibration") or {}
        st.subheader("Calibration")
        if curves:
            show_figure(charts.reliability_diagram({p: views.as_frame(c) for p, c in curves.items()}), key="eval_rel")
        else:
            missing("Reliability bins in the benchmark output")
        st.subheader("Ablations")
        ablations = views.as_frame(result.get("ablations"))
        if len(ablations):
            show_figure(charts.ablation_bars(ablations), key="eval_ablation")
            show_table(ablations, key="eval_ablation", file_name="ablations.csv")
        else:
            missing("Ablations in the benchmark output")
        st.subheader("Weight sweep")
        sweep = views.as_frame(result.get("sweep") or result.get("weight_sweep"))
        if len(sweep):
            axes = [c for c in sweep.columns if c in ("semantic", "temporal", "confidence", "relational")]
            x = st.selectbox("x", axes, index=0, key="eval_x") if axes else None
            y = st.selectbox("y", axes, index=min(1, len(axes) - 1), key="eval_y") if axes else None
            z = st.selectbox("metric", [c for c in ("top1", "stale_at_1", "ece") if c in sweep.columns], key="eval_z")
            if x and y and z:
                show_figure(charts.sweep_heatmap(sweep, x, y, z), key="eval_sweep")
            show_table(sweep, key="eval_sweep", file_name="weight_sweep.csv")
        else:
            missing("The weight sweep in the benchmark output")
