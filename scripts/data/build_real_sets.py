"""Build the real-text evaluation corpora of ``data/real/`` from package sdists.

Four sets, each a ``corpus.jsonl`` in the CONTRACT.md corpus format (the hand-written
``queries.jsonl`` beside it is not generated):

- ``changelogs``: every dated release entry of the changelogs of requests, Flask, Werkzeug,
  Click and attrs, one document per release (``id`` ``<package>-<version>``). Each entry keeps
  the file's title ("Flask changelog"), so all entries of one package share a title, as a
  changelog split at its headings does; ``version`` is the release and ``created_at`` its
  release date. ``kind`` and ``doc_type`` are left out on purpose: the engine must infer that a
  release entry is a record of its own moment, not a version of one document.
- ``flask-docs``: three pages of the Flask documentation (configuration, command line,
  security) in the sdists of nine successive feature releases (0.12 ... 3.1.0). A page version
  is kept only when its text changed since the previous kept one; each kept version
  ``supersedes`` the previous one and is dated with its release date (from Flask's changelog).
- ``django-docs``: two reference pages of the Django documentation (settings, CSRF protection) in
  the sdists of ten successive feature releases (2.2 ... 5.2), each version dated with its
  release date (the first line of that release's notes, ``docs/releases/<version>.txt``) and
  carrying its ``version``, but **no** ``supersedes``: the engine must infer the chain from the
  shared title, the versions and the dates, as it must for docs imported release by release.
- ``django-releases``: the release notes of every Django release from 3.0 to 5.2 (feature and
  patch releases, 127 files of ``docs/releases/`` in the 5.2 sdist), one document each, titled as
  the notes title themselves ("Django 4.2.3 release notes"), dated by their first line; like the
  changelogs, ``kind`` and ``doc_type`` are left to inference.

Reproduce (network to the package index needed only for the download)::

    for p in requests==2.32.3 flask==3.1.0 werkzeug==3.1.3 click==8.1.8 attrs==24.3.0 \\
             flask==0.12 flask==1.0 flask==1.1.0 flask==2.0.0 flask==2.1.0 flask==2.2.0 \\
             flask==2.3.0 flask==3.0.0 django==2.2 django==3.0 django==3.1 django==3.2 \\
             django==4.0 django==4.1 django==4.2 django==5.0 django==5.1 django==5.2; do
        pip download --no-deps --no-binary :all: "$p" -d /tmp/sdists
    done
    python scripts/data/build_real_sets.py /tmp/sdists --out data/real

The output is deterministic (records sorted, no clock read), so a rebuild gives identical files.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

CHANGELOGS = (   # (package, sdist version, file inside the sdist, title, licence)
    ("requests", "2.32.3", "HISTORY.md", "Requests changelog", "Apache-2.0"),
    ("flask", "3.1.0", "CHANGES.rst", "Flask changelog", "BSD-3-Clause"),
    ("werkzeug", "3.1.3", "CHANGES.rst", "Werkzeug changelog", "BSD-3-Clause"),
    ("click", "8.1.8", "CHANGES.rst", "Click changelog", "BSD-3-Clause"),
    ("attrs", "24.3.0", "CHANGELOG.md", "attrs changelog", "MIT"),
)
DOC_VERSIONS = ("0.12", "1.0", "1.1.0", "2.0.0", "2.1.0", "2.2.0", "2.3.0", "3.0.0", "3.1.0")
DOC_PAGES = (    # (page key, file names over the versions, title)
    ("config", ("docs/config.rst",), "Flask documentation: Configuration Handling"),
    ("cli", ("docs/cli.rst",), "Flask documentation: Command Line Interface"),
    ("security", ("docs/security.rst", "docs/web-security.rst"), "Flask documentation: Security Considerations"),
)
DJANGO_VERSIONS = ("2.2", "3.0", "3.1", "3.2", "4.0", "4.1", "4.2", "5.0", "5.1", "5.2")
DJANGO_PAGES = (
    ("settings", ("docs/ref/settings.txt",), "Django documentation: Settings"),
    ("csrf", ("docs/ref/csrf.txt",), "Django documentation: Cross Site Request Forgery protection"),
)
MIN_YEAR = 2010                                   # older entries are few and loosely dated

_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"), start=1)}
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_WORDY = re.compile(r"(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?"
                    r",?\s+(\d{4})")
_DAY_FIRST = re.compile(r"(?i)\b(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(\d{4})")
_REQUESTS_HEAD = re.compile(r"^(\d+\.\d+(?:\.\d+)*) \((\d{4}-\d{2}-\d{2})\)\n-+\n", re.M)
_PALLETS_HEAD = re.compile(r"^Version (\S+)\n-+\n", re.M)
_ATTRS_HEAD = re.compile(r"^## \[?(\d+\.\d+(?:\.\d+)*)\]?(?:\([^)]*\))? - (\d{4}-\d{2}-\d{2})\n", re.M)


def sdist_path(folder: Path, package: str, version: str) -> Path:
    """The sdist of ``package==version`` in ``folder`` (file names vary in case: Flask-1.0, flask-3.1.0)."""
    for candidate in folder.iterdir():
        name = candidate.name.lower()
        if name in (f"{package}-{version}.tar.gz", f"{package}-{version}.zip"):
            return candidate
    raise SystemExit(f"missing sdist {package}=={version} in {folder}: run the pip download of the module docstring")


def read_member(sdist: Path, names: tuple[str, ...]) -> str | None:
    """Text of the first of ``names`` (relative to the sdist's top folder) found in the tarball."""
    found = read_members(sdist, lambda name: name in names)
    return next((found[name] for name in names if name in found), None)


def read_members(sdist: Path, wanted) -> dict[str, str]:
    """Text of every file of the tarball whose name (relative to the sdist's top folder) ``wanted``
    accepts, in one pass over the tarball."""
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name and m.isfile()}
        return {name: tar.extractfile(m).read().decode("utf-8") for name, m in members.items() if wanted(name)}


