"""The command group: ``--help`` and ``--version`` import no command module (they answer in
a blink), ``--help`` lists every command with its one-line help, and a command is loaded,
with the output options, when it runs."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from maintainer.cli import cli
from maintainer.commands import COMMANDS, load_command

HEAVY = (
    "pyspark",
    "pyarrow",
    "networkx",
    "maintainer.planning",
    "maintainer.runner",
    "maintainer.commands.plan_cmd",
)


def _modules_after(args: list[str]) -> list[str]:
    script = (
        "import json, sys\n"
        "from maintainer.cli import main\n"
        f"code = main({args!r})\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 0, done.stderr
    return list(modules)


def test_version_and_help_import_no_command() -> None:
    for args in (["--version"], ["--help"]):
        modules = _modules_after(args)
        loaded = [m for m in modules if m.startswith(HEAVY)]
        assert loaded == [], f"{args}: {loaded}"


def test_plan_and_apply_import_no_dataframe_library() -> None:
    """pandas (which ``pyarrow.dataset`` imports) and polars cost a fifth of a second each at
    the start of a command; only a compaction's executor uses them, when it runs."""
    script = (
        "import json, sys\n"
        "import maintainer.commands.plan_cmd, maintainer.commands.apply_cmd\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    modules = json.loads(done.stdout.strip().splitlines()[-1])
    loaded = [m for m in modules if m.split(".")[0] in ("pandas", "polars")]
    assert loaded == [], loaded


def test_help_lists_every_command_with_its_line() -> None:
    out = CliRunner().invoke(cli, ["--help"], terminal_width=200).output
    listed = [line.split()[0] for line in out.split("Commands:")[1].strip().splitlines()]
    assert listed == list(COMMANDS)
    for name, (_, line) in COMMANDS.items():
        assert f"{name}  " in out and line in " ".join(out.split()), name


def test_each_command_loads_under_its_name_with_its_line_and_the_output_options() -> None:
    for name, (_, line) in COMMANDS.items():
        command = load_command(name)
        assert command.name == name and command.short_help == line
        options = {opt for param in command.params for opt in getattr(param, "opts", ())}
        assert {"--quiet", "--log-format"} <= options, name
        assert load_command(name) is command  # loaded once, options added once
        assert sum(opt == "--quiet" for p in command.params for opt in getattr(p, "opts", ())) == 1


def test_a_command_runs_through_the_lazy_group() -> None:
    result = CliRunner().invoke(cli, ["plan", "--help"])
    assert result.exit_code == 0 and "--detailed-exitcode" in result.output
