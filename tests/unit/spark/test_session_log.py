"""The driver JVM's console output goes to a log file: a process started while stderr points at
the file keeps writing there; maintainer's own stderr is back afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from maintainer.spark.session import stderr_into


def test_a_process_started_inside_writes_its_stderr_to_the_log(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "spark.log"
    with stderr_into(log):
        child = subprocess.Popen(  # as pyspark starts the JVM: stderr inherited
            [
                sys.executable,
                "-c",
                "import sys, time; time.sleep(0.3); sys.stderr.write('WARN from the JVM\\n')",
            ]
        )
    os.write(2, b"")  # this process's fd 2 is usable again
    assert child.wait(timeout=30) == 0
    assert log.read_text() == "WARN from the JVM\n"  # written after the block: the child kept the file


def test_without_a_path_nothing_is_redirected(tmp_path: Path) -> None:
    with stderr_into(None):
        pass
    assert not (tmp_path / "logs").exists()
