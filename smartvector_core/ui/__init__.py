"""Page-side helpers of the dashboard that do not need Streamlit.

- :mod:`.charts`: pure chart builders, explicit arguments in, a ``plotly.graph_objects.Figure`` out.
- :mod:`.views`: pure view-model functions (filters, tables, layouts, validation previews).

Nothing here imports streamlit; the pages under ``pages/`` do the widgets and the rendering.
"""
