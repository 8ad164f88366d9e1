"""Streamlit-side helpers shared by every page: the cached service, the clock, the operator
token, error display, one figure renderer and one table renderer (with CSV export).

The pages import this as ``pages._common``; the repository root is on ``sys.path`` because
``app.py`` lives there. Nothing in ``smartvector_core`` imports this module.
"""

from __future__ import annotations

import dataclasses
import runpy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pandas as pd
import streamlit as st

from smartvector_core.clock import ensure_utc
from smartvector_core.clock import now as clock_now
from smartvector_core.service import SmartVector
from smartvector_core.settings import Settings, load_settings, token_allows
from smartvector_core.ui.views import escape_markdown, table_safe, to_csv_bytes

APP = Path(__file__).resolve().parent.parent / "app.py"
TOKEN_KEY = "operator_token_input"   # the sidebar widget
TOKEN_STATE = "operator_token"        # what it last held (a plain key: survives page switches)


def page_setup() -> None:
    """Make ``app.py`` the router even though the pages live in a folder named ``pages/``.

    Streamlit treats a ``pages/`` folder beside the main script as a v1 multipage app until
    ``st.navigation`` has run: a first request straight to ``/query_lab`` (and every AppTest
    run) then executes the page file alone, without ``app.py``: no page config, no sidebar,
    every file of the folder listed as a page. Each page calls this first; in that situation
    it switches the process to ``st.navigation`` mode, runs ``app.py`` in place (which routes
    back to this same page and renders it once) and stops. No rerun: a pending button click
    survives.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the v1 fallback
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()


@st.cache_resource(show_spinner="Opening the store…")
def _service(store_uri: str, model_name: str, options: tuple[tuple[str, str], ...]) -> SmartVector:
    """One SmartVector (store + model) per store, model and storage options, for the process.

    The Store opens LanceDB with ``read_consistency_interval`` 0, so every read sees the writes
    of other sessions and of the CLI. The query log and access events are written by a
    background thread (``SmartVector.write_log_in_background``; every read settles them first).
    The query path is warmed here (``SmartVector.warm``: model, knowledge state, calibration, the
    chunks' in-memory copy), behind the spinner, so no question pays for it.
    """
    settings = dataclasses.replace(load_settings(store_uri), model_name=model_name, storage_options=dict(options))
    sv = SmartVector(settings)
    sv.write_log_in_background()   # a question never waits for the query log's LanceDB commits
    sv.keep_consolidation_inputs()   # an editor's next paste consolidates from a warm cache
    sv.warm(as_of=utc_now())     # the first question does not pay for the store's caches
    return sv


def settings() -> Settings:
    return load_settings()


def service() -> SmartVector:
    s = settings()
    return _service(s.store_uri, s.model_name, tuple(sorted(s.storage_options.items())))


def utc_now() -> datetime:
    """The page reads the clock here; the engine never does."""
    return clock_now()


def as_utc(moment: datetime) -> datetime:
    """A picker's naive date-time, read as UTC."""
    return ensure_utc(moment)


# ------------------------------------------------------------------------------ operator
def operator_token() -> str | None:
    """The token from ``SMARTVECTOR_OPERATOR_TOKEN``, else from Streamlit secrets, else None."""
    token = settings().operator_token
    if token:
        return token
    try:
        value = st.secrets.get("SMARTVECTOR_OPERATOR_TOKEN")
    except Exception:  # no secrets file: viewing stays open and writing needs no token
        return None
    return str(value) if value else None


def write_allowed() -> bool:
    return token_allows(operator_token(), st.session_state.get(TOKEN_STATE))


def _remember_token() -> None:
    st.session_state[TOKEN_STATE] = st.session_state.get(TOKEN_KEY) or ""


DEFAULT_ACTOR = "dashboard"          # the audit's actor when the operator gives no name
ACTOR_KEY = "actor_name_input"       # the sidebar widget
ACTOR_STATE = "actor_name"           # what it last held (a plain key: survives page switches)


def actor_name() -> str:
    """The one actor name of this session, written on every event a page records."""
    return " ".join(str(st.session_state.get(ACTOR_STATE) or "").split()) or DEFAULT_ACTOR


def _remember_actor() -> None:
    st.session_state[ACTOR_STATE] = st.session_state.get(ACTOR_KEY) or ""


def actor_sidebar() -> None:
    """The "your name" field: the actor of every verdict, archive and resolution of this session."""
    if ACTOR_KEY not in st.session_state:
        st.session_state[ACTOR_KEY] = st.session_state.get(ACTOR_STATE, "")
    st.sidebar.text_input("Your name (recorded in the audit)", key=ACTOR_KEY, on_change=_remember_actor,
                          placeholder=DEFAULT_ACTOR, max_chars=80)


def token_sidebar() -> None:
    """The operator-token field (only shown when a token is configured)."""
    if not operator_token():
        return
    st.sidebar.text_input("Operator token", type="password", key=TOKEN_KEY, on_change=_remember_token,
                          help="Write actions (ingest, feedback, consolidate, restore) need it.")
    if write_allowed():
        st.sidebar.success("Write actions unlocked")
    else:
        st.sidebar.info("Read-only: enter the operator token to write")


def require_write(action: str) -> bool:
    """True when ``action`` may write; otherwise says why (never raises)."""
    if write_allowed():
        return True
    st.warning(f"{action} needs the operator token: enter it in the sidebar.")
    return False


# -------------------------------------------------------------------------------- errors
@contextmanager
def shown_errors(action: str) -> Iterator[None]:
    """Show a failure as ``st.error(message)``, never as a traceback."""
    try:
        yield
    except Exception as exc:  # st.stop / st.rerun are BaseExceptions and pass through
        message = str(exc) or type(exc).__name__
        st.error(f"{action} failed: {message}")


# ------------------------------------------------------------------------------ rendering
def show_figure(fig, *, key: str | None = None, config: dict | None = None, **kwargs):
    """The one place figures are drawn (``config``: Plotly options over ``displaylogo: False``)."""
    return st.plotly_chart(fig, width="stretch", key=key, config={"displaylogo": False, **(config or {})}, **kwargs)


WRAPPED_ROW_HEIGHT = 64   # px: three lines of a long reason wrap inside their cell
#: Above this many rows a table is sent to the browser in pages, as the operator scrolls or
#: sorts (``st.dataframe(lazy=True)``), and its CSV is built when the button is clicked.
EAGER_ROWS = 2_000


def show_table(frame: pd.DataFrame, *, key: str, file_name: str, title: str, height: int | str = "auto",
               column_config: dict | None = None, wrap: Sequence[str] = (), select: bool = False):
    """A titled table (cells as plain text, never HTML) and its CSV download button.

    ``wrap``: long-text columns (reasons) drawn wide with rows tall enough for their text to
    wrap; the full text also shows when a cell is opened (double click) and in the CSV. A table
    of more than :data:`EAGER_ROWS` rows loads lazily and builds its CSV on the click. ``select``:
    rows can be ticked (several); returns the table's selection state (``.selection.rows``).
    """
    safe = table_safe(frame)
    st.markdown(f"**{escape_markdown(title)}**")
    config = dict(column_config or {})
    wrapped = [c for c in wrap if c in safe.columns]
    for column in wrapped:
        config.setdefault(column, st.column_config.TextColumn(column, width="large"))
    large = len(safe) > EAGER_ROWS
    options = {"selection_mode": "multi-row", "on_select": "rerun", "key": f"{key}_table"} if select else {}
    event = st.dataframe(safe, hide_index=True, height=height, column_config=config or None,
                         row_height=WRAPPED_ROW_HEIGHT if wrapped else None, lazy=True if large else None, **options)
    st.download_button("Download CSV", data=(lambda: to_csv_bytes(safe)) if large else to_csv_bytes(safe),
                       file_name=file_name, mime="text/csv", key=f"{key}_csv", on_click="ignore",
                       disabled=frame.empty)
    return event


def show_counts(counts: pd.DataFrame, *, key: str, title: str, file_name: str, column: str = "documents") -> None:
    """A small titled table of counts (one row per category) with a bar in each ``column`` cell,
    on one scale from 0 to the largest count (lighter to draw than a chart)."""
    top = max(1, int(counts[column].max())) if len(counts) else 1
    show_table(counts, key=key, file_name=file_name, title=title, column_config={
        column: st.column_config.ProgressColumn(column, min_value=0, max_value=top, format="%d")})


def text_block(text: object) -> None:
    """User text (titles, document text), always shown as literal text."""
    st.text("" if text is None else str(text))
