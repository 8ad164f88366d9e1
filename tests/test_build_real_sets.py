"""The changelog parser of scripts/data/build_real_sets.py on snippets in each real heading format,
and a rebuild from tiny synthetic sdists (no network)."""

import importlib.util
import io
import json
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("build_real_sets", ROOT / "scripts" / "data" / "build_real_sets.py")
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)

REQUESTS = """Release History
===============

dev
---

- \\[Short description of non-trivial change.\\]

2.32.3 (2024-05-29)
-------------------

**Bugfixes**
- Fixed bug breaking custom SSLContexts. (#6716)

2.32.2 (2024-05-21)
-------------------

- Renamed `_get_connection`.
"""
PALLETS = """.. currentmodule:: werkzeug

Version 3.2.0
-------------

Unreleased

-   Not out yet.


Version 3.1.3
-------------

Released 2024-11-08

-   MultiDict accepts list, tuple or set.


Version 0.14
------------

Released on December 31st 2017

-   Old wording of the date.
"""
ATTRS = """# Changelog

## [24.3.0](https://github.com/python-attrs/attrs/tree/24.3.0) - 2024-12-16

- Introduce `attrs.NothingType`. [#1358](https://github.com/python-attrs/attrs/issues/1358)

## [24.2.0](https://github.com/python-attrs/attrs/tree/24.2.0) - 2024-08-06

- Soft-deprecate *hash*.
"""


def test_requests_headings():
    got = list(build.changelog_entries("requests", REQUESTS))
    assert [(v, d) for v, d, _ in got] == [("2.32.3", "2024-05-29"), ("2.32.2", "2024-05-21")]
    assert got[0][2].startswith("2.32.3 (2024-05-29)") and "SSLContexts" in got[0][2]
    assert "_get_connection" not in got[0][2]                      # an entry ends at the next heading


def test_pallets_headings_skip_unreleased_and_read_wordy_dates():
    got = list(build.changelog_entries("werkzeug", PALLETS))
    assert [(v, d) for v, d, _ in got] == [("3.1.3", "2024-11-08"), ("0.14", "2017-12-31")]


def test_attrs_headings_and_links_reduced_to_text():
    got = list(build.changelog_entries("attrs", ATTRS))
    assert [(v, d) for v, d, _ in got] == [("24.3.0", "2024-12-16"), ("24.2.0", "2024-08-06")]
    assert got[0][2].startswith("## 24.3.0 - 2024-12-16") and "#1358" in got[0][2] and "https" not in got[0][2]


@pytest.mark.parametrize(("text", "date"), [("Released 2024-11-13", "2024-11-13"),
                                            ("Released on Feb 7th, 2012", "2012-02-07"),
                                            ("Released on May 16 2017", "2017-05-16"),
                                            ("*1 April 2019*", "2019-04-01"),
                                            ("*December 2, 2019*", "2019-12-02"),
                                            ("Unreleased", None)])
def test_parse_date(text, date):
    assert build.parse_date(text) == date


def _sdist(folder: Path, name: str, files: dict[str, str]) -> None:
    with tarfile.open(folder / f"{name}.tar.gz", "w:gz") as tar:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{name}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_flask_docs_keep_changed_versions_only_and_chain_them(tmp_path):
    changes = "\n\n".join(f"Version {v}\n-------------\n\nReleased 20{10 + i:02d}-01-01\n\n-   x"
                          for i, v in enumerate(reversed(build.DOC_VERSIONS)))
    for i, version in enumerate(build.DOC_VERSIONS):
        name = f"Flask-{version}" if i < 7 else f"flask-{version}"
        security = "docs/security.rst" if i < 5 else "docs/web-security.rst"
        _sdist(tmp_path, name, {"CHANGES.rst": changes,
                                "docs/config.rst": f"Config {min(i, 3)}",        # unchanged from index 3 on
                                "docs/cli.rst": f"CLI {i}", security: "Security"})
    docs = build.build_flask_docs(tmp_path)
    config = [d for d in docs if d["metadata"]["page"] == "config"]
    assert [d["version"] for d in config] == list(build.DOC_VERSIONS[:4])
    assert [d.get("supersedes") for d in config] == [None] + [d["id"] for d in config[:-1]]
    assert len([d for d in docs if d["metadata"]["page"] == "security"]) == 1
    assert all(d["created_at"].endswith("T12:00:00Z") for d in docs)
    json.dumps(docs)                                                  # plain JSON records


def test_django_docs_are_dated_by_their_release_notes_and_not_chained(tmp_path):
    for i, version in enumerate(build.DJANGO_VERSIONS):
        _sdist(tmp_path, f"Django-{version}", {
            f"docs/releases/{version}.txt": f"=====\nDjango {version} release notes\n=====\n\n*{i + 1} April 20{10 + i}*\n",
            "docs/ref/settings.txt": f"Settings {min(i, 5)}",                 # unchanged from index 5 on
            "docs/ref/csrf.txt": f"CSRF {i}"})
    docs = build.build_django_docs(tmp_path)
    settings = [d for d in docs if d["metadata"]["page"] == "settings"]
    assert [d["version"] for d in settings] == list(build.DJANGO_VERSIONS[:6])
    assert settings[0]["id"] == "django-docs-settings-2.2" and settings[0]["created_at"] == "2010-04-01T12:00:00Z"
    assert not any("supersedes" in d for d in docs)                  # the chain is left to inference
    assert len([d for d in docs if d["metadata"]["page"] == "csrf"]) == len(build.DJANGO_VERSIONS)


def test_django_release_notes_one_document_each_titled_and_dated_by_themselves(tmp_path):
    notes = {"docs/releases/3.0.txt": "========================\nDjango 3.0 release notes\n========================\n\n"
                                      "*December 2, 2019*\n\nWelcome to Django 3.0!",
             "docs/releases/3.0.1.txt": "==========================\nDjango 3.0.1 release notes\n"
                                        "==========================\n\n*December 18, 2019*\n\nFixes.",
             "docs/releases/5.2.1.txt": "==========================\nDjango 5.2.1 release notes\n"
                                        "==========================\n\n*Expected May 7, 2025*\n\nSoon.",
             "docs/releases/2.2.txt": "Django 2.2 release notes\n\n*1 April 2019*\n",           # before 3.0: not read
             "docs/releases/index.txt": "Release notes\n"}
    for version in build.DJANGO_VERSIONS:
        _sdist(tmp_path, f"Django-{version}", notes if version == build.DJANGO_VERSIONS[-1] else {})
    records = build.build_django_releases(tmp_path)
    assert [(r["id"], r["title"], r["created_at"]) for r in records][:2] == [
        ("django-3.0", "Django 3.0 release notes", "2019-12-02T12:00:00Z"),
        ("django-3.0.1", "Django 3.0.1 release notes", "2019-12-18T12:00:00Z")]
    assert {r["id"] for r in records} == {"django-3.0", "django-3.0.1"}   # "*Expected May 7, 2025*": not out yet
    assert not any("kind" in r or "doc_type" in r or "supersedes" in r for r in records)
