"""HTTP API over a SmartVector store (FastAPI): ``python -m smartvector_core serve``."""

from .app import create_app, serve

__all__ = ["create_app", "serve"]
