"""The `memshift` command group: its help in sections, and `main`, which turns a bad input into one
line and exit status 2."""

from __future__ import annotations

import sys

import click

from memshift.errors import MemshiftError

# `memshift --help` lists what a user runs first, then a world's stages by hand, then what the
# workflow's jobs run (`job`, with each job's spec; `report`, with the study's tables)
USER_COMMANDS = (
    "plan", "explain", "export-dataset", "score-predictions", "export-bundle", "verify", "models",
    "cache", "stats", "validate", "validate-grid", "horizons", "heldout", "rewritten",
    "validation-report", "validation-grid-report", "horizons-report", "heldout-report",
    "rewritten-report", "serve-study", "validate-bundle", "docs-tables",
)  # fmt: skip


WORLD_COMMANDS = ("world", "branches", "gold", "probes", "manifest")


JOB_COMMANDS = ("job",)


SECTIONS = (
    ("Commands", USER_COMMANDS),
    ("A world by hand, one stage at a time", WORLD_COMMANDS),
    ("The workflow's jobs (`memshift job --help`)", JOB_COMMANDS),
)


class Sections(click.Group):
    """A group whose help lists its commands by SECTIONS, each description whole."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        listed = [name for _, names in SECTIONS for name in names if name in self.commands]
        return listed + sorted(set(self.commands) - set(listed))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        unlisted = sorted(set(self.commands) - {n for _, names in SECTIONS for n in names})
        for title, names in (*SECTIONS, ("Other commands", tuple(unlisted))):
            rows = [
                (name, self.commands[name].get_short_help_str(limit=1_000))
                for name in names
                if name in self.commands and not self.commands[name].hidden
            ]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


@click.group(cls=Sections)
@click.version_option(package_name="memshift")
def cli() -> None:
    """memshift: does a memory of facts derived about a person stay correct when its inputs
    change, and which step failed when it does not?"""


def main() -> None:
    from memshift.artifacts import skip_pyarrow_pandas_probe

    skip_pyarrow_pandas_probe()
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except MemshiftError as exc:
        click.echo(f"memshift: error: {exc}", err=True)
        sys.exit(2)