def parse_date(text: str) -> str | None:
    """First date in ``text`` as ``YYYY-MM-DD`` (ISO, "December 31st 2017" / "Feb 7th, 2012", or
    "1 April 2019")."""
    if m := _ISO.search(text):
        return m.group(0)
    if m := _WORDY.search(text):
        month, day, year = m.group(1), m.group(2), m.group(3)
    elif m := _DAY_FIRST.search(text):
        day, month, year = m.group(1), m.group(2), m.group(3)
    else:
        return None
    number = next(v for k, v in _MONTHS.items() if k.startswith(month.lower()))
    return f"{int(year):04d}-{number:02d}-{int(day):02d}"


def split_sections(text: str, head: re.Pattern[str]) -> Iterator[tuple[re.Match[str], str]]:
    """(heading match, section text including the heading) for each heading of ``text``."""
    heads = list(head.finditer(text))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        yield m, text[m.start():end].strip()


def changelog_entries(package: str, text: str) -> Iterator[tuple[str, str, str]]:
    """(version, release date, entry text) of each dated release of one changelog."""
    if package == "requests":
        for m, body in split_sections(text, _REQUESTS_HEAD):
            yield m.group(1), m.group(2), body
    elif package == "attrs":
        for m, body in split_sections(text, _ATTRS_HEAD):
            body = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", body)      # markdown links -> their text
            yield m.group(1), m.group(2), body
    else:
        for m, body in split_sections(text, _PALLETS_HEAD):
            released = re.search(r"^Released\b.*$", body, re.M)
            date = parse_date(released.group(0)) if released else None
            if date:
                yield m.group(1), date, body


def build_changelogs(sdists: Path) -> list[dict]:
    records = []
    for package, version, member, title, licence in CHANGELOGS:
        sdist = sdist_path(sdists, package, version)
        text = read_member(sdist, (member,))
        if text is None:
            raise SystemExit(f"{sdist.name} has no {member}")
        for release, date, body in changelog_entries(package, text):
            if int(date[:4]) < MIN_YEAR:
                continue
            records.append({
                "id": f"{package}-{release}", "title": title, "text": body,
                "created_at": f"{date}T12:00:00Z", "version": release,
                "source": f"{sdist.name}:{member}",
                "metadata": {"package": package, "licence": licence},
            })
    records.sort(key=lambda r: (r["metadata"]["package"], r["created_at"], r["id"]))
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        raise SystemExit("duplicate release ids in the changelogs")
    return records


