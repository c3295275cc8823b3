"""plan.md with hostile values: whatever a table's partition or file names, a manifest's table
names or paths, or a reason hold, the comment shows them as text. Each value stays in its code
span or its text, and makes no link, image, HTML, emphasis, mention, new cell or new block.

The rendered Markdown is parsed with markdown-it (CommonMark with GitHub's tables and
strikethrough, installed with rich) and its tokens checked."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from maintainer.console import printable
from maintainer.planning.markdown import ZWSP, code, html_text, md, render_markdown
from tests.support.plans import blocked, clean_effect, delete_file, node, plan, table_plan

APPROVAL = "a`**Approved by @org/security**`b"
HOSTILE = (
    APPROVAL,
    "![x](http://e/x.png)",
    "[link](http://e)",
    "|",
    "<img src=x onerror=alert(1)>",
    "``x```",
    "`",
    " `a` ",
    "- item",
    "# heading",
    "> quote",
    "a\nb\r\n# c",
    "~~struck~~",
    "&lt;b&gt;",
    "$x^2$",
    "_under_ *star*",
    "www.example.com and https://example.com",
    "fixes #12",
    "a\\|b",
)
MARKUP = {"link_open", "image", "html_inline", "html_block", "strong_open", "em_open", "s_open", "softbreak",
          "hardbreak"}  # fmt: skip
ITEM = ["bullet_list_open", "list_item_open", "paragraph_open"]
MENTION = re.compile(r"@[A-Za-z0-9]")
BARE_LINK = re.compile(r"(?i)(://|www\.|#\d)")


def parser() -> MarkdownIt:
    return MarkdownIt("gfm-like", {"linkify": False}).disable("linkify")


def one_line(value: str) -> str:
    return printable(re.sub(r"[\r\n\t\v\f\x85\u2028\u2029]+", " ", value))


def inline_children(tokens: list[Token]) -> list[list[Token]]:
    return [token.children or [] for token in tokens if token.type == "inline"]


def assert_plain_text(children: list[Token], value: str) -> None:
    """``children`` are text only, showing ``value`` (zero-width spaces aside), with no
    mention or bare link GitHub would find in it."""
    assert {child.type for child in children} <= {"text"}, [c.type for c in children]
    shown = "".join(child.content for child in children)
    assert shown.replace(ZWSP, "") == one_line(value).strip().replace(ZWSP, "")
    assert not MENTION.search(shown) and not BARE_LINK.search(shown)


def assert_code(children: list[Token], value: str) -> None:
    assert [child.type for child in children] == ["code_inline"]
    assert children[0].content == one_line(value)


def cell_row(value: str) -> list[list[Token]]:
    """The inline children of the two cells of a table row holding ``value`` as code and as text."""
    tokens = parser().parse(f"| a | b |\n|---|---|\n| {code(value, cell=True)} | {md(value)} |\n")
    body = tokens[[t.type for t in tokens].index("tbody_open") :]
    assert [t.type for t in body].count("td_open") == 2, [t.type for t in body]
    return inline_children(body)


VALUES = st.text(
    st.sampled_from(list("`*_[]()!<>#|~&$\\@:/.-+= \n\r\t1aw")) | st.characters(exclude_characters="\x00"),
    max_size=40,
)


@given(VALUES)
@settings(max_examples=400, deadline=None)
def test_any_value_stays_in_its_table_cell_as_code_and_as_text(value: str) -> None:
    code_cell, text_cell = cell_row(value)
    if one_line(value):
        assert_code(code_cell, value)
    assert_plain_text(text_cell, value)


@given(VALUES)
@settings(max_examples=400, deadline=None)
def test_any_value_stays_in_its_list_item_as_code_and_as_text(value: str) -> None:
    tokens = parser().parse(f"- {code(value)}: {md(value)}\n")
    closing = [t.replace("open", "close") for t in reversed(ITEM)]
    assert [t.type for t in tokens] == [*ITEM, "inline", *closing]
    (children,) = inline_children(tokens)
    if one_line(value):
        assert children[0].type == "code_inline" and children[0].content == one_line(value)
        children = children[1:]
    prefix = ":" if one_line(value) else "(empty):"
    assert children[0].type == "text" and children[0].content.startswith(prefix)
    children[0] = Token("text", "", 0, content=children[0].content[len(prefix) :].lstrip())
    assert_plain_text(children, value)


def test_the_approval_forgery_is_shown_as_written() -> None:
    assert code(APPROVAL) == "``a`**Approved by @org/security**`b``"
    assert md(APPROVAL) == f"a\\`\\*\\*Approved by @{ZWSP}org/security\\*\\*\\`b"
    assert code("`") == "`` ` ``" and code("``x```") == "```` ``x``` ````"
    assert code("a|b", cell=True) == "`a\\|b`" and code("a|b") == "`a|b`"
    assert html_text("<b>@x</b>") == f"&lt;b&gt;@{ZWSP}x&lt;/b&gt;"


def hostile_plan() -> Any:
    """Hostile names everywhere a table or a manifest puts one: partitions and files (read from
    the table), the table's name and path (the manifest), reasons (made of both)."""
    tables = []
    for index, name in enumerate(HOSTILE):
        files = tuple(delete_file(f"{name}/f{index}.parquet", 1024, reason=name) for _ in range(2))
        clean = node(f"t{index}{name}", "clean", files, reasons=(name,), effect=clean_effect(2, 2048),
                     payloads=(f"t{index}.clean.requested",))  # fmt: skip
        stuck = blocked(f"t{index}{name}", "rollback", f"cannot read {name}")
        tables.append(table_plan(f"t{index}{name}", (stuck, clean), path=f"/lake/{name}"))
    return plan(*tables, project=APPROVAL, target="[dev](http://e)")


def test_a_plan_full_of_hostile_names_renders_no_markup_of_theirs() -> None:
    rendered = render_markdown(hostile_plan(), "ab" * 32)
    tokens = parser().parse(rendered)
    html_blocks = [t.content for t in tokens if t.type == "html_block"]
    assert all(block.startswith(("<details><summary>", "</details>")) for block in html_blocks)
    for block in html_blocks:
        assert "<img" not in block and not MENTION.search(block)
    for children in inline_children(tokens):
        for child in children:
            assert child.type not in MARKUP - {"strong_open"}, (child.type, child.content)
            if child.type == "text":
                assert not MENTION.search(child.content) and not BARE_LINK.search(child.content), (
                    child.content
                )
    bold = [strong_text(children) for children in inline_children(tokens)]
    assert any(bold) and not any("Approved" in text for texts in bold for text in texts)
    codes = {c.content for children in inline_children(tokens) for c in children if c.type == "code_inline"}
    assert APPROVAL in codes and "[dev](http://e)" in codes  # project / target
    for index, name in enumerate(HOSTILE):
        assert f"t{index}{one_line(name)}" in codes  # the table's row
        assert f"t{index}{one_line(name)}.clean" in codes  # its node
        assert f"{one_line(name)}/f{index}.parquet" in codes  # a file
        assert f"/lake/{one_line(name)}" in codes  # its path


def strong_text(children: list[Token]) -> list[str]:
    """The text of each bold span among ``children`` (its code spans aside)."""
    texts: list[str] = []
    inside: list[str] | None = None
    for child in children:
        if child.type == "strong_open":
            inside = []
        elif child.type == "strong_close" and inside is not None:
            texts.append("".join(inside))
            inside = None
        elif inside is not None and child.type == "text":
            inside.append(child.content)
    return texts
