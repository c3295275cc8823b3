from __future__ import annotations

import pytest

from maintainer.errors import ManifestError
from maintainer.project.templating import Renderer
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


def test_a_secret_is_read_only_by_the_profiles_renderer(
    renderer: Renderer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAINTAINER_SECRET_S3", "s3-secret-value")
    monkeypatch.setenv("MAINTAINER_PLAN_KEY", "the-team-key")
    for name in ("MAINTAINER_SECRET_S3", "MAINTAINER_PLAN_KEY", "MAINTAINER_SECRET_UNSET"):
        with pytest.raises(ManifestError, match=rf"env_var\('{name}'\) reads a secret") as refused:
            renderer.render_string(f"{{{{ env_var('{name}', 'x') }}}}", "tables/a.yml:3:11")
        assert refused.value.where == "tables/a.yml:3:11" and "profiles.yml" in str(refused.value.hint)
    with pytest.raises(ManifestError, match="reads a secret"):  # however the name is made
        renderer.render_string("{{ env_var('MAINTAINER_' ~ 'SECRET_S3') }}", "f")
    profiles = renderer.for_profiles()
    assert profiles.render_string("key={{ env_var('MAINTAINER_SECRET_S3') }}", "p") == "key=s3-secret-value"


def test_a_value_holding_a_secret_is_refused_outside_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", "tok-123456")
    target = {"name": "dev", "spark": {"remote": "sc://h/;token=tok-123456"}}
    renderer = Renderer({"leaked": "tok-123456"}, target)
    for source in ("{{ target.spark.remote }}", "{{ var('leaked') }}/t"):
        with pytest.raises(
            ManifestError, match="holds the value of the secret MAINTAINER_SECRET_TOKEN"
        ) as no:
            renderer.render_string(source, "tables/a.yml:4:9")
        assert no.value.where == "tables/a.yml:4:9" and "tok-123456" not in str(no.value)
    assert renderer.render_string("{{ target.name }}", "f") == "dev"
