"""Reading corpus files into raw records: JSON Lines, Markdown/text with YAML front matter, PDF.

Each raw record is a dict of CONTRACT.md fields plus ``_origin`` ("FILE:LINE"). Nothing here
validates field values (see :mod:`.validate`); this module only turns bytes into dicts and
reports unreadable input as :class:`InputError` naming the file and line.

JSON and YAML front matter get the same limits (:func:`shape_problem`): nesting at most
``MAX_JSON_DEPTH`` levels and a size, once YAML aliases are expanded, of at most the line limit
(``SMARTVECTOR_MAX_LINE_BYTES``), so a 400-byte alias bomb is refused before it is expanded.
A key given twice in one JSON object or one YAML mapping is an error (the last one would
silently win). Front matter keys must be text; YAML dates anywhere become ISO-8601 strings,
other YAML-only values (``!!binary``, ``!!set``) are refused. A file with no record (empty, or
only blank lines) is an error, as is a directory without a supported file.

JSON Lines are split on ``"\n"`` only (a ``"\r"`` before it is dropped): U+2028, U+2029, U+0085
and the other characters ``str.splitlines`` also breaks on are content, and line numbers count
``"\n"``. An integer written with more than ``MAX_INT_DIGITS`` digits (Python's own limit on
reading one) is an input error naming the file, line and field, in JSON and in YAML.

In front matter, the plain (unquoted) scalars of :data:`TEXT_FIELDS` are read as the text
written, not as YAML resolves it: ``id: 0x1F`` is the id ``"0x1F"``, ``version: 1.10`` the
version ``"1.10"``, ``created_at: 20250301`` the ISO-8601 basic date 2025-03-01 and
``created_at: 2025-13-45`` a time that validation refuses naming the field. A YAML date that
does not exist anywhere else (in ``metadata``) is kept as its text. A first line ``---`` that
no later ``---`` line closes is an error. A folder's symbolic links that lead outside it are
refused (a link to ``/etc/hostname`` would otherwise be ingested); links inside it are read
where they are files and not descended where they are folders (their files are read by their
own path).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from io import BytesIO
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text"}
JSONL_SUFFIXES = {".jsonl", ".ndjson", ".json"}
PDF_SUFFIXES = {".pdf"}
MAX_JSON_DEPTH = 32
MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300
# front matter fields whose plain scalars are text as written (times are parsed by validation)
TEXT_FIELDS = {"id", "title", "created_at", "valid_from", "valid_until", "kind", "doc_type", "version",
               "supersedes", "depends_on", "source"}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*\r?\n?", re.S)


def shape_problem(value: Any, *, max_depth: int = MAX_JSON_DEPTH, max_bytes: int = 5 * 1024 * 1024) -> str | None:
    """Why a parsed JSON/YAML value is too deep or too big (None: it is fine).

    Walks the value iteratively, shared (aliased) nodes counted each time they occur, and stops
    at the first limit passed: the size is the length of the value written as JSON, estimated
    (strings and numbers by their text, two bytes per container and per member).
    """
    stack = [(value, 1)]
    size = 0
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return f"nested deeper than {max_depth} levels"
        if isinstance(node, dict):
            size += 2 + 2 * len(node) + sum(len(str(k)) for k in node)
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            size += 2 + len(node)
            stack.extend((v, depth + 1) for v in node)
        else:
            size += len(node) + 2 if isinstance(node, str) else 8
        if size > max_bytes:
            return f"over the limit of {max_bytes} bytes once expanded (SMARTVECTOR_MAX_LINE_BYTES)"
    return None


class _HugeInt(str):
    """An integer literal over ``MAX_INT_DIGITS`` digits, kept as its text until it is reported."""


def _json_int(text: str) -> int | _HugeInt:
    return _HugeInt(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _huge_field(record: dict[str, Any]) -> tuple[str, int] | None:
    """(top-level field, digits) of the first :class:`_HugeInt` in ``record``, or None."""
    for key, value in record.items():
        stack = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, _HugeInt):
                return str(key), len(node.lstrip("-"))
            if isinstance(node, dict):
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return None


_LONG_DIGITS = re.compile(rb"\d{%d}" % (MAX_INT_DIGITS + 1))


def huge_number(data: bytes) -> tuple[str, int] | None:
    """(top-level field, digits) of an integer over ``MAX_INT_DIGITS`` digits in the JSON object
    ``data``, or None (also when ``data`` is no JSON object: its parser reports that)."""
    if not _LONG_DIGITS.search(data):
        return None
    try:
        value = json.loads(data, parse_int=_json_int)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, _HugeInt):
        return "body", len(value.lstrip("-"))
    return _huge_field(value) if isinstance(value, dict) else None


def _too_many_digits(digits: int) -> str:
    return f"a number of {digits} digits, over the limit of {MAX_INT_DIGITS} digits"


class _DuplicateKey(ValueError):
    def __init__(self, key: object) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _FrontMatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses a key given twice in one mapping, keeps a date that
    does not exist as its text, and refuses an integer over ``MAX_INT_DIGITS`` digits."""

    def construct_yaml_timestamp(self, node):
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError:   # 2025-13-45: the resolver saw a date shape; the writer wrote text
            return self.construct_scalar(node)

    def construct_yaml_int(self, node):
        digits = len(str(node.value).lstrip("+-"))
        if digits > MAX_INT_DIGITS:
            raise yaml.constructor.ConstructorError(None, None, _too_many_digits(digits), node.start_mark)
        return super().construct_yaml_int(node)

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:   # an unhashable key: PyYAML's own error follows
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_FrontMatterLoader.add_constructor("tag:yaml.org,2002:timestamp", _FrontMatterLoader.construct_yaml_timestamp)
_FrontMatterLoader.add_constructor("tag:yaml.org,2002:int", _FrontMatterLoader.construct_yaml_int)


