"""Templates that would hang or fill memory are refused with the value's file:line."""

from __future__ import annotations

import time

import pytest

from maintainer.errors import ManifestError
from maintainer.project.sandbox import TemplateLimits
from maintainer.project.templating import Renderer

WHERE = "tables/a.yml:7:11"


def refusal(source: str, renderer: Renderer | None = None) -> ManifestError:
    renderer = renderer or Renderer({"root": "s3://lake"})
    started = time.perf_counter()
    with pytest.raises(ManifestError) as caught:
        renderer.render_string(source, WHERE)
    assert time.perf_counter() - started < 5
    assert caught.value.where == WHERE
    assert caught.value.hint
    return caught.value


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
            "range() of 100000 numbers (at most 10000)",
        ),
        (
            "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
            "templates took more than 500000 steps",
        ),
        (
            "{% for c in 'x' * 50000 %}{% for d in 'y' * 50000 %}{% endfor %}{% endfor %}",
            "templates took more than 500000 steps",
        ),
        ("{% for c in 'ab' recursive %}{{ loop('ab') }}{% endfor %}", "template recursion too deep"),
        ("{{ 9**999999999 }}", "a number larger than 2**256"),
        ("{{ (2**200) * (2**200) }}", "a number larger than 2**256"),
        ("{{ 'x' * 10**9 }}", "a '*' repetition would make a value of more than 100000 characters"),
        ("{{ ['x' * 60000] * 2 }}", "a '*' repetition would make a value of more than 100000 characters"),
        ("{{ ('x' * 60000) + ('y' * 60000) }}", "a '+' would make a value of more than 100000"),
        (
            "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
            "a '~' concatenation would make a value of more than 100000 characters",
        ),
        ("{{ ('x' * 1000).replace('x', 'y' * 1000) }}", "a replace() would make a value"),
        ("{{ ('x' * 1000)|replace('x', 'y' * 1000) }}", "a replace would make a value"),
        ("{{ ('y' * 1000).join('x' * 1000) }}", "a join() would make a value"),
        ("{{ range(1000)|join('y' * 1000) }}", "a join would make a value"),
        ("{{ '%999999999d' % 1 }}", "a '%' format would make a value"),
        ("{{ '%*d' % (999999999, 1) }}", "a '%' format would make a value"),
        ("{{ 'x'.center(10**9) }}", "calling center() is not allowed in manifest templates"),
        ("{{ '{:>999999999}'.format(1) }}", "calling format() is not allowed in manifest templates"),
        ("{{ 'x'|center(10**9) }}", "No filter named 'center'"),
        ("{{ [1]|batch(10**9)|list }}", "No filter named 'batch'"),
        ("{{ lipsum(10**6) }}", "'lipsum' is undefined"),
        ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "template recursion too deep"),
    ],
)
def test_hostile_templates_are_refused_quickly(source: str, message: str) -> None:
    error = refusal(source)

    assert message in error.message


def test_the_rendered_value_is_bounded() -> None:
    renderer = Renderer({}, limits=TemplateLimits(max_value_chars=50))

    assert renderer.render_string("{% for i in range(10) %}abcde{% endfor %}", WHERE) == "abcde" * 10
    error = refusal("{% for i in range(11) %}abcde{% endfor %}", renderer)
    assert error.message == "rendered value longer than 50 characters"


def test_a_templated_value_too_long_to_compile_is_refused() -> None:
    renderer = Renderer({}, limits=TemplateLimits(max_template_chars=20))

    assert renderer.render_string("{{ 1 }}" + "x" * 13, WHERE) == "1" + "x" * 13
    error = refusal("{{ 1 }}" + "x" * 14, renderer)
    assert error.message == "templated value of 21 characters (at most 20)"


def test_the_step_budget_is_shared_by_every_value_of_a_project_load() -> None:
    renderer = Renderer({}, limits=TemplateLimits(max_steps=25))
    with_target = renderer.with_target({"name": "prod"})

    for _ in range(2):
        with_target.render_string("{% for i in range(10) %}{% endfor %}", WHERE)
    error = refusal("{% for i in range(10) %}{% endfor %}", renderer)
    assert error.message.startswith("templates took more than 25 steps")


def test_rendering_time_is_bounded_when_each_step_is_expensive() -> None:
    renderer = Renderer({}, limits=TemplateLimits(max_seconds=0.2))
    source = (
        "{% for i in range(10000) %}{% for j in range(10000) %}"
        "{% set s = ('x' * 99000)|replace('x', 'y')|upper|lower %}{% endfor %}{% endfor %}"
    )

    started = time.perf_counter()
    error = refusal(source, renderer)

    assert error.message == "templates took more than 0.2 s to render in this project"
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("{{ var('root') }}/trips", "s3://lake/trips"),
        ("{{ '%s-%02d' % ('a', 3) }}", "a-03"),
        ("{{ var('root')|upper }}-{{ range(3)|join(',') }}", "S3://LAKE-0,1,2"),
        ("{{ [1, 2, 3]|map('string')|join('-') }}", "1-2-3"),
        ("{% for x in range(3) %}{{ loop.index }}{{ loop.cycle('a', 'b') }}{% endfor %}", "1a2b3a"),
        ("{{ var('root').replace('s3', 's3a').split('/')|last }}", "lake"),
        ("{{ {'a': 1}.get('a') + 2**10 }}", "1025"),
        ("{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(var('root')) }}", "<s3://lake>"),
        ("{{ 'x' * 100000 }}", "x" * 100000),
    ],
)
def test_substitutions_still_render(source: str, expected: str) -> None:
    assert Renderer({"root": "s3://lake"}).render_string(source, WHERE) == expected


def test_rendering_time_is_bounded_when_values_take_no_steps() -> None:
    """Many distinct templates cost compile time without a single step."""
    renderer = Renderer({}, limits=TemplateLimits(max_seconds=0.2))

    started = time.perf_counter()
    with pytest.raises(ManifestError) as caught:
        for number in range(100_000):
            renderer.render_string(f"{{{{ {number} }}}}", WHERE)

    assert caught.value.message == "templates took more than 0.2 s to render in this project"
    assert time.perf_counter() - started < 2
