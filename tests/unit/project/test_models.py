"""The project models with the installed catalog's service blocks (made at run time) behave as
models written out: they pickle, copy and compare by their fields."""

from __future__ import annotations

import copy
import pickle

from maintainer.project.models import ProjectConfig, TableSpec, project_models
from maintainer.services.clean.settings import CleanSpec


def test_a_spec_pickles_and_comes_back_with_its_service_blocks() -> None:
    spec = TableSpec.of(
        name="t", path="/t", manifest="tables/t.yml", line=3, clean=CleanSpec(commits_retained=4)
    )
    back = pickle.loads(pickle.dumps(spec))
    assert back == spec and type(back) is project_models().spec
    assert back.settings_of(CleanSpec) == CleanSpec(commits_retained=4)
    assert back.model_fields_set == spec.model_fields_set
    assert copy.deepcopy(spec) == spec


def test_a_project_config_pickles_with_its_defaults_block() -> None:
    config = project_models().config.model_validate(
        {"name": "p", "version": 1, "profile": "x", "defaults": {"clean": {"hours_retained": 5}}}
    )
    back = pickle.loads(pickle.dumps(config))
    assert isinstance(back, ProjectConfig) and back == config
    assert back.defaults == config.defaults
