from __future__ import annotations

import pytest

from maintainer.errors import ManifestError
from maintainer.project.render import Renderer
from maintainer.project.yamlsrc import load_yaml_text


@pytest.fixture
def renderer() -> Renderer:
    return Renderer({"root": "s3://lake", "n": 5}, {"name": "prod", "threads": 8})


def test_var_env_var_and_target(renderer: Renderer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAKE_ENV", "staging")

    assert renderer.render_string("{{ var('root') }}/trips", "f") == "s3://lake/trips"
    assert renderer.render_string("{{ var('missing', 'fallback') }}", "f") == "fallback"
    assert renderer.render_string("{{ env_var('LAKE_ENV') }}-{{ target.name }}", "f") == "staging-prod"
    assert renderer.render_string("{{ env_var('NOT_SET_4711', 'd') }}", "f") == "d"
    assert renderer.render_string("{{ var('n') * 2 }}", "f") == "10"
    assert renderer.render_string("{% if target.name == 'prod' %}30{% else %}10{% endif %}", "f") == "30"
    assert renderer.render_string("plain text", "f") == "plain text"


def test_render_tree_renders_string_values_only_and_skips(renderer: Renderer) -> None:
    document = load_yaml_text(
        "a: '{{ var(\"n\") }}'\nb: [x, '{{ target.name }}']\nvars: {v: '{{ nope }}'}\n", "r.yml"
    )

    rendered = renderer.render_tree(document, document.data, (), skip=frozenset({"vars"}))

    assert rendered == {"a": "5", "b": ["x", "prod"], "vars": {"v": "{{ nope }}"}}


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("{{ undefined_name }}", "'undefined_name' is undefined"),
        ("{{ var('nope') }}", "var('nope') is not defined"),
        ("{{ env_var('NOT_SET_4711') }}", "NOT_SET_4711 is not set"),
        ("{{ ''.__class__.__mro__ }}", "sandbox"),
        ("{{ target.__init__.__globals__ }}", "sandbox"),
        ("{{ var('root'", "invalid template"),
        ("{% for x in range(3) %}{{ y }}{% endfor %}", "'y' is undefined"),
    ],
)
def test_template_problems_are_located_manifest_errors(
    renderer: Renderer, source: str, fragment: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        renderer.render_string(source, "tables/a.yml:4:11")

    assert fragment in caught.value.message
    assert caught.value.where == "tables/a.yml:4:11"
    assert caught.value.hint


def test_values_cannot_be_mutated_from_a_template() -> None:
    renderer = Renderer({"items": [1, 2]})

    with pytest.raises(ManifestError) as caught:
        renderer.render_string("{{ var('items').append(3) }}", "f:1")

    assert "sandbox" in caught.value.message
    assert renderer.variables["items"] == [1, 2]
