"""Reading, validating, chunking and writing documents."""

from .parse import read_records
from .pipeline import IngestReport, ingest_documents
from .validate import validate_records

__all__ = ["IngestReport", "ingest_documents", "read_records", "validate_records"]
