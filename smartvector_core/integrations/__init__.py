"""Adapters for RAG frameworks (each depends only on that framework's core package)."""
