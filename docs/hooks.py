"""MkDocs hooks: the pictures the pages show are the ones in ``saves/``, not copies in ``docs/``
(a page refers to ``saves/NAME.png`` as ``img/NAME.png``, and the build takes it from
``saves/``); and the API page shows the docstrings' cross-references (``:func:`step```, written
for Sphinx) as the code names they are, not with their role in front."""

import re
from pathlib import Path

from mkdocs.structure.files import File

DOCS = Path(__file__).parent
SAVES = DOCS.parent / "saves"


def on_files(files, config):
    shown = set()
    for page in DOCS.glob("*.md"):
        shown |= set(re.findall(r"\]\(img/([^)\s]+)\)", page.read_text(encoding="utf-8")))
    for name in sorted(shown):
        uri = f"img/{name}"
        if (SAVES / name).is_file() and files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, abs_src_path=str(SAVES / name)))
    return files


#: a Sphinx role in front of a code span, as the docstrings' ``:func:`name``` renders
ROLE = re.compile(r":(?:func|meth|class|data|attr|mod|obj|exc):(<code>)")


def on_page_content(html, page, config, files):
    return ROLE.sub(r"\1", html)