def _load_front_matter(text: str) -> Any:
    """The front matter's value, the plain scalars of :data:`TEXT_FIELDS` read as text."""
    loader = _FrontMatterLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value in TEXT_FIELDS:
                    items = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                    for item in items:
                        if isinstance(item, yaml.ScalarNode) and item.style is None and item.tag != "tag:yaml.org,2002:null":
                            item.tag = "tag:yaml.org,2002:str"
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _json_key(key: Any) -> str:
    """A YAML mapping key as JSON would write it."""
    if isinstance(key, date):
        return key.isoformat()
    if isinstance(key, bool) or key is None:
        return json.dumps(key)
    return str(key)


def _plain(value: Any, name: str, field: str) -> Any:
    """A YAML value as JSON values: dates -> ISO-8601 text; ``!!binary`` / ``!!set`` refused."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else _json_key(k)): _plain(v, name, field) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, name, field) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise InputError(f"front matter value of YAML type {type(value).__name__} is not a JSON value",
                     file=name, line=1, field=field)


def _key_line(front: str, key: Any) -> int:
    """The file line (front matter starts on line 2) where ``key`` is written, else 1."""
    spellings = {str(key), "~", "null", "Null", "NULL"} if key is None else {str(key)}
    for number, line in enumerate(front.splitlines(), start=2):
        if line.split(":", 1)[0].strip().strip("'\"") in spellings:
            return number
    return 1


def _field_at(front: str, line: int) -> str | None:
    """The top-level front matter key written on file line ``line`` or the nearest above it."""
    lines = front.split("\n")[:max(0, line - 1)]
    for text in reversed(lines):
        key = re.match(r"^([^\s#:'\"-][^:]*):", text)
        if key:
            return key.group(1).strip()
    return None


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


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of a JSON Lines text: split on ``"\n"`` only, a trailing ``"\r"``
    dropped (never ``str.splitlines``, which also splits on U+2028, U+0085 and others that a
    JSON string may hold raw)."""
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")


def parse_jsonl(text: str, name: str, *, max_line_bytes: int) -> Iterator[dict[str, Any]]:
    """One dict per non-blank line (:func:`jsonl_lines`); each gets ``_origin``."""
    for number, line in jsonl_lines(text):
        if not line.strip(" \t\r\n"):
            continue
        if len(line.encode("utf-8")) > max_line_bytes:
            raise InputError(f"line is over the limit of {max_line_bytes} bytes", file=name, line=number)
        try:
            record = json.loads(line, object_pairs_hook=_no_duplicates, parse_int=_json_int)
        except _DuplicateKey as exc:
            raise InputError(f"key {exc.key!r} given twice in one JSON object", file=name, line=number,
                             field=str(exc.key)) from None
        except json.JSONDecodeError as exc:
            reason = exc.msg.removesuffix(" at")   # "Unterminated string starting at" + " at column"
            raise InputError(f"not valid JSON ({reason} at column {exc.colno})", file=name,
                             line=number) from None
        except RecursionError:
            raise InputError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", file=name,
                             line=number) from None
        if isinstance(record, _HugeInt):
            raise InputError(_too_many_digits(len(record.lstrip("-"))), file=name, line=number)
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, found {type(record).__name__}", file=name,
                             line=number)
        huge = _huge_field(record)
        if huge:
            raise InputError(_too_many_digits(huge[1]), file=name, line=number, field=huge[0])
        problem = shape_problem(record, max_bytes=max_line_bytes)
        if problem:
            raise InputError(f"JSON {problem}", file=name, line=number)
        record["_origin"] = f"{name}:{number}"
        yield record


