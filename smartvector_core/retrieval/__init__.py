"""The query path in stages, and its scoring profiles: :mod:`.search` (``retrieve``: vector and
full-text search, :class:`.full_text.FullText`) -> :mod:`.rerank` (``rerank``) -> :mod:`.confidence`
(``abstention``, ``result_confidence``) -> :mod:`.explain` (``build_results``, ``build_rejections``),
ordered by :mod:`.pipeline` (``run_query``, ``answer``); the caches over a knowledge state:
:class:`.query_cache.QueryCache`."""

from .pipeline import QueryRequest, answer, run_query
from .profiles import PROFILES, Profile, get_profile
from .query_cache import QueryCache
from .search import retrieve

__all__ = ["PROFILES", "Profile", "QueryCache", "QueryRequest", "answer", "get_profile", "retrieve", "run_query"]
