"""Reading corpus files into raw records: JSON Lines, Markdown/text with YAML front matter, PDF.

Each raw record is a dict of CONTRACT.md fields plus ``_origin`` ("FILE:LINE"). Nothing here
validates field values (see :mod:`.validate`); this module only turns bytes into dicts and
reports unreadable input as :class:`InputError` naming the file and line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text"}
JSONL_SUFFIXES = {".jsonl", ".ndjson", ".json"}
PDF_SUFFIXES = {".pdf"}
MAX_JSON_DEPTH = 32
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*\r?\n?", re.S)


def _depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    stack = [(value, 1)]
    deepest = 0
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return deepest


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    if not path.exists():
        raise InputError("no such file", file=str(path))
    if not path.is_file():
        raise InputError("not a regular file", file=str(path))
    size = path.stat().st_size
    if size > max_bytes:
        raise InputError(f"file is {size} bytes, over the limit of {max_bytes} bytes "
                         "(SMARTVECTOR_MAX_FILE_BYTES)", file=str(path))
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=str(path)) from None


def _decode(data: bytes, name: str) -> str:
    if b"\x00" in data[:8192]:
        raise InputError("binary content (NUL bytes) in a text file", file=name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                         file=name, line=line) from None


def parse_jsonl(text: str, name: str, *, max_line_bytes: int) -> Iterator[dict[str, Any]]:
    """One dict per non-blank line; each gets ``_origin``."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(line.encode("utf-8")) > max_line_bytes:
            raise InputError(f"line is over the limit of {max_line_bytes} bytes", file=name, line=number)
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno})", file=name,
                             line=number) from None
        except RecursionError:
            raise InputError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", file=name,
                             line=number) from None
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, found {type(record).__name__}", file=name,
                             line=number)
        if _depth(record) > MAX_JSON_DEPTH:
            raise InputError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", file=name, line=number)
        record["_origin"] = f"{name}:{number}"
        yield record


def parse_text(text: str, name: str, stem: str) -> dict[str, Any]:
    """A Markdown or text file: optional YAML front matter with the corpus fields, then the body."""
    record: dict[str, Any] = {}
    body = text
    match = _FRONT_MATTER.match(text)
    if match:
        try:
            front = yaml.safe_load(match.group(1)) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = (mark.line + 2) if mark is not None else 1
            raise InputError(f"front matter is not valid YAML ({getattr(exc, 'problem', exc)})",
                             file=name, line=line) from None
        if not isinstance(front, dict):
            raise InputError("front matter must be a mapping of fields", file=name, line=1)
        record.update({k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in front.items()})
        body = text[match.end():]
    record.setdefault("id", stem)
    record.setdefault("text", body)
    if not record.get("title"):
        heading = re.search(r"^#\s+(.+)$", body, re.M)
        if heading:
            record["title"] = heading.group(1).strip()
    record["_origin"] = f"{name}:1"
    return record


def parse_pdf(data: bytes, name: str, stem: str) -> dict[str, Any]:
    from io import BytesIO

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    if not data.startswith(b"%PDF"):
        raise InputError("file has a .pdf extension but is not a PDF", file=name)
    try:
        reader = PdfReader(BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
        meta = reader.metadata or {}
    except (PdfReadError, Exception) as exc:  # pypdf raises many types on broken files
        raise InputError(f"PDF could not be parsed ({type(exc).__name__}: {exc})", file=name) from None
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text.strip():
        raise InputError("PDF has no extractable text", file=name)
    record: dict[str, Any] = {"id": stem, "text": text, "_origin": f"{name}:1", "source": name}
    title = getattr(meta, "title", None)
    if title:
        record["title"] = str(title)
    return record


def read_records(path: str | Path, *, max_file_bytes: int = 50 * 1024 * 1024,
                 max_line_bytes: int = 5 * 1024 * 1024) -> list[dict[str, Any]]:
    """All raw records of one file, chosen by extension (directories: every supported file)."""
    path = Path(path)
    if path.is_dir():
        out: list[dict[str, Any]] = []
        for child in sorted(path.rglob("*")):
            if child.is_file() and child.suffix.lower() in TEXT_SUFFIXES | JSONL_SUFFIXES | PDF_SUFFIXES:
                out.extend(read_records(child, max_file_bytes=max_file_bytes, max_line_bytes=max_line_bytes))
        return out
    name = str(path)
    suffix = path.suffix.lower()
    if suffix not in TEXT_SUFFIXES | JSONL_SUFFIXES | PDF_SUFFIXES:
        raise InputError(f"unsupported file type {suffix or '(none)'}: expected .jsonl, .md, .txt or .pdf",
                         file=name)
    data = _read_bytes(path, max_file_bytes)
    if suffix in PDF_SUFFIXES:
        return [parse_pdf(data, name, path.stem)]
    if data.startswith(b"%PDF"):
        raise InputError(f"file has a {suffix} extension but is a PDF", file=name)
    text = _decode(data, name)
    if suffix in JSONL_SUFFIXES:
        return list(parse_jsonl(text, name, max_line_bytes=max_line_bytes))
    return [parse_text(text, name, path.stem)]


def strip_control(text: str) -> str:
    """Remove control characters other than tab, newline and carriage return."""
    return _CONTROL.sub("", text)
