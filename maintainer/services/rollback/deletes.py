"""The runner ``node.py`` names (until it takes ``maintainer.tasks`` directly); rollback
requests are carried out by ``maintainer.services.common.rollback_deletes``."""

from __future__ import annotations

from maintainer.tasks import IN_PROCESS, TaskRunner

Runner = TaskRunner
run_locally = IN_PROCESS