def flask_release_dates(sdists: Path) -> dict[str, str]:
    """Release date of each Flask version, from the newest sdist's CHANGES.rst."""
    text = read_member(sdist_path(sdists, "flask", DOC_VERSIONS[-1]), ("CHANGES.rst",)) or ""
    return {v: d for v, d, _ in changelog_entries("flask", text)}


def django_release_dates(sdists: Path) -> dict[str, str]:
    """Release date of each Django version: the first date of its own release notes."""
    dates = {}
    for version in DJANGO_VERSIONS:
        notes = read_member(sdist_path(sdists, "django", version), (f"docs/releases/{version}.txt",)) or ""
        if (date := parse_date(notes[:500])) is None:
            raise SystemExit(f"django {version}: no date in docs/releases/{version}.txt")
        dates[version] = date
    return dates


_UNRELEASED = re.compile(r"(?i)\*(?:expected|under development)")
_RELEASE_NOTES = re.compile(r"^docs/releases/(?P<v>[3-5]\.\d+(?:\.\d+)?)\.txt$")


def build_django_releases(sdists: Path) -> list[dict]:
    """One document per dated release notes file of 3.0 ... 5.2.x in the newest Django sdist."""
    sdist = sdist_path(sdists, "django", DJANGO_VERSIONS[-1])
    notes = {_RELEASE_NOTES.match(name).group("v"): text
             for name, text in read_members(sdist, _RELEASE_NOTES.match).items()}
    records = []
    for version, text in notes.items():
        date = parse_date(text[:500])
        if date is None or _UNRELEASED.search(text[:500]):   # not released yet when the sdist was cut
            continue
        title = next(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("="))
        records.append({
            "id": f"django-{version}", "title": title, "text": text.strip(),
            "created_at": f"{date}T12:00:00Z", "version": version,
            "source": f"{sdist.name}:docs/releases/{version}.txt",
            "metadata": {"package": "django", "licence": "BSD-3-Clause"},
        })
    records.sort(key=lambda r: (r["created_at"], tuple(int(x) for x in r["version"].split("."))))
    return records


def build_flask_docs(sdists: Path) -> list[dict]:
    return build_versioned_docs(sdists, "flask", DOC_VERSIONS, DOC_PAGES, flask_release_dates(sdists),
                                licence="BSD-3-Clause", chained=True)


def build_django_docs(sdists: Path) -> list[dict]:
    return build_versioned_docs(sdists, "django", DJANGO_VERSIONS, DJANGO_PAGES, django_release_dates(sdists),
                                licence="BSD-3-Clause", chained=False)


def build_versioned_docs(sdists: Path, package: str, versions: tuple[str, ...], pages: tuple, dates: dict[str, str],
                         *, licence: str, chained: bool) -> list[dict]:
    """One document per page and release whose text changed since the previous kept one, id
    ``<package>-docs-<page>-<version>``, dated with the release; ``chained``: each kept version
    ``supersedes`` the previous one (else only ``version`` and the shared title tell the chain)."""
    records = []
    for key, names, title in pages:
        previous: dict | None = None
        for version in versions:
            sdist = sdist_path(sdists, package, version)
            text = read_member(sdist, names)
            if text is None:
                raise SystemExit(f"{sdist.name} has none of {names}")
            text = text.strip()
            if previous is not None and previous["text"] == text:
                continue                                    # unchanged page: no new version
            record = {
                "id": f"{package}-docs-{key}-{version}", "title": title, "text": text,
                "created_at": f"{dates[version]}T12:00:00Z", "version": version,
                "source": f"{sdist.name}:{next(n for n in names if read_member(sdist, (n,)) is not None)}",
                "metadata": {"package": package, "page": key, "licence": licence},
            }
            if chained and previous is not None:
                record["supersedes"] = previous["id"]
            records.append(record)
            previous = record
    return records


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sdists", type=Path, help="folder holding the downloaded sdists")
    parser.add_argument("--out", type=Path, default=Path("data/real"))
    args = parser.parse_args(argv)
    for name, records in (("changelogs", build_changelogs(args.sdists)),
                          ("flask-docs", build_flask_docs(args.sdists)),
                          ("django-docs", build_django_docs(args.sdists)),
                          ("django-releases", build_django_releases(args.sdists))):
        write_jsonl(args.out / name / "corpus.jsonl", records)
        chars = sum(len(r["text"]) for r in records)
        print(f"{name}: {len(records)} documents, {chars} characters", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
