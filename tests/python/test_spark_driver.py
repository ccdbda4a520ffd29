"""What integrations/spark/linksieve_spark.py writes again in Python, tied to what the binary
does: the TSV escaping of a field (the driver escapes the original paths it puts back in the
provenance, and unescapes rows) and the fields of `linksieve identity` (which it compares field
by field). The whole driver runs on a loopback cluster in scripts/spark-loopback.sh."""

import importlib.util
import json
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[2] / "integrations/spark/linksieve_spark.py"


@pytest.fixture(scope="module")
def driver():
    spec = importlib.util.spec_from_file_location("linksieve_spark", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("options", [[], ["--profile", "w3lib"], ["--rung", "protocol", "--form", "surt"]])
def test_identity_fields_are_those_linksieve_identity_prints(cli, driver, options):
    printed = json.loads(cli("identity", *options).stdout)
    assert tuple(printed) == driver.IDENTITY_FIELDS
    assert set(driver.IDENTITY_DEFAULTS) <= set(printed)


def test_old_option_names_are_aliases(driver):
    spec = importlib.util.spec_from_file_location("linksieve_arrow", PATH.with_name("linksieve_arrow.py"))
    arrow = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(arrow)
    for module in (driver, arrow):
        parse = module.build_parser().parse_args
        common = ["--input", "f", "--out", "o"]
        assert parse(common).rung == "scheme"
        assert parse(common + ["--rung", "syntax"]).rung == "syntax"
        assert parse(common + ["--level", "protocol"]).rung == "protocol"
        with pytest.raises(SystemExit):
            parse(common + ["--level", "top"])
    parse = arrow.build_parser().parse_args
    common = ["--input", "f", "--out", "o"]
    assert parse(common).input_mode == "strict"
    assert parse(common + ["--input-mode", "web"]).input_mode == "web"
    assert parse(common + ["--mode", "leiri"]).input_mode == "leiri"  # the old name


def test_escape_field_is_the_escaping_of_linksieve_rows(cli, driver, tmp_path):
    # file names with every character the TSV escapes, and others it leaves alone
    names = ["tab\there", "back\\slash", "line\nfeed", "carriage\rreturn", "all\t\\\n\r\\t", "plain é %"]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(f"see http://a.example/{i}\n", encoding="utf-8")
    paths = sorted(str(tmp_path / n) for n in names)
    rows = cli("run", "--format", "tsv", "-q", "-j", "1", "--", *paths).stdout.splitlines()
    assert len(rows) == len(paths)
    for row in rows:
        fields = row.split("\t")
        assert len(fields) == 4, row
        escaped_path, line, offset = fields[3].rsplit(":", 2)
        assert (line, offset) == ("1", "4")
        i = int(fields[1].rsplit("/", 1)[1])
        path = str(tmp_path / names[i])
        assert escaped_path == driver.escape_field(path)
        assert driver.unescape_field(escaped_path) == path
