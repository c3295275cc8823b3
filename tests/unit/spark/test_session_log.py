"""The driver JVM's console output goes to a log file: a process started while stdout and stderr
point at the file keeps writing there; maintainer's own are back afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from maintainer.spark.session import console_into


def test_a_process_started_inside_writes_its_stdout_and_stderr_to_the_log(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "spark.log"
    with console_into(log):
        child = subprocess.Popen(  # as pyspark starts the JVM: fds 1 and 2 inherited
            [
                sys.executable,
                "-c",
                "import sys, time; time.sleep(0.3); print('launcher line', flush=True); "
                "sys.stderr.write('WARN from the JVM\\n')",
            ]
        )
    os.write(1, b"")
    os.write(2, b"")  # this process's fds 1 and 2 are usable again
    assert child.wait(timeout=30) == 0
    assert log.read_text() == "launcher line\nWARN from the JVM\n"  # after the block: the child kept it


def test_without_a_path_nothing_is_redirected(tmp_path: Path) -> None:
    with console_into(None):
        pass
    assert not (tmp_path / "logs").exists()
