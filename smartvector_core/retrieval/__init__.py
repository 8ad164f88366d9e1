"""The query pipeline and its scoring profiles."""

from .pipeline import QueryRequest, run_query
from .profiles import PROFILES, Profile, get_profile

__all__ = ["PROFILES", "Profile", "QueryRequest", "get_profile", "run_query"]
