"""docs/cli.md against the binary's --help: every option of every command is in the command's
section with the default --help shows, and the section lists no option the command lacks."""
import os
import re
import unittest

from prism_test_util import main, run_prism

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cli.md")
OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def commands():
    text = run_prism("--help", check=0).stdout
    listed = text.split("Subcommands:", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\s", listed, re.M)]


def help_options(command):
    """{--long-name: default or None} from `prism COMMAND --help`."""
    lines = run_prism(command, "--help", check=0).stdout.splitlines()
    options = {}
    for i, line in enumerate(lines):
        m = re.match(r"^  (?:-\w,)?(--[\w-]+(?:,--[\w-]+)*)(\S*)", line)
        if not m:
            continue
        names = m.group(1).split(",")
        spec = line[m.end(1):].split("  ")[0]
        # The description may continue on the next, deeper-indented line.
        description = line + (" " + lines[i + 1].strip() if i + 1 < len(lines)
                              and lines[i + 1].startswith(" " * 20) else "")
        default = None
        if "=" in spec:
            default = spec.split("=", 1)[1].strip()
        bracket = re.search(r"\[default: ([^\]]+)\]", description)
        if bracket:
            default = bracket.group(1)
        for name in names:
            if name not in ("--help", "--version"):
                options[name] = default
    return options


def docs_sections():
    """{command: {--long-name: default cell}} from docs/cli.md's option tables."""
    sections = {}
    current = None
    with open(DOCS, encoding="utf-8") as f:
        for line in f:
            heading = re.match(r"^## `prism ([a-z-]+)`", line)
            if heading:
                current = sections.setdefault(heading.group(1), {})
                continue
            if current is None or not line.startswith("| `"):
                continue
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            default = cells[1].replace("`", "")
            for name in OPTION.findall(cells[0]):
                current[name] = default
    return sections


class DocsMatchHelp(unittest.TestCase):
    def test_every_command_and_option_is_documented_with_its_default(self):
        sections = docs_sections()
        for command in commands():
            with self.subTest(command=command):
                self.assertIn(command, sections, "docs/cli.md has no section for prism " + command)
                documented = sections[command]
                options = help_options(command)
                self.assertEqual(sorted(options), sorted(documented),
                                 "options of prism " + command + " in --help and docs/cli.md")
                for name, default in options.items():
                    if default is None or default.startswith("see "):
                        continue
                    cell = documented[name]
                    self.assertTrue(default == cell or default.startswith(cell + ", "),
                                    f"prism {command} {name}: --help default '{default}', docs '{cell}'")


if __name__ == "__main__":
    main()