def parse_text(text: str, name: str, stem: str, *, max_bytes: int = 5 * 1024 * 1024) -> dict[str, Any]:
    """A Markdown or text file: optional YAML front matter with the corpus fields, then the body."""
    record: dict[str, Any] = {}
    body = text
    match = _FRONT_MATTER.match(text)
    if not match and re.match(r"\A---[ \t]*\r?\n", text):
        raise InputError("front matter opened by '---' on line 1 is not closed by a '---' line", file=name,
                         line=1)
    if match:
        try:
            front = _load_front_matter(match.group(1))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = (mark.line + 2) if mark is not None else 1
            field = _field_at(match.group(1), line) if mark is not None else None
            raise InputError(f"front matter is not valid YAML ({getattr(exc, 'problem', exc)})",
                             file=name, line=line, field=field) from None
        except RecursionError:
            raise InputError(f"front matter nested deeper than {MAX_JSON_DEPTH} levels", file=name,
                             line=1) from None
        except ValueError as exc:   # a YAML constructor's own complaint about a value
            raise InputError(f"front matter value cannot be read ({exc})", file=name, line=1) from None
        front = {} if front is None else front
        if not isinstance(front, dict):
            raise InputError("front matter must be a mapping of fields", file=name, line=1)
        problem = shape_problem(front, max_bytes=max_bytes)
        if problem:
            raise InputError(f"front matter {problem}", file=name, line=1)
        for key in front:
            if not isinstance(key, str):
                raise InputError(f"front matter key {_json_key(key)!r} is not a field name (expected text such as "
                                 "id, title or created_at)", file=name, line=_key_line(match.group(1), key),
                                 field=_json_key(key))
        record.update({k: _plain(v, name, k) for k, v in front.items()})
        body = text[match.end():]
    record.setdefault("id", stem)
    record.setdefault("text", body)
    if not record.get("title"):
        heading = re.search(r"^#\s+(.+)$", body, re.M)
        if heading:
            record["title"] = heading.group(1).strip()
    record["_origin"] = f"{name}:1"
    return record


@contextmanager
def _quiet_pypdf():
    """pypdf logs its own warnings about broken files to stderr; the error we raise is the one
    line the user sees (CONTRACT.md: one line naming the file)."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def parse_pdf(data: bytes, name: str, stem: str) -> dict[str, Any]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    if not data.startswith(b"%PDF"):
        raise InputError("file has a .pdf extension but is not a PDF", file=name)
    try:
        with _quiet_pypdf():
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


def _folder_files(root: Path) -> list[Path]:
    """The files under ``root``, sorted; symbolic links are not descended, and one that leads
    outside ``root`` is an :class:`InputError` naming it."""
    real_root = root.resolve()
    files: list[Path] = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        for entry in [*dirs, *names]:
            child = Path(folder) / entry
            if not child.is_symlink():
                if entry in names:
                    files.append(child)
                continue
            target = child.resolve()
            if not target.is_relative_to(real_root):
                raise InputError(f"symbolic link to {target}, outside the folder {root}: not followed",
                                 file=str(child))
            if entry in names and target.is_file():
                files.append(child)
    return sorted(files)


def read_records(path: str | Path, *, max_file_bytes: int = 50 * 1024 * 1024,
                 max_line_bytes: int = 5 * 1024 * 1024) -> list[dict[str, Any]]:
    """All raw records of one file, chosen by extension (directories: every supported file)."""
    path = Path(path)
    if path.is_dir():
        out: list[dict[str, Any]] = []
        for child in _folder_files(path):
            if child.suffix.lower() in TEXT_SUFFIXES | JSONL_SUFFIXES | PDF_SUFFIXES:
                out.extend(read_records(child, max_file_bytes=max_file_bytes, max_line_bytes=max_line_bytes))
        if not out:
            raise InputError("no .jsonl, .md, .txt or .pdf file in this directory", file=str(path))
        return out
    name = str(path)
    suffix = path.suffix.lower()
    if not path.exists():
        raise InputError("no such file or directory", file=name)
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
        records = list(parse_jsonl(text, name, max_line_bytes=max_line_bytes))
        if not records:
            raise InputError("no documents: the file is empty or holds only blank lines", file=name)
        return records
    return [parse_text(text, name, path.stem, max_bytes=max_line_bytes)]


def strip_control(text: str) -> str:
    """Remove control characters other than tab, newline and carriage return."""
    return _CONTROL.sub("", text)
